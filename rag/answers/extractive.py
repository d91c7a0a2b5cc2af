"""The offline answerer: composes an answer from verbatim source sentences, with citations."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from rag.answers.absent import MAX_CONFIDENCE, AbsentTopic
from rag.answers.detail import (
    COMPONENT_TERMS,
    GENERIC_FOCUS,
    SIZE_UNITS,
    SPEED_TERMS,
    counts,
    detail_sentences,
    focus_terms,
    main_part,
    read_asked,
    with_antecedent,
)
from rag.answers.headings import MAX_PAPERS, absent_text, refusal_text
from rag.answers.lead import catalog_fact, lead_clause, part_fact, restate, short_name
from rag.answers.refusal import RefusalModel, signals
from rag.answers.wording import unstated
from rag.cues import Cues
from rag.lexicon import Lexicon
from rag.models import Answer, AnswerSentence, AnswerType, Citation, Paper, Plan, QuestionPart
from rag.retrieval.support import Evidence, SentenceScore
from rag.store.markup import bold, readable
from rag.store.names import coined_words, introduces, names_introduced, paper_names
from rag.text import content_terms, whole_word

# A paper joins the answer when its best sentence scores within this margin of
# the best paper's: close runners-up are part of the answer, weak ones noise.
MARGIN = 0.12


# How much fitting the question's type (a number for "how much") counts against topicality
# when the sentence to quote is picked.
TYPE_WEIGHT = 0.25


# The router's answer type is trusted to claim an abstract lacks the detail from this
# probability: below it the type was right for fewer than half the questions (5-fold cross-
# validation on the fit styles, eval/README "Style-split report": 0.32-0.38 under 0.7).
LIKELY_TYPE = 0.7

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


def asks_one_work(question: str) -> bool:
    """Whether the question asks for one work ("Which paper …?", "Is there a method …?")."""
    return bool(_ONE_WORK.search(question))


def decide(
    question: str,
    evidence: Sequence[Evidence],
    model: RefusalModel,
    named: Sequence[str] = (),
    name_words: set[str] | None = None,
    min_evidence: float = 0.0,
    show_weak: bool = False,
    *,
    cues: Cues,
    refusal: str,
    unknown: Sequence[str] = (),
    namesakes: Mapping[str, Sequence[str]] | None = None,
    unused: Sequence[str] = (),
    plan: Plan,
    lexicon: Lexicon,
    absent: AbsentTopic | None = None,
    own_names: Callable[[str], Sequence[str]] = lambda _paper_id: (),
) -> Answer:
    """The offline answer: refuse only when the refusal model says the collection is silent,
    or a topic word is one no indexed paper writes (`absent`, rag/answers/absent.py).

    A question that names an indexed paper is never refused; `show_weak` answers from the
    closest evidence anyway, marked weak. `refusal` is the refusal prompt's text; a refusal
    first names the question's `unknown` words, which no indexed paper writes. `namesakes` maps
    a name the question writes to the several papers that go by it; `unused` are the
    question's terms no indexed paper uses (a refusal signal, see rag.answers.refusal.signals);
    `plan` says what is asked (kind, answer type, the parts of a two-part question), read
    with the `lexicon`; `own_names` gives the names a paper goes by (NameIndex.own).
    """
    sig = signals(evidence, len(unused))
    confidence = round(model.probability(sig), 3) if evidence else 0.0
    # "What does DeepSeek-OCR do?": a question about a name no indexed paper writes has no
    # answer here, however close the papers about its field come.
    about_unknown = any(
        re.search(rf"\b(?:does|did|do|is|was|are)\s+{re.escape(u)}(?!\w)", question)
        for u in unknown
    )
    if absent is not None and confidence >= MAX_CONFIDENCE:
        absent = None
    refuse = not named and (
        not evidence or model.refuses(sig) or about_unknown or absent is not None
    )
    missing = ", ".join(f"\u201c{w}\u201d" for w in unknown)
    if refuse and show_weak and evidence:
        answer = extractive_answer(
            question, evidence, cues, min_evidence, plan, lexicon, own_names=own_names
        )
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
    elif refuse and absent is not None and not about_unknown:
        hits = [e.hit for e in evidence]
        answer = Answer(
            question=question,
            text=absent_text(absent, hits),
            refused=True,
            sources=hits,
            absent=list(absent.words),
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
            question,
            evidence,
            cues,
            min_evidence,
            plan,
            lexicon,
            named,
            name_words,
            namesakes or {},
            own_names,
        )
    answer.confidence, answer.signals, answer.named = confidence, sig, list(named)
    return answer


def naming_first(ranked: list[SentenceScore], paper: Paper, question: str) -> list[SentenceScore]:
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
    cues: Cues,
    min_evidence: float,
    plan: Plan,
    lexicon: Lexicon,
    named: Sequence[str] = (),
    name_words: set[str] | None = None,
    namesakes: Mapping[str, Sequence[str]] | None = None,
    own_names: Callable[[str], Sequence[str]] = lambda _paper_id: (),
) -> Answer:
    """Compose a cited answer from the sentences of the plan's answer type (evidence not
    empty); a two-part question (plan.parts) is answered part by part for the leading paper,
    which, when the question does not name it, is quoted with its name (`own_names`).

    Of papers that share a name the question writes ("CoDA"), those whose abstracts lack the
    asked detail are left out when a namesake's abstract holds it: the question is about that
    one."""
    hits = [e.hit for e in evidence]
    primary, extra = main_part(question, plan)
    qtype, detail = primary.answer_type, primary.text
    # "Which datasets does APPLE use?": what a named paper is evaluated on, not which paper is
    # a dataset.
    usage = qtype == "entities" and bool(named)
    asked = read_asked(detail, qtype, lexicon, usage)
    counted = frozenset().union(*focus_terms(asked, name_words)) if asked.how_many else frozenset()
    focus = (
        frozenset().union(*focus_terms(asked, name_words)) - GENERIC_FOCUS
        if qtype == "number"
        else frozenset()
    )
    if qtype == "number" and asked.speed:
        # "How much faster is Qronos?": "a speedup of up to 13.8×", not "18× less memory".
        focus |= SPEED_TERMS
    # "What are the components of KVTC?": "KVTC combines PCA-based feature decorrelation, …".
    composed = any(g & COMPONENT_TERMS for g in focus_terms(asked, name_words))
    # What a question opening with "how many" counts, which an abstract must put a number on
    # to answer it (a "how many" clause later in a longer question may count another noun).
    how_many = counted if asked.how_many_first else frozenset()
    # A detail is said to be unstated only when the router is fairly sure which kind of
    # sentence is asked, or no abstract states it (its authors, its date); else the best
    # sentences answer.
    likely = plan.answer_type_p is None or plan.answer_type_p >= LIKELY_TYPE or asked.never_stated
    if asked.size:
        # "How big is the InternSpatial dataset?": "comprises 12 million QA pairs", not the
        # "12.1% improvement" a result reports.
        counted |= SIZE_UNITS
    if named:
        # A question that names papers is about those papers, whatever else scores well; of
        # several ("what model sizes were they tested at?" after a list), those whose
        # abstracts state the detail first.
        chosen = sorted(
            (e for e in evidence if e.hit.paper.id in named),
            key=lambda e: not detail_sentences(
                detail,
                qtype,
                _by_type(e, qtype, cues, counted, usage, composed),
                name_words or set(),
                asked,
                cues,
            ),
        )[:MAX_PAPERS]
    else:
        best = evidence[0].score
        # Runners-up join only on their own evidence: when the answer stands on the leader's
        # closeness alone (a question in other words), its weak neighbours are noise.
        runners = (
            []
            if asks_one_work(question)
            else [e for e in evidence[1:] if e.score >= max(min_evidence, best - MARGIN)]
        )
        chosen = [evidence[0], *runners][:MAX_PAPERS]
    others: list[str] = []
    for written, ids in (namesakes or {}).items():
        lacking = [
            e
            for e in chosen
            if e.hit.paper.id in ids
            and not detail_sentences(
                question,
                qtype,
                _by_type(e, qtype, cues, counted, usage, composed),
                name_words or set(),
                asked,
                cues,
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
    no_fact: list[str] = []  # catalog fields the index lacks for a named paper
    for n, ev in enumerate(chosen, start=1):
        ranked = _by_type(ev, qtype, cues, counted, usage, composed)
        if qtype == "contribution":
            ranked = naming_first(ranked, ev.hit.paper, question)
        paper = ev.hit.paper
        picks = pick_sentences(
            ranked,
            cues,
            first=(n == 1),
            terms=ev.terms,
            title=paper.title,
            describe=qtype in ("general", "contribution"),
        )
        stated = picks
        if qtype == "problem":
            picks, stated = with_antecedent(picks, ranked, cues)
        if n == 1 and not named:
            # "Is there a paper on …?": the paper found is known by its name.
            picks = with_name(picks, ranked, own_names(paper.id))
        quote = _span(paper.abstract, picks)
        title = readable(paper.title)
        citations.append(
            Citation(n=n, paper_id=paper.id, title=paper.title, url=paper.url, quote=quote)
        )
        stored = catalog_fact(paper, question, plan.kind, lexicon) if named else None
        if stored is not None:
            # A link, decision, area or keywords: catalog metadata, stated as stored or said
            # to be absent.
            fact, absent = stored
            if fact:
                leads.append(f"{fact} [{n}].")
                lines.append(f"- {bold(paper.title)} [{n}]: {readable(quote)} [{n}]")
            else:
                no_fact.append(absent)
                lines.append(f"- {bold(paper.title)} [{n}]: {readable(quote)}")
            continue
        # "What does InSight-o3 do and how much does it improve?": each other part of a
        # two-part question answered for the leading paper when its abstract does.
        words = name_words or set()
        parts = (
            [
                _part_answer(ev, p, question, words, lexicon, bool(named), cues, p is plan.parts[0])
                for p in extra
            ]
            if n == 1
            else []
        )
        stating = (
            detail_sentences(detail, qtype, ranked, words, asked, cues) if n == 1 or named else []
        )
        lacks = bool(named) and (
            (not stating and likely)
            # "How many tasks does MCP-SafetyBench have?": "20 MCP attack types" counts another
            # noun; no number counting tasks, no answer.
            or (bool(how_many) and not any(counts(s.text, how_many, cues) for s in ranked))
        )
        if n == 1 and stating and len(stating) < len(ranked):
            # "Which domains does MCP-SafetyBench cover?": the sentence writing its domains is
            # quoted and said, however it scored against the whole question.
            chosen_ix = {s.index for s in picks}
            if not any(s.index in chosen_ix for s in stating):
                picks = sorted([*picks, stating[0]], key=lambda s: s.index)
                stated = sorted([*stated, stating[0]], key=lambda s: s.index)
                quote = _span(paper.abstract, picks)
                citations[-1] = citations[-1].model_copy(update={"quote": quote})
        if lacks and not any(said for _p, said in parts):
            missing.append(title)
            lines.append(
                f"- Closest sentence of {bold(paper.title)} [{n}]: {readable(quote)} [{n}]"
            )
            continue
        name = short_name(paper)
        lead = restate(
            name, n, lead_clause(stated, qtype, cues, name, counted, focus, composed), cues
        )
        whole = lead
        if parts:
            # No number in its abstract: it is said, not answered by a sentence nearby.
            unsaid = lacks or (
                qtype == "number" and not any(cues.says("number", s.text) for s in picks)
            )
            if unsaid:
                lead = unstated(qtype)
            if lacks:
                # Only the other parts are quoted: a sentence near the missing detail answers
                # nothing.
                picks = []
            # One answer per part in the question's order, what the abstract does not state
            # last; the quote keeps abstract order.
            said_parts = {id(primary): (unsaid, lead)}
            # A sentence the lead already says (by index: each part ranks it with its own
            # score); one only quoted beside it (the window) is still said for its part. A lead
            # saying the detail is unstated says none: the quoted sentences count as said.
            quoted = {s.index for s in (picks if unsaid else stated)}
            for part, said in parts:
                stored = part_fact(paper, part.text, lexicon) if named else None
                if stored is not None:
                    # "…, and was it an oral?": the catalog answers that part.
                    fact, absent = stored
                    said_parts[id(part)] = (False, f"{fact} [{n}]." if fact else absent)
                    continue
                # A further part the abstract seems not to answer is left out, not said to be
                # missing: "does not state" is claimed of the main detail only.
                if said is not None and said.index not in quoted:
                    quoted.add(said.index)
                    said_parts[id(part)] = (
                        False,
                        restate(name, n, lead_clause([said], part.answer_type, cues, name), cues),
                    )
                    picks = [*picks, said]
            said_in_order = [said_parts[id(p)] for p in plan.parts if id(p) in said_parts]
            if all(unsaid_part for unsaid_part, _t in said_in_order) and not lacks:
                # No part answered in words: the sentences quoted answer it as one question.
                said_in_order = [(False, whole)]
            lead = " ".join(t for _unsaid, t in sorted(said_in_order, key=lambda x: x[0]))
            picks = sorted({s.index: s for s in picks}.values(), key=lambda s: s.index)
            quote = _span(paper.abstract, picks)
            citations[-1] = citations[-1].model_copy(update={"quote": quote})
        if n == 1 and not lacks:
            # The answer may lie in a sentence of another form than the type's: quoted too,
            # after the lead is said.
            shown = with_best(picks, ev.ranked, cues)
            if len(shown) > len(picks):
                picks, quote = shown, _span(paper.abstract, shown)
                citations[-1] = citations[-1].model_copy(update={"quote": quote})
        for s in picks:
            sentences.append(AnswerSentence(text=s.text, citations=[n], support=1.0))
        leads.append(lead)
        lines.append(f"- {bold(paper.title)} [{n}]: {readable(quote)} [{n}]")
    head: list[str] = []
    if leads:
        # What the abstracts state first, then which of the papers asked about do not.
        head.append(" ".join(leads))
    if missing:
        head.append(unstated(qtype, *missing))
    if no_fact:
        head.append(" ".join(no_fact))
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


def _part_answer(
    ev: Evidence,
    part: QuestionPart,
    question: str,
    name_words: set[str],
    lexicon: Lexicon,
    named: bool,
    cues: Cues,
    opening: bool = False,
) -> tuple[QuestionPart, SentenceScore | None]:
    """A part's answering sentence in one paper's abstract, or None when it does not state
    it: what the paper does (the sentence naming it), or the best sentence of the part's type
    that holds the asked detail. A broad part after the `opening` one asks about the paper
    the opening found or named: the sentence writing most of its own words answers it."""
    if part.answer_type in ("contribution", "general"):
        # "What is CountBench and …?", "How does Qronos quantize models and …?": the opening
        # asks what it is or does; "…, and how are its two levels trained?" asks more.
        own = set() if opening else set(content_terms(part.text)) - name_words
        if own:
            shared = [(len(own & set(content_terms(s.text))), s.score, s) for s in ev.ranked]
            most, _score, best = max(shared, key=lambda o: o[:2], default=(0, 0.0, None))
            if most:
                return part, best
        return part, _contribution(ev, cues, question)
    ranked = _by_type(ev, part.answer_type, cues)
    # The paper's sentences were scored against the whole question: those the part's own
    # words are in ("which LLMs does it outperform?") first; then the others, which may state
    # it in other words ("a 2.76× speedup" for "how much faster is its encrypted inference?").
    own = set(content_terms(part.text))
    ranked = sorted(ranked, key=lambda s: not own & set(content_terms(s.text)))
    usage = part.answer_type == "entities" and named
    asked = read_asked(part.text, part.answer_type, lexicon, usage)
    # The best sentence stating the part's detail ("how much faster?": a number on speed, not
    # "multiplicative depth ≤ 3"); a number or named things are there or not, a finding or a
    # problem every abstract states.
    exact = part.answer_type in ("number", "entities")
    stating = detail_sentences(part.text, part.answer_type, ranked, name_words, asked, cues)
    return part, next(
        (s for s in stating if not exact or cues.has_cue(part.answer_type, s.text)), None
    )


def _contribution(ev: Evidence, cues: Cues, question: str = "") -> SentenceScore | None:
    """The sentence stating what the paper does, if one does; the one introducing the name
    the question writes first ("we propose InSight-o3", not "we first introduce o3-bench")."""
    ranked = naming_first(_by_type(ev, "contribution", cues), ev.hit.paper, question)
    return next((s for s in ranked if cues.contributes(s.text)), None)


def _by_type(
    ev: Evidence,
    qtype: AnswerType,
    cues: Cues,
    counted: frozenset[str] = frozenset(),
    usage: bool = False,
    composed: bool = False,
) -> list[SentenceScore]:
    """The paper's sentences re-ranked: topical and of the kind the question asks for.

    `counted` are the stems a "how many" question counts: a sentence that puts a number on
    them ("comprises three tasks") answers it better than one reporting another number;
    `usage`: an entities question about a named paper (what it uses); `composed`: the
    question asks what something is made of, which a sentence saying what it combines or
    comprises answers."""
    scored = [
        SentenceScore(
            s.index, s.text, s.score + TYPE_WEIGHT * cues.type_fit(qtype, s.text, s.index, usage)
        )
        for s in ev.ranked
    ]
    ranked = sorted(scored, key=lambda s: -s.score)
    top = ranked[0].score if ranked else 0.0
    # Wherever it stands: "How many languages does Multi-LCB cover?" is answered by "… across
    # twelve programming languages", however its window scores.
    for i, s in enumerate(ranked if counted or composed else []):
        if (counted and counts(s.text, counted, cues)) or (
            composed and cues.says("composed", s.text)
        ):
            # First, at the leader's score: the other sentences keep their distance to the top,
            # which decides whether they join the quote.
            ranked[: i + 1] = [SentenceScore(s.index, s.text, top), *ranked[:i]]
            break
    return ranked


def pick_sentences(
    ranked: Sequence[SentenceScore],
    cues: Cues,
    first: bool,
    terms: Mapping[str, float] | None = None,
    title: str = "",
    describe: bool = False,
) -> list[SentenceScore]:
    """One sentence per paper; for the leading paper a second one when it scores close, the
    sentence after its contribution when `describe`, and more (up to MAX_SENTENCES) while a
    sentence holds question terms nothing picked covers; then the leading paper's window
    (`_windowed`)."""
    picks = list(ranked[:1])
    by_index = {s.index: s for s in ranked}
    close = len(ranked) > 1 and ranked[1].score >= ranked[0].score - SECOND_MARGIN
    if first and close and not cues.framing(ranked[1].text, ranked[1].index):
        picks = list(ranked[:2])
    if first and describe:
        # "Which paper …" / "what does X propose": the sentence after "we propose X" says what
        # X consists of or does ("It contains … 14 million bounding box annotations", "The
        # core of the proposed method, BR-FedBi, …"); the contribution alone names a category.
        stated = next((s for s in picks if cues.contributes(s.text)), None)
        after = _said_next(stated, by_index, cues) if stated else None
        if after is not None and after not in picks and len(picks) < MAX_SENTENCES:
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
            if s not in picks and s.score >= floor and not cues.framing(s.text, s.index)
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
        headline = [
            s for s in ranked if _headline(s.text, cues) and not cues.framing(s.text, s.index)
        ]
        if headline and not any(s in picks for s in headline):
            # What a paper is known by is also what it found, in numbers: its best-matching
            # result sentence ("… a 7.1% improvement in R1@0.7 on Charades-STA"), one past
            # the cap.
            picks.append(headline[0])
    if first and ranked:
        picks = _windowed(picks, ranked[0], by_index, cues)
    # Keep abstract order so the quote reads as the authors wrote it.
    return sorted(picks, key=lambda s: s.index)


def _said_next(
    sentence: SentenceScore, by_index: Mapping[int, SentenceScore], cues: Cues
) -> SentenceScore | None:
    """The sentence after one in its abstract, unless it sets the scene."""
    after = by_index.get(sentence.index + 1)
    return None if after is None or cues.framing(after.text, after.index) else after


def _windowed(
    picks: list[SentenceScore],
    best: SentenceScore,
    by_index: Mapping[int, SentenceScore],
    cues: Cues,
) -> list[SentenceScore]:
    """The leading paper's quote as a sentence window: the sentence after the best one, and a
    single sentence between two quoted ones (an abstract names in the next sentence what one
    announces: "… two classical methods …" then "… for Noisy-FedAvg and Noisy-FedProx")."""
    out = list(picks)
    indices = sorted(s.index for s in picks)
    for a, b in zip(indices, indices[1:], strict=False):
        gap = by_index.get(a + 1)
        if b - a == 2 and gap is not None:
            out.append(gap)
    after = _said_next(best, by_index, cues)
    if after is not None and after not in out:
        out.append(after)
    return out


def with_best(
    picks: list[SentenceScore], ranked: Sequence[SentenceScore], cues: Cues
) -> list[SentenceScore]:
    """The picks with the paper's most topical sentence, and its close second, in the
    evidence's own order (`ranked`) when fitting the question's type put others before them.

    A type cue reads a sentence's form ("we introduce OmniCVR" names a thing), topicality
    what it is about ("comprises vision-centric, audio-centric, and integrated queries")."""
    top = ranked[0].score if ranked else 0.0
    have = {s.index for s in picks}
    topical = [
        s
        for s in ranked[:2]
        if s.score >= top - SECOND_MARGIN
        and s.index not in have
        and not cues.framing(s.text, s.index)
    ]
    return sorted([*picks, *topical], key=lambda s: s.index)


def with_name(
    picks: list[SentenceScore], ranked: Sequence[SentenceScore], own: Sequence[str]
) -> list[SentenceScore]:
    """The picks with the first sentence writing one of the paper's `own` names (its title's
    method name, a name its abstract coins: "We propose TRIDENT, …") when none of them writes
    one, one past the cap."""
    names = [whole_word(n) for n in own]
    if not names or any(n.search(s.text) for n in names for s in picks):
        return picks
    naming = [s for s in ranked if any(n.search(s.text) for n in names)]
    if not naming:
        return picks
    return sorted([*picks, min(naming, key=lambda s: s.index)], key=lambda s: s.index)


def _headline(sentence: str, cues: Cues) -> bool:
    """A result stated with a number: what a paper is cited for."""
    return cues.has_cue("finding", sentence) and cues.says("number", sentence)


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
