"""How a follow-up reads against the conversation: the list it narrows ("which of those are
orals?"), the subject it asks again of ("and for RL?"), which one of the last answer it means."""

from __future__ import annotations

import re

from rag.lexicon import Lexicon
from rag.models import Conversation, Filters, GroupBy, Plan, QuestionKind
from rag.questions.condense import heuristic_condense, refers_back
from rag.questions.conversation import HISTORY_TURNS, listed_turn, narrows, shown_ids
from rag.questions.topic import listed_aspect, topic_of
from rag.store.catalog import Catalog

K = QuestionKind


def of_those(text: str, lexicon: Lexicon) -> list[tuple[int, int]]:
    """Where a question points at the last list ("How many of them are orals?", "which of
    those are in the RL area?", a fragment opening "mainly …"): that list, narrowed
    (Plan.within, a follow-up)."""
    spans = lexicon.phrase_spans(text, lexicon.follow_up_words["narrowing"])
    opener = lexicon.refining_opener(text)
    return sorted([*spans, *([opener] if opener else [])])


def refines(text: str, conversation: Conversation | None, lexicon: Lexicon) -> bool:
    """Whether a fragment narrows the last list by opening with an adverb ("mainly
    detection", "mostly about region-level stuff"): a list of it, whatever else it reads as."""
    return lexicon.refining_opener(text) is not None and listed_turn(conversation) is not None


def listed_ids(question: str, conversation: Conversation | None, lexicon: Lexicon) -> list[str]:
    """The last answer's papers when the question points at them ("which of those reports the
    best accuracy?"), else []."""
    last = listed_turn(conversation)
    if last is None or not of_those(question, lexicon):
        return []
    return shown_ids(last.answer)


def narrowed_plan(
    question: str,
    conversation: Conversation | None,
    filters: Filters,
    rest: str,
    asked: QuestionKind,
    lexicon: Lexicon,
    group_by: GroupBy | None = None,
    catalog: Catalog | None = None,
) -> Plan | None:
    """A list, count or breakdown over the last answer's papers, when the question narrows
    them; None otherwise. Only filters ("How many of them are orals?") keep the last list's
    topic; words of its own ("Which of those use a draft model?") are matched among the papers
    listed."""
    last = listed_turn(conversation)
    prev = last.answer.plan if last else None
    pointed = bool(of_those(question, lexicon))
    # "How many is that in total?", "and how many orals does it have?" after a list: a count
    # with no topic of its own that points back ("that", "it") counts the last list.
    back = asked.counts and (lexicon.says(question, "singular") or lexicon.says(question, "plural"))
    if last is None or prev is None or not (pointed or back):
        return None
    shown = shown_ids(last.answer)
    if asked == K.BREAKDOWN and shown:
        # "How do they split between orals and posters?": the last answer's papers grouped;
        # its other words say how, not which papers.
        return Plan(
            kind=K.BREAKDOWN, filters=filters, within=shown, group_by=group_by, follow_up=True
        )
    own = rest
    for a, b in reversed(of_those(rest, lexicon)):
        own = own[:a] + " " + own[b:]
    # Read as a list's topic is ("does any of them prove that remasking helps?": remasking).
    own = topic_of(own, lexicon, lexicon.question_marking, catalog)
    if not pointed and own:
        return None
    if (aspect := listed_aspect(question, lexicon)) and not aspect[0]:
        # "What are the limitations of those papers?": each one's, not those writing the word.
        return None
    count = asked.counts
    kind = asked if asked == K.SHARE else K.COUNT if count else K.LIST
    if not prev.kind.collection:
        # An answer citing several papers ("which papers …" answered from the top few):
        # "those" are its papers, narrowed by the filters or the words.
        ids = [c.paper_id for c in last.answer.citations]
        if not (own or filters.active()):
            return None
        return Plan(kind=kind, topic=own, filters=filters, within=ids, follow_up=True)
    if own:
        # Words of its own ("which of those use a draft model?"): the last answer's papers
        # that match them.
        # A narrowing that matched nothing: "those" are still the papers it looked in.
        ids = shown or (prev.within if narrows(prev) else [])
        if not ids:
            return None
        return Plan(kind=kind, topic=own, filters=filters, within=ids, follow_up=True)
    if not (filters.active() or count):
        if pointed and prev.kind in (K.LIST, K.COUNT, K.SHARE) and _asks_which(question):
            # "How many papers study GUI agents?" then "which ones?": the papers it counted
            # ("who wrote them?" asks something else of them).
            within = prev.within if narrows(prev) else []
            return Plan(
                kind=K.LIST, topic=prev.topic, filters=prev.filters, within=within, follow_up=True
            )
        return None
    if prev.kind in (K.COMPARE, K.RESULTS):
        # "Which of those are orals?" after a comparison or the results on a benchmark: the
        # papers it showed, not its topic matched again.
        return Plan(kind=kind, topic="", filters=filters, within=shown, follow_up=True)
    # Only filters ("how many of them are orals?"): the last list's topic (and papers, when
    # it narrowed an earlier one), narrowed.
    merged = prev.filters.model_copy(
        update={k: v for k, v in filters.model_dump().items() if v is not None}
    )
    within = prev.within if narrows(prev) else []
    return Plan(kind=kind, topic=prev.topic, filters=merged, within=within, follow_up=True)


def _asks_which(question: str) -> bool:
    """Whether the question opens with "which" (after "and"): it asks which papers."""
    words = question.lower().split()
    if words[:1] == ["and"]:
        words = words[1:]
    return words[:1] == ["which"]


def earlier_topic(conversation: Conversation | None) -> Plan | None:
    """The latest list, count or share plan (or one saying the index holds no authors or
    citations for a topic) with a topic of its own: what "ok list them all", "how many are
    there?" or "is that more than GRPO?" ask about when they write none."""
    # A list that found nothing ("papers about coffee") is still what "how many?" asks of.
    for turn in reversed(conversation.turns[-HISTORY_TURNS:] if conversation else []):
        prev = turn.answer.plan
        if prev is not None and prev.kind.collection:
            listed = (K.LIST, K.COUNT, K.SHARE, K.AUTHORS, K.CITATIONS)
            return prev if prev.topic and prev.kind in listed else None
    return None


# "What is Muon?" then "Which papers improve on it?": "it" is the thing the last question asked
# about, when that named no paper (many papers use Muon).
def asked_about(question: str, lexicon: Lexicon) -> str:
    """What a "What is X?" question asks about ("X"), without an article; "" for another."""
    text = question.lstrip("".join(c for c in question if not (c.isalnum() or c == "_")))
    spans = lexicon.phrase_spans(text, tuple(lexicon.end_references["about_openers"]))
    if not spans or spans[0][0] != 0 or not text[spans[0][1] : spans[0][1] + 1].isspace():
        return ""
    words = text[spans[0][1] :].split()
    if words and words[0].lower() in ("the", "a", "an"):
        words = words[1:]
    subject = " ".join(words).rstrip("?.!").rstrip()
    if any(c in subject for c in "?.!") or not 2 <= len(subject) <= 60:
        return ""
    return subject


def previous_subject(question: str, conversation: Conversation | None, lexicon: Lexicon) -> str:
    """For "Which papers improve on it?", what "it" is: the subject of the last question when
    it asked what a thing is and named no paper; "" otherwise."""
    if not conversation or not conversation.turns or lexicon.ends_referring(question) is None:
        return ""
    last = conversation.turns[-1]
    plan = last.answer.plan
    subject = asked_about(last.question, lexicon)
    # "What is message passing?" was looked up, or answered from the sentences defining it.
    if not subject or (
        plan is not None
        and (
            plan.paper_ids or ((plan.kind != K.LOOKUP or plan.follow_up) and plan.kind != K.DEFINE)
        )
    ):
        return ""
    return subject


# "Which one is faster?" after a comparison: each compared paper's stated number for it.
_WHICH_ONE = re.compile(
    r"^\W*(?:which|what)\s+(?:one|paper|method|model|of\s+(?:them|the\s+two|both|these|those))\s+"
    r"(?:is|was|runs?|gets?|has|uses?)?\s*(?P<cmp>faster|quicker|more\s+accurate|"
    r"(?:higher|better)\s+accuracy|more\s+memory[\s-]efficient|less\s+memory|"
    r"saves?\s+more\s+memory|compress(?:es)?\s+(?:more|better|further)|"
    r"(?:higher|larger|better|more)\s+compression(?:\s+ratios?)?|"
    r"(?:larger|bigger|higher|more)\s+speed[\s-]?ups?|"
    # "Which one is the fastest?" after a list: its papers, ordered.
    r"(?:the\s+)?(?:fastest|quickest|most\s+accurate|most\s+memory[\s-]efficient|"
    r"(?:highest|best)\s+(?:accuracy|compression(?:\s+ratio)?)|(?:largest|biggest|highest)\s+"
    r"(?:speed[\s-]?ups?|compression(?:\s+ratio)?|memory\s+savings?)))\b",
    re.IGNORECASE,
)


def which_one(question: str, conversation: Conversation | None) -> Plan | None:
    """After a comparison, "Which one is faster?": the compared papers' stated numbers for
    the measure, ordered by them; None otherwise."""
    m = _WHICH_ONE.match(question)
    last = conversation.turns[-1] if conversation and conversation.turns else None
    if m is None or last is None or last.answer.plan is None:
        return None
    prev = last.answer.plan
    cited = list(dict.fromkeys(c.paper_id for c in last.answer.citations))
    if prev.kind == K.COMPARE or (not prev.kind.collection and len(cited) > 1):
        # Compared, or discussed together ("What do they propose?" answered for both).
        ids = cited
    elif prev.kind == K.RESULTS and prev.measure and prev.within:
        # "… and which one is more accurate?" after "Which one is faster?": the same papers.
        ids = prev.within
    elif prev.kind.collection and last.answer.papers:
        # "Which of those report a speedup?" then "Which one is the fastest?": all it matched.
        ids = [p.paper_id for p in last.answer.papers]
    else:
        return None
    asked = m["cmp"].lower()
    measure = (
        "accuracy"
        if "accura" in asked
        else "memory savings"
        if "memory" in asked
        else "compression"
        if "compress" in asked
        else "speedup"
    )
    return Plan(kind=K.RESULTS, within=ids, measure=measure, follow_up=True)


def referred(
    plan: Plan, question: str, conversation: Conversation | None, lexicon: Lexicon
) -> Plan:
    """A comparison naming fewer than two papers compares the conversation's: "Compare both.",
    "compare the first and the third" (the papers a follow-up would resolve to); "compare it
    with PARD": the last answer's paper and the one named."""
    if plan.kind != K.COMPARE or len(plan.paper_ids) >= 2:
        return plan
    referred = heuristic_condense(question, conversation, lexicon).paper_ids or []
    if plan.paper_ids and refers_back(question, lexicon):
        referred = list(dict.fromkeys([*referred, *plan.paper_ids]))
    return plan.model_copy(update={"paper_ids": referred}) if len(referred) >= 2 else plan
