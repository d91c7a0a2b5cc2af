"""Counts: which of two topics has more papers, counts by a field, the names papers write."""

from __future__ import annotations

import re
from collections.abc import Mapping

from rag.answers.handlers.context import Context
from rag.answers.handlers.listing import matched
from rag.answers.handlers.quoting import SHOWN, cite, list_answer, paper_match
from rag.answers.wording import ASPECT_SAID, decisions_note
from rag.cues import Cues
from rag.models import Answer, AnswerSentence, Citation, Paper, PaperMatch, Plan, SearchHit
from rag.retrieval.matching import Match, describe_filters
from rag.store.catalog import SMALL_WORDS, Catalog
from rag.store.markup import bold
from rag.store.names import introduces, paper_names

TOP_KEYWORDS = 20  # keywords shown by "Which keywords are most common?"
PER_SIDE_SHOWN = 3  # papers cited for each topic of "more papers on A or on B?"


def more(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """Which of two topics more papers write about: each side counted as a list would be,
    with its most relevant papers cited; None when the plan holds fewer than two sides."""
    sides = plan.topic.split(" or ", 1)
    if len(sides) < 2 or not all(sides):
        return None  # one side: the best-matching abstracts answer
    counted = [(side, *ctx.matcher.match(side, plan.filters)) for side in sides]
    (a, found_a, _), (b, found_b, _) = counted
    if len(found_a) == len(found_b):
        lead = f"As many papers are on “{a}” as on “{b}” ({len(found_a)} each)"
    else:
        (more, n_more), (less, n_less) = sorted(
            [(a, len(found_a)), (b, len(found_b))], key=lambda t: -t[1]
        )
        lead = f"More papers are on “{more}” ({n_more}) than on “{less}” ({n_less})"
    if plan.filters.active():
        lead += f", among {describe_filters(plan.filters)}"
    rules = "; ".join(f"“{side}”: {rule}" for side, _found, rule in counted)
    papers: list[PaperMatch] = []
    ranges: list[str] = []
    for side, found, _rule in counted:
        best = [paper_match(ctx, m) for m in found[:PER_SIDE_SHOWN]]
        if best:
            ranges.append(f"[{len(papers) + 1}]–[{len(papers) + len(best)}] on “{side}”")
        papers += best
    shown = " and ".join(ranges)
    lead += f" ({rules})." + (f" The most relevant of each: {shown}." if shown else "")
    citations = cite(papers)
    return list_answer(
        question,
        lead,
        citations,
        refused=not (found_a or found_b),
        plan=plan,
        papers=papers,
        rule=rules,
    )


def _names(
    ctx: Context,
    question: str,
    plan: Plan,
    cat: Catalog,
    matches: list[Match],
    papers: list[PaperMatch],
    rule: str,
    dropped: str,
) -> Answer:
    """The names (datasets, benchmarks, models) the matched papers' abstracts write, by how
    many papers write each; each name with the papers that write it, cited."""
    by_name: dict[str, list[int]] = {}
    forms: dict[str, dict[str, int]] = {}
    spelled: dict[str, int] = {}
    for m in matches:
        # Once per paper however it is written there ("GUI-Agent", "GUI-agent").
        for name in sorted(written_names(cat.papers[m.index], cat.acronyms)):
            key = name.lower()
            if _spelled_out(cat.papers[m.index].abstract, name):
                spelled[key] = spelled.get(key, 0) + 1
            forms.setdefault(key, {})[name] = forms.get(key, {}).get(name, 0) + 1
            if m.index not in by_name.setdefault(key, []):
                by_name[key].append(m.index)
    # "Which benchmarks …?": a model's name (GPT-4o, Qwen2.5-7B) is no benchmark; "Which
    # models …?": a model family's (AlpacaEval is none).
    asked = plan.resource
    data, models = asked in ("datasets", "benchmarks"), asked in ("models", "llms")
    # A name two papers spell out ("… Verifiable Reward (RLVR)") is a method's or a
    # field's; one paper defining "MMLU" leaves the benchmark in.
    rows = sorted(
        (
            (k, v)
            for k, v in by_name.items()
            if len(v) >= 2
            and spelled.get(k, 0) < 2
            and k not in _NOT_NAMES
            and not (data and _model_name(k, ctx.cues))
            and not (models and not _model_name(k, ctx.cues))
        ),
        key=lambda kv: (-len(kv[1]), kv[0]),
    )[:TOP_KEYWORDS]
    n = len(papers)
    what = f"papers matching “{plan.topic}”" if plan.topic else "papers"
    lead = (
        f"The names most often written in the abstracts of the {n} {what} ({rule}), by how "
        "many papers write them (each paper's own names left out; the abstracts say "
        f"{'which are ' + asked if asked else 'what each is'}):"
    )
    if not rows:
        named = {"datasets": "dataset ", "benchmarks": "benchmark ", "models": "model "}.get(
            asked, "LLM " if models else ""
        )
        lead = (
            f"No {named}name is written in the abstracts of two or more of the {n} {what} "
            f"({rule})."
        )
    if dropped:
        lead = f"No {dropped} match.{decisions_note(plan.filters, cat)} {lead}"
    citations: list[Citation] = []
    counted: list[str] = []
    for key, idx in rows:
        name = max(forms[key].items(), key=lambda kv: kv[1])[0]
        marks = []
        for i in idx[:3]:
            paper = cat.papers[i]
            c = next((c for c in citations if c.paper_id == paper.id), None)
            if c is None:
                # The sentence writing the name, however this paper spells it.
                sentences = cat.sentences[i]
                quote = next((s for s in sentences if key in s.lower()), sentences[0])
                c = Citation(
                    n=len(citations) + 1,
                    paper_id=paper.id,
                    title=paper.title,
                    url=paper.url,
                    quote=quote,
                )
                citations.append(c)
            marks.append(f"[{c.n}]")
        counted.append(f"- {name}: {bold(str(len(idx)))} {''.join(marks)}")
    hits = [
        SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches[: max(SHOWN, 50)]
    ]
    return Answer(
        question=question,
        text="\n".join([lead, "", *counted]),
        refused=not rows,
        citations=citations,
        sentences=[
            AnswerSentence(text=c.quote, citations=[c.n], support=1.0) for c in citations
        ],
        sources=hits,
        plan=plan,
        papers=papers,
        count=0 if dropped else n,
        rule=rule,
    )

def breakdown(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """A count grouped by a field or by the names the papers write; None when a topic matches
    nothing."""
    found = matched(ctx, question, plan)
    if isinstance(found, Answer):
        return found
    # "What challenges do papers on X address?": each paper's sentence of that kind.
    asked = plan.aspect if plan.aspect in ASPECT_SAID else None
    papers = [paper_match(ctx, m, asked) for m in found.matches]  # type: ignore[arg-type]
    return _breakdown(
        ctx, question, plan, ctx.cat, found.matches, papers, found.rule, found.dropped
    )


def _breakdown(
    ctx: Context,
    question: str,
    plan: Plan,
    cat: Catalog,
    matches: list[Match],
    papers: list[PaperMatch],
    rule: str,
    dropped: str,
) -> Answer:
    """A count grouped by area, decision or keyword, largest group first (keywords: the
    most common only); or the names the papers' abstracts write."""
    if plan.group_by == "name":
        return _names(ctx, question, plan, cat, matches, papers, rule, dropped)
    field = {"area": "primary area", "decision": "decision", "keyword": "keyword"}[
        plan.group_by or "area"
    ]
    groups: dict[str, int] = {}
    # One keyword is written many ways ("LLMs", "Large Language Model"): counted by its
    # stemmed words, acronyms written out, and shown as most papers write it.
    written: dict[str, dict[str, int]] = {}
    for p in papers:
        if plan.group_by == "keyword":
            values = []
            for k in (k.strip() for k in p.keywords if k.strip()):
                terms = tuple(cat.terms(k))
                if len(terms) == 1 and terms[0] in cat.acronyms:
                    terms = cat.acronyms[terms[0]]
                key = " ".join(terms) or k.lower()
                forms = written.setdefault(key, {})
                forms[k] = forms.get(k, 0) + 1
                values.append(key)
            values = list(dict.fromkeys(values))
        else:
            value = p.primary_area if plan.group_by == "area" else p.decision
            values = [value or f"(no {field})"]
        for value in values:
            groups[value] = groups.get(value, 0) + 1
    n = len(papers)
    what = f"papers matching “{plan.topic}”" if plan.topic else "papers"
    if papers and (not groups or set(groups) == {f"(no {field})"}):
        # "What are the main topics?" over the sample, which records no keywords: said,
        # with the papers themselves instead of an empty count.
        citations = cite(papers[:SHOWN])
        more = f"; the first {len(citations)} follow" if n > len(citations) else ""
        return list_answer(
            question,
            f"The index records no {field}s for its {n} {what}, so they cannot be counted "
            f"by {field}{more}:",
            citations,
            plan=plan,
            papers=papers,
            count=n,
            rule=rule,
        )
    lead = f"{n} {what} by {field} ({rule})."
    rows = sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))
    if plan.group_by == "keyword":
        lead = (
            f"The {min(TOP_KEYWORDS, len(rows))} most common of the {len(rows)} keywords of "
            f"{n} {what} ({rule}):"
        )
        rows = [
            (max(written[k].items(), key=lambda kv: kv[1])[0], c)
            for k, c in rows[:TOP_KEYWORDS]
        ]
    if dropped:
        lead = f"No {dropped} match.{decisions_note(plan.filters, cat)} {lead}"
    # A list, not a Markdown table: area names are long and the chat column is narrow.
    counted = [f"- {value}: {bold(str(count))}" for value, count in rows]
    hits = [
        SearchHit(paper=cat.papers[m.index], score=m.score) for m in matches[: max(SHOWN, 50)]
    ]
    return Answer(
        question=question,
        text="\n".join([lead, "", *counted]),
        refused=n == 0,
        sources=hits,
        plan=plan,
        papers=papers,
        count=0 if dropped else n,
        rule=rule,
    )


_NAME = re.compile(
    r"(?<![\w-])(?:[A-Z][A-Za-z]*[A-Z0-9][\w.-]*[A-Za-z0-9]|[A-Z][a-z]+[A-Z][\w-]*[A-Za-z0-9]|"
    r"[A-Z][a-z]+-\d[\w.]*[A-Za-z0-9]|[A-Z]{3,})(?![\w-])"
)


# "LLM-based", "GPU", "OpenAI": how abstracts describe things, not datasets or models.
_NOT_A_NAME = re.compile(
    r"^[A-Z]\w*-(?:based|driven|generated|powered|guided|style|level|free|aware|like|specific|"
    r"centric|agnostic|only|wise|tuned|enhanced|assisted|scale|sized|as|in|to)$|"
    r"^(?:APIs?|[CGTN]PUs?|FLOPs|SOTA|OpenAI|Google|Meta|Microsoft|NVIDIA|GitHub|HuggingFace|"
    r"URLs?|JSON|PDFs?)$"
)


def _spelled_out(abstract: str, name: str) -> bool:
    """Whether the abstract writes the name as the acronym of words before it: "Reinforcement
    Learning with Verifiable Reward (RLVR)" is a method's name, not a dataset's."""
    at = max(abstract.find(f"({name})"), abstract.find(f"({name}s)"))
    if at < 0:
        return False
    words = re.findall(r"[\w-]+", abstract[max(0, at - 120) : at])[-8:]
    initials = "".join(
        part[0] for w in words if w.lower() not in SMALL_WORDS for part in w.split("-") if part
    ).lower()
    letters = re.sub(r"[^a-z]", "", name.lower())
    return len(letters) >= 2 and initials.endswith(letters)


def written_names(paper: Paper, acronyms: Mapping[str, object]) -> set[str]:
    """The names a paper's abstract writes that are not its own (the title's, those it
    introduces) nor a field's acronym the collection defines (LLM, RL, GNN)."""
    own = {n.lower() for n in paper_names(paper)}
    found: set[str] = set()
    for m in _NAME.finditer(paper.abstract):
        name = m.group().rstrip(".-")
        key = name.lower()
        bare = key[:-1] if key.endswith("s") else key
        head, _, rest = key.partition("-")
        if (
            # "LLM-as-a-judge", "RL-trained": a field's acronym with words, not SWE-bench.
            (re.fullmatch(r"[a-z-]+", rest) and head.rstrip("s") in acronyms)
            # "README.md": a file.
            or re.search(r"\.[a-z]{1,4}$", name)
        ):
            continue
        if (
            len(name) < 3
            or _NOT_A_NAME.match(name)
            or key in own
            or bare in acronyms
            or key in acronyms
            or re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", paper.title, re.IGNORECASE)
            or introduces(paper.abstract, name)
        ):
            continue
        found.add(name)
    return found


# A size suffix ("Dream-7B", "Qwen 0.5b"): a model's name, with the lexicon's model families.
_MODEL_SIZE = re.compile(r"[-\s]\d+(?:\.\d+)?[bm]$", re.IGNORECASE)


def _model_name(name: str, cues: Cues) -> bool:
    """Whether a name is a model's: a family the lexicon names, or a size suffix."""
    return cues.says("model_families", name) or _MODEL_SIZE.search(name) is not None


# Capitalised words that name a format or a device, not a dataset, benchmark or model.
_NOT_NAMES = frozenset("sql rgb rgb-d api gpu gpus cpu tpu json html pdf url cuda ai".split())
