"""The offline answerer: composes an answer from verbatim source sentences, with citations."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .markup import bold, readable
from .models import Answer, AnswerSentence, Citation, Paper, SearchHit
from .names import coined_words, introduces, names_introduced, paper_names
from .qtype import (
    COUNT_WORDS,
    QuestionType,
    asked_detail,
    asks_citations,
    asks_metadata,
    asks_two_things,
    asks_usage,
    framing,
    has_cue,
    question_type,
    reports_result,
    states_amount,
    type_fit,
)
from .refusal import RefusalModel, signals
from .support import Evidence, SentenceScore
from .text import content_terms

# A paper joins the answer when its best sentence scores within this margin of
# the best paper's: close runners-up are part of the answer, weak ones noise.
MARGIN = 0.12
MAX_PAPERS = 5
# How much fitting the question's type (a number for "how much") counts against topicality
# when the sentence to quote is picked.
TYPE_WEIGHT = 0.25
# A second sentence of the leading paper is quoted when it scores this close to the first.
SECOND_MARGIN = 0.1
# A further sentence of the leading paper is quoted when it holds at least this share of the
# question's (IDF-weighted) terms the abstract writes, of those the title and the sentences
# picked so far leave out ("… and shows that pruning helps?"), and is not much less topical
# than the best one.
MIN_GAIN = 0.08
COVER_MARGIN = 0.3
# Room for one such sentence after the contribution, its close second and what it consists
# of: "…, unifying the two earlier lines of work, with regret guarantees?" (scale set: 29 of
# 162 quotes gain a sentence; fact recall on its fit half 0.836 → 0.843, nothing lost).
MAX_SENTENCES = 4
# "Which paper …?", "Is there a method …?": the question asks for one work, so the
# best-evidenced paper alone answers it; close runners-up are what a plural question wants.
_ONE_WORK = re.compile(
    r"^\W*(?:(?:which|what)\s+(?:(?:single|one|recent|specific|particular)\s+)?"
    r"(?:paper|work|study|article|publication|method|"
    r"approach|framework|technique|algorithm)\b(?!s)|(?:is|was)\s+there\s+(?:a|an|one)\b|"
    r"has\s+(?:anyone|anybody|any\s+(?:paper|work))\b)"
    # "What is the main contribution of the paper on KV-cache transform coding?"
    r"|\bthe\s+(?:paper|work|study|article)\s+(?:on|about|that|which|proposing|introducing)\b",
    re.IGNORECASE,
)


def refusal_text(
    refusal: str,
    hits: Sequence[SearchHit],
    confidence: float | None = None,
    threshold: float | None = None,
    best: str = "",
) -> str:
    """The refusal: why (the best evidence and how far it fell short) and the nearest papers."""
    if not hits:
        return refusal + " The index holds no paper close to it."
    names = "; ".join(f"{readable(h.paper.title)}" for h in hits[:3])
    why = ""
    if confidence is not None and threshold is not None:
        why = (
            f" The best match reached a confidence of {confidence:.2f}, short of the "
            f"{threshold:.2f} needed to answer"
            + (f"; its closest sentence: \u201c{readable(best)}\u201d" if best else "")
            + "."
        )
    # A title ending in "." or "?" ends the sentence itself.
    end = "" if names.endswith((".", "?", "!")) else "."
    return f"{refusal}{why} The nearest papers are: {names}{end}"


def decide(
    question: str,
    evidence: Sequence[Evidence],
    model: RefusalModel,
    named: Sequence[str] = (),
    name_words: set[str] | None = None,
    min_evidence: float = 0.0,
    show_weak: bool = False,
    *,
    refusal: str,
    unknown: Sequence[str] = (),
    namesakes: Mapping[str, Sequence[str]] | None = None,
    unused: Sequence[str] = (),
) -> Answer:
    """The offline answer: refuse only when the refusal model says the collection is silent.

    A question that names an indexed paper is never refused; `show_weak` answers from the
    closest evidence anyway, marked weak. `refusal` is the refusal prompt's text; a refusal
    first names the question's `unknown` words, which no indexed paper writes. `namesakes` maps
    a name the question writes to the several papers that go by it; `unused` are the
    question's terms no indexed paper uses (a refusal signal, see rag.refusal.signals).
    """
    sig = signals(evidence, len(unused))
    confidence = round(model.probability(sig), 3) if evidence else 0.0
    # "What does DeepSeek-OCR do?": a question about a name no indexed paper writes has no
    # answer here, however close the papers about its field come.
    about_unknown = any(
        re.search(rf"\b(?:does|did|do|is|was|are)\s+{re.escape(u)}(?!\w)", question)
        for u in unknown
    )
    refuse = not named and (not evidence or model.refuses(sig) or about_unknown)
    missing = ", ".join(f"\u201c{w}\u201d" for w in unknown)
    if refuse and show_weak and evidence:
        answer = extractive_answer(question, evidence, min_evidence)
        answer.weak = True
        why = (
            f"no indexed paper mentions {missing}"
            if about_unknown
            else f"confidence {confidence:.2f}, below {model.threshold:.2f}"
        )
        answer.text = (
            f"Weak evidence ({why}): the closest sentences, which may not answer the "
            f"question.\n{answer.text}"
        )
    elif refuse:
        hits = [e.hit for e in evidence]
        best = evidence[0].ranked[0].text if evidence and evidence[0].ranked else ""
        answer = Answer(
            question=question,
            text=(f"No indexed paper mentions {missing}. " if missing else "")
            # A name no paper writes is the reason itself; the confidence would not be.
            + refusal_text(
                refusal,
                hits,
                None if about_unknown else confidence,
                model.threshold,
                best,
            ),
            refused=True,
            sources=hits,
        )
    else:
        answer = extractive_answer(
            question, evidence, min_evidence, named, name_words, namesakes or {}
        )
    answer.confidence, answer.signals, answer.named = confidence, sig, list(named)
    return answer


def proper_words(question: str, terms: Sequence[str]) -> str:
    """The question's capitalised words (past its first) for some of its terms, quoted:
    '“Verilog”'. A paraphrase's ordinary words ("blobs", "leftover") that no abstract uses say
    nothing about the collection; a name it writes does."""
    wanted = set(terms)
    words = [
        m.group()
        for m in re.finditer(r"[\w-]+", question)
        if m.start() > 0 and m.group()[0].isupper() and set(content_terms(m.group())) & wanted
    ]
    return ", ".join(f"\u201c{w}\u201d" for w in dict.fromkeys(words))


# "Which paper introduces GRPO?": a name the question says some paper introduced.
_INTRODUCES_Q = re.compile(
    r"(?i:\b(?:which|what)\s+(?:paper|work|article|method)\s+(?:first\s+)?(?:introduces|introduced|"
    r"proposes|proposed|presents|presented|invented|created|coined)\s+(?:the\s+)?)"
    r"(?P<name>[A-Z][\w-]*[A-Z0-9][\w-]*|[A-Z][a-z]+[A-Z][\w-]*)\b"
)


# "What is DINOv3?", "What does Qwen2.5-VL do?": a question about a name alone.
_WHAT_IS_NAME_Q = re.compile(
    r"^\W*(?i:what\s+(?:is|are|does)|tell\s+me\s+about|explain|describe)\s+(?:the\s+)?"
    r"(?P<name>[A-Z][\w.-]*[A-Z0-9][\w-]*|[A-Z][a-z]+[A-Z][\w-]*)"
    r"(?i:\s+(?:do|mean|stand\s+for|model|method|dataset|benchmark))?\s*\??\s*$"
)


def not_introduced(question: str, evidence: Sequence[Evidence]) -> str:
    """The name a "which paper introduces X?" or "what is X?" question asks about when the
    papers answering it use X but none introduces it (GRPO, DINOv3 came before this
    conference). Empty otherwise."""
    m = _INTRODUCES_Q.search(question) or _WHAT_IS_NAME_Q.search(question)
    if not m or not evidence:
        return ""
    name = m["name"]
    abstracts = [e.hit.paper.abstract for e in evidence[:MAX_PAPERS]]
    if not any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", a) for a in abstracts):
        return ""
    if any(introduces(a, name) for a in abstracts):
        return ""
    return f"\u201c{name}\u201d"


def _naming_first(ranked: list[SentenceScore], paper: Paper, question: str) -> list[SentenceScore]:
    """For "What does PARD do?", the sentences with the one introducing the name the question
    writes ahead ("we propose PARD, a …"), not a later "to cut the cost of PARD, we propose
    COD": what the paper is."""
    names = [n for n in paper_names(paper) if re.search(rf"(?<!\w){re.escape(n)}(?!\w)", question)]
    # "What does VideoSafety-R1 do?": a name its abstract introduces, not its title.
    names += names_introduced(coined_words(question), paper.abstract)
    boosted = [
        SentenceScore(s.index, s.text, s.score + TYPE_WEIGHT)
        if any(introduces(s.text, n) for n in names)
        else s
        for s in ranked
    ]
    return sorted(boosted, key=lambda s: -s.score)


def extractive_answer(
    question: str,
    evidence: Sequence[Evidence],
    min_evidence: float,
    named: Sequence[str] = (),
    name_words: set[str] | None = None,
    namesakes: Mapping[str, Sequence[str]] | None = None,
) -> Answer:
    """Compose a cited answer from the sentences of the question's type (evidence not empty).

    Of papers that share a name the question writes ("CoDA"), those whose abstracts lack the
    asked detail are left out when a namesake's abstract holds it: the question is about that
    one."""
    hits = [e.hit for e in evidence]
    qtype = question_type(question)
    usage = qtype == "entities" and asks_usage(question)
    # "What is FinSearchComp and how many questions does it contain?" counts questions.
    detail = asked_detail(question)
    counted = (
        frozenset().union(*focus_terms(detail, name_words))
        if re.search(r"(?i)\bhow\s+many\b", detail)
        else frozenset()
    )
    focus = (
        frozenset().union(*focus_terms(detail, name_words)) - _GENERIC_FOCUS
        if qtype == "number"
        else frozenset()
    )
    if qtype == "number" and _asks_speed(detail):
        # "How much faster is Qronos?": "a speedup of up to 13.8×", not "18× less memory".
        focus |= _SPEED_TERMS
    # "What are the components of KVTC?": "KVTC combines PCA-based feature decorrelation, …".
    composed = any(g & _COMPONENT_TERMS for g in focus_terms(detail, name_words))
    # What a question opening with "how many" counts, which an abstract must put a number on
    # to answer it (a "how many" clause later in a longer question may count another noun).
    how_many = counted if re.match(r"(?i)\W*how\s+many\b", detail) else frozenset()
    if _SIZE_Q.search(detail):
        # "How big is the InternSpatial dataset?": "comprises 12 million QA pairs", not the
        # "12.1% improvement" a result reports.
        counted |= _SIZE_UNITS
    if named:
        # A question that names papers is about those papers, whatever else scores well.
        chosen = [e for e in evidence if e.hit.paper.id in named][:MAX_PAPERS]
    else:
        best = evidence[0].score
        # Runners-up join only on their own evidence: when the answer stands on the leader's
        # closeness alone (a question in other words), its weak neighbours are noise.
        runners = (
            []
            if _ONE_WORK.search(question)
            else [e for e in evidence[1:] if e.score >= max(min_evidence, best - MARGIN)]
        )
        chosen = [evidence[0], *runners][:MAX_PAPERS]
    others: list[str] = []
    for written, ids in (namesakes or {}).items():
        lacking = [
            e
            for e in chosen
            if e.hit.paper.id in ids
            and not _has_detail(
                question, qtype, _by_type(e, qtype, counted, usage, composed), name_words or set()
            )
        ]
        if lacking and sum(e.hit.paper.id in ids for e in chosen) > len(lacking):
            chosen = [e for e in chosen if e not in lacking]
            titles = "; ".join(readable(e.hit.paper.title) for e in lacking)
            others.append(
                f"Also named \u201c{written}\u201d, without it in their abstracts: {titles}."
            )
    citations: list[Citation] = []
    sentences: list[AnswerSentence] = []
    lines: list[str] = []
    leads: list[str] = []
    missing: list[str] = []
    unstated: list[str] = []  # catalog fields the index lacks for a named paper
    for n, ev in enumerate(chosen, start=1):
        ranked = _by_type(ev, qtype, counted, usage, composed)
        if qtype == "contribution":
            ranked = _naming_first(ranked, ev.hit.paper, question)
        paper = ev.hit.paper
        picks = _pick(
            ranked,
            first=(n == 1),
            terms=ev.terms,
            title=paper.title,
            describe=qtype in ("general", "contribution"),
        )
        stated = picks
        if qtype == "problem":
            picks, stated = _with_antecedent(picks, ranked)
        quote = _span(paper.abstract, picks)
        title = readable(paper.title)
        citations.append(
            Citation(n=n, paper_id=paper.id, title=paper.title, url=paper.url, quote=quote)
        )
        stored = _catalog_fact(paper, question) if named else None
        if stored is not None:
            # A link, decision, area or keywords: catalog metadata, stated as stored or said
            # to be absent.
            fact, absent = stored
            if fact:
                leads.append(f"{fact} [{n}].")
                lines.append(f"- {bold(paper.title)} [{n}]: {readable(quote)} [{n}]")
            else:
                unstated.append(absent)
                lines.append(f"- {bold(paper.title)} [{n}]: {readable(quote)}")
            continue
        said = _contribution(ev, question) if n == 1 and asks_two_things(question) else None
        # "What does InSight-o3 do and how much does it improve?": the second part may be
        # missing while the first is answered.
        lacks = bool(named) and (
            not _has_detail(
                question if said is None else detail, qtype, ranked, name_words or set()
            )
            # "How many tasks does MCP-SafetyBench have?": "20 MCP attack types" counts another
            # noun; no number counting tasks, no answer.
            or (bool(how_many) and not any(_counts(s.text, how_many) for s in ranked))
        )
        if lacks and said is None:
            missing.append(title)
            lines.append(
                f"- Closest sentence of {bold(paper.title)} [{n}]: {readable(quote)} [{n}]"
            )
            continue
        name = short_name(paper)
        lead = _restate(name, n, _lead_clause(stated, qtype, name, counted, focus, composed))
        if said is not None:
            # "What does IceCache do and how much memory does it save?": what it is, then the
            # number; the quote keeps abstract order.
            what = _restate(name, n, _lead_clause([said], "contribution", name))
            if lacks:
                # Only what it does is quoted: a sentence near the missing detail answers
                # nothing.
                lead = f"{what} The abstract does not say {_indirect(detail)}."
                picks = [said]
            elif qtype == "number" and not any(has_cue("number", s.text) for s in picks):
                # No number in its abstract: it is said, not answered by a sentence nearby.
                lead = f"{what} The abstract does not say {_indirect(detail)}."
            elif said not in picks:
                lead = f"{what} {lead}"
            picks = sorted({s.index: s for s in [*picks, said]}.values(), key=lambda s: s.index)
            quote = _span(paper.abstract, picks)
            citations[-1] = citations[-1].model_copy(update={"quote": quote})
        for s in picks:
            sentences.append(AnswerSentence(text=s.text, citations=[n], support=1.0))
        leads.append(lead)
        lines.append(f"- {bold(paper.title)} [{n}]: {readable(quote)} [{n}]")
    asked = _indirect(question)
    head: list[str] = []
    if missing:
        head.append(" ".join(f"The abstract of {t} does not say {asked}." for t in missing))
    if unstated:
        head.append(" ".join(unstated))
    if leads:
        head.append(" ".join(leads))
    text = "\n".join([" ".join(head), *lines, *(["", *others] if others else [])])
    return Answer(
        question=question,
        text=text,
        # Every named paper's abstract lacks the detail: nothing is asserted, as in a refusal.
        refused=not leads,
        citations=citations if leads else [],
        sentences=sentences,
        sources=hits,
    )


def _catalog_fact(paper: Paper, question: str) -> tuple[str, str] | None:
    """For a question about a named paper's link, decision, area or keywords: (what the
    catalog holds, "") or ("", what it lacks); None for a question about its abstract."""
    title = readable(paper.title)
    if asks_metadata(question):
        fact = _metadata(paper, question)
        return fact, "" if fact else f"The index holds no decision, area or keywords for {title}."
    if _LINK_Q.search(question):
        return (
            (f"{title}: {paper.url}", "")
            if paper.url
            else ("", f"The index holds no link for {title}.")
        )
    if asks_citations(question):
        return "", f"The index holds no citation counts, and the abstract of {title} does not say."
    if _AUTHORS_Q.search(question):
        if paper.authors:
            return f"{title} is by {', '.join(paper.authors)}", ""
        return "", f"The index holds no authors or affiliations for {title}."
    if _TITLE_Q.search(question):
        # "What is the title of the paper that introduces GEPA?"
        if paper.title_is_derived:
            return "", f"The index holds no title for this paper; it is shown as “{title}”."
        return f"The paper's title is “{title}”", ""
    return None


# "Who wrote Qronos?", "Who proposed SHAPO?": the catalog's authors, not the abstract.
_AUTHORS_Q = re.compile(
    r"\bwho\s+(?:first\s+)?(?:wrote|authored|proposed|introduced|invented|developed|created|"
    r"made|published)\b|\bwho\s+(?:are|were)\s+the\s+authors\b|\bauthors?\s+of\b|"
    r"\b(?:written|authored)\s+by\s+whom\b|\baffiliations?\b",
    re.IGNORECASE,
)
_TITLE_Q = re.compile(
    r"\b(?:what\s+is|what's|give\s+me|tell\s+me)\s+(?:the\s+)?(?:full\s+)?title\b|"
    r"\bwhat\s+is\s+.{1,40}?\s+called\b|\btitle\s+of\b",
    re.IGNORECASE,
)


def _metadata(paper: Paper, question: str) -> str:
    """A named paper's decision, area and keywords as the catalog holds them, answering a yes
    or no about its decision ("Is FinSearchComp an oral?"); empty when it holds none."""
    title = readable(paper.title)
    parts = []
    if paper.decision:
        article = "an" if paper.decision[0].lower() in "aeiou" else "a"
        parts.append(f"{article} {paper.decision} paper")
    if paper.primary_area:
        parts.append(f"in the {paper.primary_area} area")
    if not parts and not paper.keywords:
        return ""
    said = f"{title} is {' '.join(parts)}" if parts else title
    if paper.keywords:
        said += f"{';' if parts else ''} keywords: {', '.join(paper.keywords)}"
    asked = re.search(r"\b(oral|poster|spotlight)s?\b", question, re.IGNORECASE)
    if asked and paper.decision and re.match(r"\W*(?:is|was)\b", question, re.IGNORECASE):
        yes = paper.decision.lower() == asked.group(1).lower()
        said = f"{'Yes' if yes else 'No'}: {said}"
    return said


# "We argue that this limitation stems from …": the problem itself is the sentence before.
_ANAPHORIC_PROBLEM = re.compile(
    r"^(?:\S+\s+){0,4}?(?:this|these|such)\s+(?:limitations?|problems?|issues?|gaps?|"
    r"challenges?|shortcomings?|drawbacks?|bottlenecks?)\b",
    re.IGNORECASE,
)


def _with_antecedent(
    picks: list[SentenceScore], ranked: Sequence[SentenceScore]
) -> tuple[list[SentenceScore], list[SentenceScore]]:
    """The picks with the sentence before one that refers back to the problem ("this
    limitation"), and the sentences that state the problem (the lead's)."""
    by_index = {s.index: s for s in ranked}
    added = [
        by_index[s.index - 1]
        for s in picks
        if _ANAPHORIC_PROBLEM.match(s.text) and s.index - 1 in by_index
    ]
    merged = sorted({s.index: s for s in [*picks, *added]}.values(), key=lambda s: s.index)
    return merged, added or picks


def _contribution(ev: Evidence, question: str = "") -> SentenceScore | None:
    """The sentence stating what the paper does, if one does; the one introducing the name
    the question writes first ("we propose InSight-o3", not "we first introduce o3-bench")."""
    ranked = _naming_first(_by_type(ev, "contribution"), ev.hit.paper, question)
    return next((s for s in ranked if has_cue("contribution", s.text)), None)


def _by_type(
    ev: Evidence,
    qtype: QuestionType,
    counted: frozenset[str] = frozenset(),
    usage: bool = False,
    composed: bool = False,
) -> list[SentenceScore]:
    """The paper's sentences re-ranked: topical and of the kind the question asks for.

    `counted` are the stems a "how many" question counts: a sentence that puts a number on
    them ("comprises three tasks") answers it better than one reporting another number;
    `usage`: see qtype.asks_usage; `composed`: the question asks what something is made of,
    which a sentence saying what it combines or comprises answers."""
    scored = [
        SentenceScore(
            s.index, s.text, s.score + TYPE_WEIGHT * type_fit(qtype, s.text, s.index, usage)
        )
        for s in ev.ranked
    ]
    ranked = sorted(scored, key=lambda s: -s.score)
    top = ranked[0].score if ranked else 0.0
    # Wherever it stands: "How many languages does Multi-LCB cover?" is answered by "… across
    # twelve programming languages", however its window scores.
    for i, s in enumerate(ranked if counted or composed else []):
        if (counted and _counts(s.text, counted)) or (composed and _COMPOSED.search(s.text)):
            # First, at the leader's score: the other sentences keep their distance to the top,
            # which decides whether they join the quote.
            ranked[: i + 1] = [SentenceScore(s.index, s.text, top), *ranked[:i]]
            break
    return ranked


_QUANTITY_WORD = re.compile(
    rf"^(?:\$?\d[\d,.]*\$?[kKmMbB+%]?|{COUNT_WORDS}|hundreds?|thousands?|millions?)$",
    re.IGNORECASE,
)


_SIZE_Q = re.compile(
    r"\bhow\s+(?:big|large)\b|\b(?:what\s+is\s+the\s+)?size\s+of\b|\bwhat\s+size\b", re.IGNORECASE
)
# What a collection of data is counted in.
_SIZE_UNITS = frozenset(
    content_terms(
        "pairs samples examples instances items questions problems images videos hours "
        "tokens documents sentences trajectories episodes conversations dialogues annotations "
        "clips scenes programs functions prompts"
    )
)


def _counts(sentence: str, counted: frozenset[str]) -> bool:
    """Whether a number in the sentence counts one of the stems ("635 questions", "three
    tasks", "20 MCP attack types", "870 web-based data science tasks": the noun within four
    words after the number)."""
    words = sentence.split()
    for i, w in enumerate(words):
        if _QUANTITY_WORD.match(w.strip("(),;:")):
            after = " ".join(words[i + 1 : i + 5])
            if counted & set(content_terms(after)):
                return True
    return False


def _has_detail(
    question: str, qtype: QuestionType, ranked: Sequence[SentenceScore], name_words: set[str]
) -> bool:
    """Whether the abstract holds the asked detail (a number, named datasets) at all.

    The detail is the question's focus phrase ("how many GPUs", "what perplexity", "which
    software license"): an abstract with no sentence of the asked kind using a word of it
    lacks it, and so does one that never uses both words of a two-word detail ("learning
    rate"). Questions about the contribution or the findings ask for the abstract's
    substance, which every abstract states.
    """
    if _NEVER_IN_ABSTRACT.search(question):
        return False
    if qtype in ("contribution", "finding", "problem"):
        return True
    if _OWN_LIMITS_Q.search(question):
        return any(_OWN_LIMIT.search(s.text) for s in ranked)
    if _WHICH_EVALUATED.search(question) and not any(
        m.group().lower() not in name_words for s in ranked for m in _NAMED_THING.finditer(s.text)
    ):
        # "Which models did they evaluate?": an abstract naming no model, dataset or benchmark
        # ("extensive experiments show …") does not say, whatever sentence mentions "models".
        return False
    # (words, whole): a compound is judged as the question wrote it, before generic words go.
    generic = _GENERIC_FOCUS | (_QUANTITY if qtype == "number" else frozenset())
    groups = [(g - generic, _compound(g)) for g in focus_terms(question, name_words)]
    # "What benchmark does UFEval introduce?" is answered by "we introduce FRABench, a …
    # dataset": the words for a made collection of data stand for one another.
    groups = [(g | _RESOURCE if g & _RESOURCE else g, whole) for g, whole in groups]
    groups = [(g, whole) for g, whole in groups if g]
    if any(g & _COMPONENT_TERMS for g, _whole in groups) and any(
        _COMPOSED.search(s.text) for s in ranked
    ):
        # "What are the components of KVTC?": "KVTC combines …" names them.
        return True
    if qtype == "number" and any(g & _SPEED_TERMS for g, _whole in groups):
        # "What speedup does it report?" is answered by "up to 5× faster", which never writes
        # "speedup".
        return any(states_amount(s.text) and _SPEED.search(s.text) for s in ranked)
    if not groups:
        if qtype == "number" and not any(has_cue("number", s.text) for s in ranked):
            # "How many parameters does LDT use?" ("parameter" is in its DPU's name): an
            # abstract stating no number does not say.
            return False
        if _HOW_MUCH_VERB.search(question):
            # "How much does InSight-o3 improve?": a number on a change, not "o3 only obtains
            # 42.8% accuracy" (another system's score).
            return any(states_amount(s.text) and _CHANGE.search(s.text) for s in ranked)
        # "How much faster is it?": only a number on a result answers it, not "three major
        # categories"; on speed, not "a 128K-token context window … outperforms".
        if _asks_speed(question):
            return any(states_amount(s.text) and _SPEED.search(s.text) for s in ranked)
        return not _HOW_MUCH_MORE.search(question) or any(reports_result(s.text) for s in ranked)
    if any(g & _BASELINE for g, _whole in groups) and any(_COMPARED.search(s.text) for s in ranked):
        # "Which baselines does MOAI compare against?": "compared to … THOR" names them.
        return True
    sentences = [(s, set(content_terms(s.text))) for s in ranked]
    used = set().union(*(terms for _s, terms in sentences))
    return any(
        (not whole or g <= used)
        and any(
            g & terms and (qtype != "number" or has_cue(qtype, s.text)) for s, terms in sentences
        )
        for g, whole in groups
    )


# Heads that a result goes by loosely: "retrieval gains" may be reported as "improves … by".
_LOOSE_HEADS = frozenset(
    content_terms("gain gains improvement improvements result results performance score scores")
)


_BASELINE = frozenset(content_terms("baseline baselines"))
_COMPONENT_TERMS = frozenset(
    content_terms("component components module modules part parts element elements ingredients")
)
# What something is made of, said: "combines A, B and C", "consists of", "comprises".
_COMPOSED = re.compile(
    r"\b(?:combin(?:es|ing)|consist(?:s|ing)\s+of|compris(?:es|ing)|(?:is|are)\s+composed\s+of|"
    r"made\s+up\s+of)\b",
    re.IGNORECASE,
)
_RESOURCE = frozenset(content_terms("benchmark dataset corpus suite testbed"))
_COMPARED = re.compile(
    r"\b(?:compared?\s+(?:to|with|against)|outperform\w*|surpass\w*|versus|vs\.?|"
    r"(?:gains?|improvements?)\s+over)\s+"
    r"(?:[\w,-]+\s+){0,8}?[A-Z][\w-]*[A-Z0-9][\w-]*"
)


def _compound(group: set[str]) -> bool:
    """A two-word name of one thing ("learning rate", "programming language"), whose words the
    abstract must both use: "Large Language Models" says nothing of a programming language.
    Longer phrases describe the detail ("the face-editing dataset released"); any word does."""
    return len(group) == 2 and not group & _LOOSE_HEADS


# Focus words that ask for the abstract's substance, not a detail it may lack.
_GENERIC_FOCUS = frozenset(
    content_terms(
        "problem problems idea ideas goal goals aim purpose motivation contribution contributions "
        "result results finding findings insight insights limitation limitations advantage "
        "advantages benefit benefits challenge challenges issue issues question questions "
        "main key core central overall"
    )
)


# "What fraction of UltraFeedback …": the number is the detail; "1%" states a fraction.
_QUANTITY = frozenset(
    content_terms(
        "fraction proportion share percent percentage portion ratio amount number "
        # "How much faster is MOAI than THOR": "a 52.8% reduction in evaluation time" says it.
        "faster slower quicker cheaper smaller larger bigger better worse fewer less more "
        "higher lower"
    )
)


_FOCUS = re.compile(
    r"\b(?:how\s+(?:many|much|large|big|long|fast|well)|by\s+what|"
    # "What is the GitHub link for X": the link, not what X is.
    r"what\s+(?:is|are|was|were)\s+(?:the|a|an)|what|which)\s+"
    r"((?:[\w-]+\s+){0,4}[\w-]+)",
    re.IGNORECASE,
)
# Questions for what an abstract never holds: who wrote a paper, when it appeared.
_NEVER_IN_ABSTRACT = re.compile(
    r"\bwho\s+(?:wrote|authored|are\s+the\s+authors)\b|\bwhen\s+(?:was|were)\b.*\b"
    r"(?:published|released|posted|accepted|submitted)\b",
    re.IGNORECASE,
)
# "What's the link to the FinSearchComp paper?": the catalog's URL answers, not the abstract.
# A code, data or demo link is the abstract's to give (rarely), not the catalog's.
_LINK_Q = re.compile(
    r"^(?!.*\b(?:github|code|repo(?:sitory)?|implementation|dataset|demo|weights|checkpoints?)\b)"
    r".*\b(?:link|url|openreview\s+(?:page|id)|web\s*page|where\s+can\s+i\s+(?:find|read|get))\b",
    re.IGNORECASE,
)
# "What are the limitations of NRGPT?": the paper's own, which few abstracts state; the
# limitations of prior work that its scene-setting sentences list do not answer it.
_OWN_LIMITS_Q = re.compile(
    r"\b(?:limitations?|weakness(?:es)?|drawbacks?|shortcomings?|downsides?|failure\s+modes?)\s+"
    r"(?:of|does|do|did|has|have)\b|\b(?:its|their)\s+(?:main\s+)?(?:limitations?|weakness(?:es)?|"
    r"drawbacks?|shortcomings?|downsides?)\b",
    re.IGNORECASE,
)
_OWN_LIMIT = re.compile(
    r"\b(?:limitations?\s+of\s+(?:our|this|the\s+proposed)|(?:our|this|the\s+proposed)\s+"
    r"(?:[\w-]+\s+){0,2}(?:method|approach|model|framework|analysis|study|work)s?\b[^.;]*?\b"
    r"(?:is\s+limited|are\s+limited|limits?|fails?|struggles?|cannot|does\s+not\s+(?:apply|scale|"
    r"hold|generali[sz]e))|future\s+work|remains?\s+(?:limited|an\s+open))\b",
    re.IGNORECASE,
)
_STOP_PHRASE = frozenset(
    "is are was were does do did has have had can could will would on in of for with to by at "
    "from used does about else".split()
)
_SKIP = frozenset(
    "is are was were does do did the a an of it its they their this that these those be been "
    "kind kinds type types sort sorts of".split()
)


def focus_terms(question: str, name_words: set[str] | None = None) -> list[set[str]]:
    """Stems of the noun phrase a detail question asks about ("how many GPUs were used"), one
    set per alternative ("which datasets or benchmarks": {dataset}, {benchmark})."""
    m = _FOCUS.search(question)
    if not m:
        return []
    words = m.group(1).split()
    if (
        words
        and words[0].lower() in _STOP_PHRASE
        and not re.match(r"how\s+(?:large|big|long|fast|well)", m.group(0), re.IGNORECASE)
    ):
        # "How much does LaTo beat …": the amount of a verb, not of a named thing.
        return []
    while words and words[0].lower() in _SKIP:
        words.pop(0)
    phrase = []
    for word in words[:3]:
        # "the speedup it reports": a subject pronoun starts the clause after the noun.
        if word.lower() in _STOP_PHRASE or word.lower() in ("it", "they", "we", "he", "she"):
            break
        phrase.append(word)
    # A frame word ("paper", "method") or the paper's own name asks nothing.
    parts = re.split(r"\b(?:and|or)\b|,", " ".join(phrase), flags=re.IGNORECASE)
    groups = [set(content_terms(part)) - (name_words or set()) for part in parts]
    return [g for g in groups if g]


_CLAUSE = re.compile(r"(?<=;)\s+|(?<=,)\s+(?=(?:and|while|whereas)\s+(?:we|our|it|the|this)\b)")


def _lead_clause(
    picks: Sequence[SentenceScore],
    qtype: QuestionType,
    name: str = "",
    counted: frozenset[str] = frozenset(),
    focus: frozenset[str] = frozenset(),
    composed: bool = False,
) -> str:
    """The clause of the quoted sentence that answers the question, rendered for people;
    `focus` are the stems of the detail a number question asks for; `composed`: the question
    asks what something is made of."""
    best_first = sorted(picks, key=lambda s: -s.score)
    text = readable(best_first[0].text).rstrip(".") if best_first else ""
    # Whole clauses only (split at ';' and ', and we'), so the lead never stops mid-thought;
    # the best-scoring sentence's clauses come first.
    clauses = [
        # ", and we evaluate …" split off: the clause starts at its subject.
        re.sub(r"^(?:and|while|whereas)\s+", "", c.strip(" ,;:"), flags=re.IGNORECASE)
        for s in best_first
        for c in _CLAUSE.split(readable(s.text).rstrip("."))
        if len(c.split()) >= 4
    ]
    fitting = [c for c in clauses if has_cue(qtype, c)]
    if qtype in ("contribution", "general") and name:
        # "What is DanceTogether?": the clause that introduces the name says what it is, not
        # the one introducing its datasets.
        fitting = [c for c in fitting if name.lower() in c.lower()] or fitting
    if counted:
        # "How many models were evaluated?": "we evaluate 21 models", not "includes 635
        # questions", though one sentence holds both.
        fitting = [c for c in fitting if _counts(c, counted)] or fitting
    if composed:
        # "What are the components of KVTC?": "KVTC combines …", not "We present KVTC".
        fitting = [c for c in fitting or clauses if _COMPOSED.search(c)] or fitting
    if focus:
        # "How big is the speedup?": "a speedup of up to 13.8×", not the memory clause before.
        fitting = [c for c in fitting if focus & set(content_terms(c))] or fitting
    if qtype == "number" and not counted:
        # "How much does it improve?": "cost down by 54%", not "a two-stage strategy".
        fitting = [c for c in fitting if states_amount(c)] or fitting
    clause = (fitting or clauses or [text])[0]
    return clause[0].upper() + clause[1:] if clause else text


# Discourse openers before "we …" ("To address this gap, we propose …"): the lead drops them.
_OPENER = re.compile(
    r"^(?:to\s+(?:address|tackle|overcome|bridge|fill|solve|remedy|mitigate|close|this\s+end)|"
    r"in\s+this\s+(?:paper|work|study)|here|specifically|furthermore|moreover|additionally|"
    r"finally|first|second|third|concretely|in\s+particular|in\s+response|as\s+a\s+result|"
    r"to\s+do\s+so|(?:building|based)\s+on|inspired\s+by|motivated\s+by|with\s+this|using|"
    r"through|leveraging)"
    r"[^,;]{0,60},\s+(?=(?:\(\w{1,4}\)\s+)?(?:we|this\s+(?:paper|work|study))\b)",
    re.IGNORECASE,
)
# "(1)", "(ii)", "(a)" before a clause: a list's numbering, not part of what is said.
_ENUMERATOR = re.compile(r"^\((?:\d{1,2}|[ivx]{1,4}|[a-z])\)\s+", re.IGNORECASE)
_SUBJECT = re.compile(
    r"^(?P<subject>we|this\s+(?:paper|work|study))\s+"
    r"(?P<adverbs>(?:(?:(?!(?:ap|re|sup|multi|com|im)ply\b|rely\b)\w+ly|also|further|then|"
    r"first|here|now)\s+)*)(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)
_KEEP_VERB = frozenset("can could will would may might must should shall".split())
_VERB_3RD = {"are": "is", "have": "has", "do": "does", "go": "goes", "were": "was"}
_INTRODUCES = frozenset(
    "propose introduce present develop design build release construct curate".split()
)
# Verbs "we" governs after an "and" ("we join this line of work and introduce …").
_COORDINATED = re.compile(
    r"(?<=\sand\s)(?P<adverbs>(?:\w+ly\s+)?)(?P<verb>propose|introduce|present|develop|design|"
    r"build|release|construct|curate|study|show|find|demonstrate|evaluate|analy[sz]e|provide|"
    r"achieve|use|apply|extend|train|test|conduct|derive|prove|identify|offer|establish|"
    r"investigate|explore|validate|compare|release|obtain|observe|reveal|report)\b"
)


def short_name(paper: Paper) -> str:
    """What the lead calls a paper: its method name when the title gives one, else the title."""
    names = paper_names(paper)
    return readable(names[0] if names else paper.title)


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in _VERB_3RD:
        return _VERB_3RD[low]
    if low in _KEEP_VERB or low.endswith("ed"):
        return verb
    if low.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if len(low) > 2 and low.endswith("y") and low[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _restate(name: str, n: int, clause: str) -> str:
    """The lead sentence: the clause with the paper as its subject, every content word kept.

    "To address this, we propose LaTo, a landmark-tokenized …" becomes "LaTo is a
    landmark-tokenized … [1]."; "We use our discovery to reduce …" becomes "Qronos uses its
    discovery to reduce … [1]."; a clause without "we" keeps its words ("Qronos [1]: …").
    """
    # "Specifically, (1) We first construct …": the enumerator goes with the opener.
    text = _ENUMERATOR.sub("", _OPENER.sub("", _ENUMERATOR.sub("", clause.strip())))
    m = _SUBJECT.match(text)
    if not m and re.match(rf"(?:\*\*)?{re.escape(name)}(?:\*\*)?\s+[a-z]", text):
        # "FinSearchComp comprises three tasks": the paper is the subject already.
        return f"{text.rstrip(' .')} [{n}]."
    if not m:
        return f"{name} [{n}]: {clause.rstrip('.')}."
    verb = m["verb"]
    rest = text[m.end() :]
    # "we propose LaTo, a …", "we propose Sharpness-Aware Policy Optimization (SHAPO), a …".
    named = rf"(?:\*\*)?{re.escape(name)}(?:\*\*)?"
    introduced = re.match(
        rf"\s+(?:(?:the\s+)?{named}(?:\s*\([^)]*\))?|[^,;()]{{3,80}}?\s*\({named}\))"
        r"(?:,\s+|\s*[—–]\s*|\s+-\s+)"
        r"(?=(?:an?|the)\s)",
        rest,
        re.IGNORECASE,
    )
    # "We address this gap with DanceTogether, the first …": the name and what it is.
    named_with = re.match(
        rf"[^,;]{{0,60}}?\b(?:with|via|through)\s+{named},\s+(?=(?:an?|the)\s)", rest
    )
    # "this work introduces APPLE (…) - a novel framework": "introduces", "introduced" too.
    introducing = verb.lower() in _INTRODUCES or verb.lower()[:-1] in _INTRODUCES
    # "We present the Hinge Regression Tree (HRT), which reframes …": what it does.
    which = re.match(rf"\s+(?:the\s+)?{named}(?:\s*\([^)]*\))?,\s+which\s+(?=[a-z]+s\b)", rest)
    if introducing and which:
        return f"{name} {_possessive(rest[which.end() :]).rstrip(' .')} [{n}]."
    if named_with:
        return f"{name} is {_possessive(rest[named_with.end() :]).rstrip(' .')} [{n}]."
    if introducing and introduced:
        # "we propose LaTo, a …": the name is the subject, the apposition what it is.
        body = f"is {rest[introduced.end() :]}"
    elif m["subject"].lower() == "we" and re.match(
        rf"\s+(?:[\w-]+\s+){{0,4}}?{named}\b", rest, re.IGNORECASE
    ):
        # "We evaluate (two variants of) Qronos using …": the paper is the object, so the
        # authors stay the subject ("Qronos evaluates Qronos" would misread it).
        body = _possessive(f"{m['adverbs']}{verb}{rest}")
        return f"{name} [{n}]: The authors {body.rstrip(' .')}."
    else:
        if m["subject"].lower() == "we":
            verb = _third_person(verb)
            rest = _COORDINATED.sub(lambda c: c["adverbs"] + _third_person(c["verb"]), rest)
        body = f"{m['adverbs']}{verb}{rest}"
    return f"{name} {_possessive(body).rstrip(' .')} [{n}]."


def _possessive(body: str) -> str:
    """The authors' own words in the third person: 'our' -> 'its', 'we' -> 'the authors'."""
    body = re.sub(r"\bto\s+our\s+knowledge\b", "to the authors' knowledge", body)
    body = re.sub(r"\bour\b", "its", body)
    body = re.sub(r"\bOur\b", "Its", body)
    return re.sub(r"\b(?:we|us)\b", "the authors", body)


_INVERTED_MODAL = re.compile(
    r"^(?P<wh>(?:what|which|how\s+\w+)(?:\s+[\w-]+){0,3}?)\s+(?P<aux>can|could|will|would|"
    r"should|may|might)\s+(?P<subject>it|they|[A-Z][\w-]*)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_INVERTED = re.compile(
    r"^(?P<wh>.*?\b(?:what|which|how\s+\w+)(?:\s+[\w-]+){0,3}?)\s+(?P<aux>did|does|do)\s+"
    # "the Horseshoe Splatting paper": a name of several words, then the noun it names.
    r"(?P<subject>(?:the|this|its)\s+(?:[\w-]+\s+){1,3}?(?:paper|method|model|work|framework|"
    r"approach|benchmark|dataset)|(?:the\s+|this\s+|its\s+)?[A-Z][\w-]*|it|they|the\s+authors|"
    r"the\s+paper)\s+"
    r"(?P<verb>[a-z]+)(?P<rest>\b.*)$",
    re.IGNORECASE,
)
# "Which hardware was SurfSplat run on": a passive question, its participle after the subject.
_INVERTED_BE = re.compile(
    r"^(?P<wh>.*?\b(?:what|which|when|where|how\s+\w+)(?:\s+[\w-]+){0,3}?)\s+"
    r"(?P<aux>is|are|was|were)\s+"
    r"(?P<subject>(?:the\s+|this\s+|its\s+)?[A-Z][\w-]*|it|they|the\s+paper)\s+"
    r"(?P<verb>[a-z]+ed|run|built|done|made|given|written|shown|taken|chosen|drawn)(?P<rest>\b.*)$",
    re.IGNORECASE,
)
_THIRD_PERSON = {"have": "has", "be": "is"}
_HOW_BE = re.compile(
    r"^(?P<wh>how\s+(?:much|many)(?:\s+[\w-]+)?)\s+(?P<aux>is|are|was|were)\s+"
    r"(?P<subject>it|they|this|that|the\s+\w+|[A-Z][\w-]*)"
    r"(?P<rest>(?:\s+(?:than|compared)\b.*)?)$",
    re.IGNORECASE,
)
_WHICH_EVALUATED = re.compile(
    r"\b(?:which|what)\s+(?:\w+\s+)?(?:models?|datasets?|benchmarks?|baselines?|environments?|"
    r"llms?|architectures?)\b(?=.*\b(?:evaluat|test|experiment|benchmark|compar|train|run|use)"
    r"\w*)",
    re.IGNORECASE,
)
# Named models, datasets and benchmarks: "Llama3", "GPT-4", "CIFAR-10", "ImageNet", "MuJoCo",
# "D4RL", "THOR"; not the field's acronyms ("LLMs", "KD").
_NAMED_THING = re.compile(
    r"\b(?:[A-Z][a-z]+[A-Z][\w-]*|[A-Za-z]+-?\d[\w.-]*|"
    r"(?!(?:[LM]?LLM|L?VLM|NLP|SOTA|GPU|CPU|TPU|API|DNN|CNN|RNN|GNN|MLP)s?\b)"
    r"[A-Z]{3,}s?)\b"
)
_HOW_MUCH_MORE = re.compile(
    r"\bhow\s+much\s+(?P<word>faster|slower|quicker|better|worse|cheaper|smaller|larger|bigger|"
    r"more|less|fewer|higher|lower)\b",
    re.IGNORECASE,
)


def _asks_speed(question: str) -> bool:
    """Whether the question asks how much faster (or slower) something is."""
    more = _HOW_MUCH_MORE.search(question)
    return bool(more and more["word"].lower() in ("faster", "slower", "quicker"))


_SPEED_TERMS = frozenset(
    content_terms("speedup speed faster slower quicker acceleration latency throughput runtime")
)
_SPEED = re.compile(
    r"\b(?:faster|slower|quicker|speed|accelerat|latency|throughput|wall[\s-]?clock|runtime|"
    r"time|fps)|×|\\times|\d\s*x\b",
    re.IGNORECASE,
)
# "How much does it improve?", "By how much does X cut memory?": the amount of a change.
_HOW_MUCH_VERB = re.compile(
    r"\b(?:how\s+much|by\s+what\s+(?:margin|factor))\s+(?:does|do|did|can|could|will)\s+"
    r".{1,60}?\s+(?:improve|reduce|cut|save|speed\s+up|accelerate|boost|increase|decrease|lower|"
    r"raise|outperform|beat|gain|shrink|compress)\b",
    re.IGNORECASE,
)
_CHANGE = re.compile(
    r"\b(?:improv|reduc|cut|sav|speed|faster|accelerat|boost|increas|decreas|lower|higher|rais|"
    r"outperform|beat|surpass|exceed|gain|better|shrink|compress|fewer|less|drop)",
    re.IGNORECASE,
)
_COPULA = re.compile(
    r"^(?P<wh>what|which)\s+(?P<aux>is|are|was|were)\s+(?P<subject>(?:the|a|an|its|their)\s+.+)$",
    re.IGNORECASE,
)
_NOT_VERBS = frozenset(
    "on in at with for of to by from under over across after before than and or as".split()
)
_IRREGULAR = {
    "find": "found",
    "run": "ran",
    "beat": "beat",
    "get": "got",
    "make": "made",
    "build": "built",
    "choose": "chose",
    "take": "took",
    "give": "gave",
    "do": "did",
    "hold": "held",
    "lead": "led",
    "write": "wrote",
    "teach": "taught",
    "feed": "fed",
    "split": "split",
    "set": "set",
    "cut": "cut",
}


_REFERENCE = re.compile(
    r"\bthe\s+(?:first|second|third|fourth|fifth|last)\s+(?:one|paper|method|work)\b|"
    r"\bthe\s+(?:former|latter)\b",
    re.IGNORECASE,
)


def _indirect(question: str) -> str:
    """'Which hardware did Qronos use?' as the object of 'does not say …'."""
    # "did the first one use": the follow-up's reference is the paper the sentence names.
    q = _REFERENCE.sub("it", question.strip().rstrip("?.! "))
    if m := _COPULA.match(q):
        # "What is the GitHub link for X" -> "what the GitHub link for X is".
        return f"{m['wh'].lower()} {m['subject']} {m['aux']}"
    if m := _HOW_BE.match(q):
        # "How much faster is it" -> "how much faster it is".
        return f"{m['wh'].lower()} {m['subject']} {m['aux']}{m['rest']}"
    if m := _INVERTED_MODAL.match(q):
        # "How many people can it handle" -> "how many people it can handle".
        return f"{m['wh'][0].lower()}{m['wh'][1:]} {m['subject']} {m['aux']} {m['rest']}"
    if m := _INVERTED_BE.match(q):
        return f"{m['wh'][0].lower()}{m['wh'][1:]} {m['subject']} {m['aux']} {m['verb']}{m['rest']}"
    m = _INVERTED.match(q)
    if m and m["verb"].lower() in _NOT_VERBS:
        # "does SSPO on Mistral beat …": the verb is further on; keep the question's words.
        pass
    elif m:
        verb = m["verb"]
        if m["aux"].lower() == "did":
            verb = _IRREGULAR.get(verb, verb + ("d" if verb.endswith("e") else "ed"))
        elif m["aux"].lower() == "does":
            verb = _THIRD_PERSON.get(verb.lower()) or verb + (
                "es" if verb.endswith(("s", "sh", "ch", "x", "o")) else "s"
            )
        q = f"{m['wh']} {m['subject']} {verb}{m['rest']}"
    elif m := re.match(r"(?i)^(?:does|do|did|is|are|was|were|can|could)\s+(.+)$", q):
        return f"whether {m[1]}"
    elif not re.match(r"(?i)^(?:\w+\s+){0,2}(how|what|which|who|when|where|whether)\b", q):
        return f"whether {q[0].lower() + q[1:]}" if q else "this"
    return (q[0].lower() + q[1:]) if q else "this"


def _pick(
    ranked: Sequence[SentenceScore],
    first: bool,
    terms: Mapping[str, float] | None = None,
    title: str = "",
    describe: bool = False,
) -> list[SentenceScore]:
    """One sentence per paper; for the leading paper a second one when it scores close, the
    sentence after its contribution when `describe`, and more (up to MAX_SENTENCES) while a
    sentence holds question terms nothing picked covers."""
    picks = list(ranked[:1])
    close = len(ranked) > 1 and ranked[1].score >= ranked[0].score - SECOND_MARGIN
    if first and close and not framing(ranked[1].text, ranked[1].index):
        picks = list(ranked[:2])
    if first and describe:
        # "Which paper …" / "what does X propose": the sentence after "we propose X" says what
        # X consists of or does ("It contains … 14 million bounding box annotations", "The
        # core of the proposed method, BR-FedBi, …"); the contribution alone names a category.
        by_index = {s.index: s for s in ranked}
        stated = next((s for s in picks if has_cue("contribution", s.text)), None)
        after = by_index.get(stated.index + 1) if stated else None
        if (
            after is not None
            and after not in picks
            and len(picks) < MAX_SENTENCES
            and not framing(after.text, after.index)
        ):
            picks.append(after)
    # The question's terms the abstract writes: words it does not use cannot be covered, and
    # would shrink every sentence's share of a long question in other words.
    written = set(content_terms(title)).union(*(content_terms(s.text) for s in ranked))
    total = sum(w for t, w in (terms or {}).items() if t in written)
    if first and ranked and terms and total > 0:
        covered = set(content_terms(title))
        for s in picks:
            covered |= set(content_terms(s.text))
        floor = ranked[0].score - COVER_MARGIN
        # Each candidate's terms, read once: (terms, sentence).
        rest = [
            (s_terms, s)
            for s in ranked
            if s not in picks and s.score >= floor and not framing(s.text, s.index)
            if (s_terms := set(content_terms(s.text)))
        ]
        while len(picks) < MAX_SENTENCES and rest:
            gains = [
                (sum(w for t, w in terms.items() if t not in covered and t in s_terms), i)
                for i, (s_terms, _) in enumerate(rest)
            ]
            gain, i = max(gains, key=lambda g: (g[0], rest[g[1]][1].score))
            if gain / total < MIN_GAIN:
                break
            s_terms, best = rest.pop(i)
            picks.append(best)
            covered |= s_terms
    if first and describe:
        # Not "While NeRFs achieve … and 3DGS attains …": what others achieved sets the scene.
        headline = [s for s in ranked if _headline(s.text) and not framing(s.text, s.index)]
        if headline and not any(s in picks for s in headline):
            # What a paper is known by is also what it found, in numbers: its best-matching
            # result sentence ("… a 7.1% improvement in R1@0.7 on Charades-STA"), one past
            # the cap.
            picks.append(headline[0])
    # Keep abstract order so the quote reads as the authors wrote it.
    return sorted(picks, key=lambda s: s.index)


def _headline(sentence: str) -> bool:
    """A result stated with a number: what a paper is cited for."""
    return has_cue("finding", sentence) and has_cue("number", sentence)


def _span(abstract: str, picks: Sequence[SentenceScore]) -> str:
    """The abstract's own text of the picked sentences; '…' marks what lies between them."""
    parts: list[str] = []
    for prev, s in zip([None, *picks[:-1]], picks, strict=True):
        if prev is not None and s.index == prev.index + 1 and parts:
            start = abstract.find(parts[-1])
            end = abstract.find(s.text, max(start, 0))
            if start >= 0 and end >= 0:
                parts[-1] = abstract[start : end + len(s.text)]
                continue
        parts.append(s.text)
    return " … ".join(parts)
