"""Named papers, or two topics' best papers, side by side."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from rag.answers.handlers.context import Context
from rag.cues import Cues
from rag.models import Answer, AnswerSentence, Citation, Paper, Plan, SearchHit
from rag.store.chunking import split_sentences
from rag.store.markup import bold, readable
from rag.text import content_terms

PER_SIDE = 2  # papers standing for each side of a comparison of topics

# Each part of an abstract and the lexicon's sentence cue that marks it.
_ROLES = {
    "Problem": "problem_role",
    "Method": "method_role",
    "Evaluation": "evaluation_role",
    "Result": "result_role",
}


def compare(
    ctx: Context, question: str, plan: Plan, use_model: bool = False
) -> Iterator[str | Answer]:
    """Named papers side by side, each from its own sentences; yields text, then the Answer."""
    cat = ctx.cat
    ambiguous = {
        name: ids
        for name in plan.named
        if len(ids := cat.names.called(name)) > 1
        and not any(p.title == name for p in cat.papers)
    }
    if ambiguous:
        name, ids = next(iter(ambiguous.items()))
        options = "; ".join(f"“{cat.by_id[i].title}” [{i}]" for i in ids[:6])
        text = f"Several papers are called {name}: {options}. Which one do you mean?"
        yield text
        yield Answer(question=question, text=text, plan=plan)
        return
    ids = [i for i in plan.paper_ids if i in cat.by_id]
    note = ""
    if not ids and (sides := plan.sides):
        # "Compare Mamba and Transformers papers on long context": no paper is named, so
        # each side is its own topic, and its best-matching papers stand for it.
        groups = []
        for wordings in sides:
            for side in wordings:  # with the shared context first, then the side alone
                matches, _ = ctx.matcher.match(side, plan.filters)
                found = [cat.ids[m.index] for m in matches if cat.ids[m.index] not in ids]
                if found:
                    break
            groups.append((side, len(ids) + 1, found[:PER_SIDE]))
            ids += found[:PER_SIDE]
        if all(found for _s, _n, found in groups):
            note = (
                "No paper is named: the papers that best match each side stand for it ("
                + "; ".join(
                    f"\u201c{side}\u201d: "
                    + ", ".join(f"[{n}]" for n in range(first, first + len(found)))
                    for side, first, found in groups
                )
                + ").\n\n"
            )
        else:
            ids = []
    if len(ids) < 2 and plan.topic:
        matches, _ = ctx.matcher.match(plan.topic, plan.filters)
        want = max(2, plan.shown or 2) - len(ids)
        ids += [cat.ids[m.index] for m in matches if cat.ids[m.index] not in ids][:want]
        if plan.paper_ids and len(ids) > len(plan.paper_ids):
            # "Compare DeepSeek-R1 and OpenThoughts": one written name is no paper's.
            note = (
                f"“{plan.topic}” is the name of no indexed paper; the paper that matches it "
                "best stands in for it.\n\n"
            )
    if len(ids) < 2:
        described = _described(ctx, plan, ids)
        if len(described) >= 2:
            first = len(ids) + 1
            refs = " and ".join(f"[{n}]" for n in range(first, len(described) + 1))
            which = f"Papers {refs} are" if first < len(described) else f"Paper {refs} is"
            note = (
                f"{which} not named in the question: the best match of what it says of the "
                "papers compared.\n\n"
            )
            ids = described
    if len(ids) < 2:
        missing = [n for n in plan.named if not cat.names.resolve(n)]
        text = "To compare, name two or more papers of the index (titles or method names)" + (
            f"; not found: {', '.join(missing)}." if missing else "."
        )
        yield text
        yield Answer(question=question, text=text, refused=True, plan=plan)
        return
    papers = [cat.by_id[i] for i in ids]
    parts = [_roles(p, ctx.cues) for p in papers]
    hits = [SearchHit(paper=p, score=1.0) for p in papers]
    answer: Answer | None = None
    if note:
        yield note
    if use_model and ctx.writer is not None:
        for piece in ctx.writer.stream(question, hits):
            if isinstance(piece, Answer):
                answer = piece
            else:
                yield piece
    extractive = _compare_text(papers, parts)
    if answer is None or answer.refused:
        answer = Answer(question=question, text=note + extractive[0], sources=hits)
        answer.sentences = extractive[1]
        yield extractive[0]
    else:
        answer.text = note + answer.text
        cited = {c.paper_id for c in answer.citations}
        # Every named paper gets its part, even when the model left one out.
        extra = [
            (n, p, r)
            for n, (p, r) in enumerate(zip(papers, parts, strict=True), 1)
            if p.id not in cited
        ]
        add = "\n".join(_part(n, p, r) for n, p, r in extra)
        if add:
            answer.text += "\n\n" + add
            yield "\n\n" + add
    table = _table(papers, parts)
    answer.text += "\n\n" + table
    yield "\n\n" + table
    have = {c.n for c in answer.citations}
    for n, (p, r) in enumerate(zip(papers, parts, strict=True), 1):
        if n not in have:
            quote = r.get("Method") or next(iter(r.values()), p.abstract[:200])
            answer.citations.append(
                Citation(n=n, paper_id=p.id, title=p.title, url=p.url, quote=quote)
            )
    answer.citations.sort(key=lambda c: c.n)
    answer.plan = plan
    answer.refused = False
    yield answer


    # Names as abstracts write datasets, benchmarks and models: GSM8K, ImageNet, SWE-bench,



def _described(ctx: Context, plan: Plan, ids: list[str]) -> list[str]:
    """The papers a comparison describes instead of naming ("the approach that stores a
    knowledge graph as attention keys … the one that turns memories into external tokens"):
    the named ones, then the best matches of the question's words (by words and embedding)."""
    cat = ctx.cat
    terms = content_terms(plan.topic)  # the question's words, its names and frame words out
    # One word describes no paper ("compare it with nothing"), nor does a description half of
    # whose words no paper writes ("the two papers on wedding photography retouching").
    if len(terms) < 2 or 2 * sum(not cat.df(t) for t in terms) >= len(terms):
        return ids
    combined = ctx.matcher.closest(plan.topic, cat, plan.filters)
    chosen = list(ids)
    for i in np.argsort(-combined):
        if len(chosen) >= 2 or combined[i] <= 0:
            break
        if cat.ids[i] not in chosen:
            chosen.append(cat.ids[i])
    return chosen


def _roles(paper: Paper, cues: Cues) -> dict[str, str]:
    """Problem, method, evaluation and result sentences of an abstract (verbatim)."""
    sents = split_sentences(paper.abstract)
    # Only the problem may be scene-setting: "Recent approaches leverage …" or "However, they
    # often fail …" hold a method's or a result's cue words but say what others did.
    own = [not cues.framing(s, i) for i, s in enumerate(sents)]
    picked: dict[str, str] = {}
    used: set[int] = set()
    for role, cue in _ROLES.items():
        order = range(len(sents)) if role in ("Problem", "Method") else reversed(range(len(sents)))
        for i in order:
            if i not in used and (role == "Problem" or own[i]) and cues.says(cue, sents[i]):
                picked[role] = sents[i]
                used.add(i)
                break
    # Abstracts follow problem → method → results; fill gaps by position.
    fallback = {"Problem": 0, "Method": 1, "Evaluation": len(sents) - 2, "Result": len(sents) - 1}
    for role, i in fallback.items():
        if role not in picked and 0 <= i < len(sents) and i not in used:
            if role == "Problem" or own[i]:
                picked[role] = sents[i]
                used.add(i)
    return {r: picked[r] for r in _ROLES if r in picked}


def _part(n: int, paper: Paper, roles: dict[str, str]) -> str:
    lines = [f"{bold(paper.title)} [{n}]"]
    lines += [f"- {role}: {readable(text)} [{n}]" for role, text in roles.items()]
    return "\n".join(lines)


def _compare_text(
    papers: Sequence[Paper], parts: Sequence[dict[str, str]]
) -> tuple[str, list[AnswerSentence]]:
    lines = [f"Comparing {len(papers)} papers, each from its own abstract:"]
    sentences = []
    for n, (p, r) in enumerate(zip(papers, parts, strict=True), 1):
        lines.append("")
        lines.append(_part(n, p, r))
        sentences += [AnswerSentence(text=t, citations=[n], support=1.0) for t in r.values()]
    return "\n".join(lines), sentences


def _short(text: str, words: int = 22) -> str:
    w = text.replace("|", "/").split()
    return " ".join(w[:words]) + (" …" if len(w) > words else "")


def _table(papers: Sequence[Paper], parts: Sequence[dict[str, str]]) -> str:
    """A markdown table: one column per paper, one row per aspect."""
    head = (
        "| | " + " | ".join(f"{_short(p.title, 8)} [{n}]" for n, p in enumerate(papers, 1)) + " |"
    )
    rule = "|---|" + "---|" * len(papers)
    rows = [head, rule]
    for role in _ROLES:
        cells = [
            f"{_short(readable(r[role]))} [{n}]" if role in r else "—"
            for n, r in enumerate(parts, 1)
        ]
        rows.append(f"| {role} | " + " | ".join(cells) + " |")
    return "\n".join(rows)

