"""What an offline answer says instead of, or above, its sentences: the refusal, the topic no
paper writes, and the line saying the papers below answer only part of the question."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rag.answers.absent import AbsentTopic
from rag.lexicon import Lexicon
from rag.models import Answer, Paper, Plan, QuestionKind, SearchHit
from rag.retrieval.support import Evidence
from rag.store.markup import readable
from rag.store.names import coined_words, introduces
from rag.text import content_terms, one_edit

# The papers an offline answer quotes at most.
MAX_PAPERS = 5


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


def absent_text(absent: AbsentTopic, hits: Sequence[SearchHit]) -> str:
    """'No paper in the index is about ship hull design (no paper writes “hull”); the nearest
    are: A; B; C.'"""
    said = ", ".join(f"\u201c{w}\u201d" for w in absent.words)
    head = f"No paper in the index is about {absent.topic} (no paper writes {said})"
    if not hits:
        return head + "."
    names = "; ".join(readable(h.paper.title) for h in hits[:3])
    end = "" if names.endswith((".", "?", "!")) else "."
    return f"{head}; the nearest are: {names}{end}"


def offline_heading(
    question: str,
    plan: Plan,
    named: Sequence[str],
    unused: Sequence[str],
    evidence: Sequence[Evidence],
    answer: Answer,
    lexicon: Lexicon,
    acronyms: Mapping[str, tuple[str, ...]],
) -> str:
    """The line above the papers' sentences when they answer only part of the question: no
    paper matches the topic a list asked for, a search's closest papers miss some of its
    words, none mentions a name the question writes, or none introduces the name it asks
    about. Empty otherwise, and for a refusal."""
    if answer.refused:
        return ""
    if (
        plan.kind.collection
        and not plan.kind.counts
        and plan.kind not in (QuestionKind.COMPARE, QuestionKind.DEFINE)
        and plan.topic
    ):
        top = [e.hit.paper for e in evidence[:TOP_MATCHES]]
        missed = unwritten(plan.topic, top, acronyms)
        if missed and plan.kind == QuestionKind.SEARCH:
            # A search-box query: its closest papers are its answer, as a search engine's
            # results are; the line says which of its words they do not write, and which no
            # paper in the index writes at all ("glacier melt forecasting").
            gone = [w for w in missed if set(content_terms(w)) & set(unused)]
            said = ", ".join(f"\u201c{w}\u201d" for w in gone or missed)
            if gone:
                return f"No paper in the index writes {said}; the closest papers:\n"
            return f"The closest papers (none of the first {len(top)} writes {said}):\n"
        if missed:
            # "Which papers are about X?" where no paper writes X: the list is empty, and the
            # closest papers follow under a line that says so.
            return (
                f"No paper matches \u201c{plan.topic}\u201d in its title, keywords or abstract; "
                "the closest papers:\n"
            )
    if named:
        return ""
    # "Which paper introduces a benchmark for Verilog code generation?": the closest papers
    # may answer the rest of it, but none is about Verilog.
    if unmentioned := proper_words(question, unused):
        return f"No indexed paper mentions {unmentioned}; the closest papers:\n"
    if origin := not_introduced(asked_name(question, plan, lexicon), evidence):
        return f"No indexed paper introduces {origin}; papers that use it:\n"
    return ""


# How many of the best-evidenced papers are read for a topic's terms.
TOP_MATCHES = 3


def unwritten(
    topic: str, papers: Sequence[Paper], acronyms: Mapping[str, tuple[str, ...]]
) -> list[str]:
    """The topic's words none of the papers writes (all when there are no papers). A word is
    written as its stems (plurals, -ing; "LLM" by "LLMs"), as the phrase its acronym stands
    for ("LM" by "language model"), or one typing slip away for stems of five letters or more."""
    texts = [set(content_terms(p.search_text)) for p in papers]

    def writes(term: str, written: set[str]) -> bool:
        if term in written or term + "s" in written:
            return True
        if (phrase := acronyms.get(term)) and all(t in written for t in phrase):
            return True
        return len(term) >= 5 and any(one_edit(term, w) for w in written)

    return [
        word
        for word in topic.split()
        if (terms := content_terms(word))
        and not any(all(writes(t, written) for t in terms) for written in texts)
    ]


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


def asked_name(question: str, plan: Plan, lexicon: Lexicon) -> str:
    """The one coined name a question about a name alone asks about ("Which paper introduces
    GRPO?", "What is DINOv3?", "What does GRPO stand for?"): a lookup or definition naming no
    paper whose other words all frame a question (lexicon question, function, concept, naming
    words and contribution verbs); "" otherwise."""
    if plan.named or plan.kind not in (QuestionKind.LOOKUP, QuestionKind.DEFINE):
        return ""
    coined = coined_words(question)
    if len(coined) != 1:
        return ""
    frame = (
        lexicon.question_words
        | lexicon.function_words
        | lexicon.concept_words
        | lexicon.domain_stopwords
        | lexicon.naming_words
    )
    made = lexicon.contribution_stems
    words = [w.strip(_EDGE).lower() for w in question.split()]
    rest = [w for w in words if w and w != coined[0].lower()]
    return coined[0] if rest and all(w in frame or w.startswith(made) for w in rest) else ""


_EDGE = "?!.,;:\"'()\u201c\u201d"


def not_introduced(name: str, evidence: Sequence[Evidence]) -> str:
    """The name a question asks about (asked_name), quoted, when the papers answering it
    use it but none introduces it (GRPO, DINOv3 came before this
    conference). Empty otherwise."""
    if not name or not evidence:
        return ""
    abstracts = [e.hit.paper.abstract for e in evidence[:MAX_PAPERS]]
    if not any(re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", a) for a in abstracts):
        return ""
    if any(introduces(a, name) for a in abstracts):
        return ""
    return f"\u201c{name}\u201d"
