"""The lead sentence of an extractive answer: the answering clause restated with the paper as
its subject, or, for a question about a named paper's link, decision, area, keywords, authors
or title, the catalog's fact."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rag.answers.detail import counts
from rag.cues import Cues
from rag.lexicon import Lexicon
from rag.models import AnswerType, Paper, QuestionKind
from rag.retrieval.support import SentenceScore
from rag.store.markup import readable
from rag.store.names import paper_names
from rag.text import ENUMERATOR, content_terms

_CLAUSE = re.compile(r"(?<=;)\s+|(?<=,)\s+(?=(?:and|while|whereas)\s+(?:we|our|it|the|this)\b)")


def lead_clause(
    picks: Sequence[SentenceScore],
    qtype: AnswerType,
    cues: Cues,
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
    fitting = [c for c in clauses if cues.has_cue(qtype, c)]
    if qtype in ("contribution", "general") and name:
        # "What is DanceTogether?": the clause that introduces the name says what it is, not
        # the one introducing its datasets.
        fitting = [c for c in fitting if name.lower() in c.lower()] or fitting
    if counted:
        # "How many models were evaluated?": "we evaluate 21 models", not "includes 635
        # questions", though one sentence holds both.
        fitting = [c for c in fitting if counts(c, counted, cues)] or fitting
    if composed:
        # "What are the components of KVTC?": "KVTC combines …", not "We present KVTC".
        fitting = [c for c in fitting or clauses if cues.says("composed", c)] or fitting
    if focus:
        # "How big is the speedup?": "a speedup of up to 13.8×", not the memory clause before.
        fitting = [c for c in fitting if focus & set(content_terms(c))] or fitting
    if qtype == "number" and not counted:
        # "How much does it improve?": "cost down by 54%", not "a two-stage strategy".
        fitting = [c for c in fitting if cues.states_amount(c)] or fitting
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


_SUBJECT = re.compile(
    r"^(?P<subject>we|this\s+(?:paper|work|study))\s+"
    r"(?P<adverbs>(?:(?:(?!(?:ap|re|sup|multi|com|im)ply\b|rely\b)\w+ly|also|further|then|"
    r"first|here|now)\s+)*)(?P<verb>[a-z]+)\b",
    re.IGNORECASE,
)


_KEEP_VERB = frozenset("can could will would may might must should shall".split())


_VERB_3RD = {"are": "is", "have": "has", "do": "does", "go": "goes", "were": "was"}


# Verbs "we" governs after an "and" ("we join this line of work and introduce …").
_COORDINATED = re.compile(
    r"(?<=\sand\s)(?P<adverbs>(?:\w+ly\s+)?)(?P<verb>propose|introduce|present|develop|design|"
    r"build|release|construct|curate|study|show|find|demonstrate|evaluate|analy[sz]e|provide|"
    r"achieve|use|apply|extend|train|test|conduct|derive|prove|identify|offer|establish|"
    r"investigate|explore|validate|compare|release|obtain|observe|reveal|report)\b"
)


def _unnumbered(text: str) -> str:
    """The text without a list's numbering at its start ("(1) We first …")."""
    m = ENUMERATOR.match(text)
    return text[m.end() :] if m else text


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


def restate(name: str, n: int, clause: str, cues: Cues) -> str:
    """The lead sentence: the clause with the paper as its subject, every content word kept.

    "To address this, we propose LaTo, a landmark-tokenized …" becomes "LaTo is a
    landmark-tokenized … [1]."; "We use our discovery to reduce …" becomes "Qronos uses its
    discovery to reduce … [1]."; a clause without "we" keeps its words ("Qronos [1]: …").
    """
    # "Specifically, (1) We first construct …": the enumerator goes with the opener.
    text = _unnumbered(_OPENER.sub("", _unnumbered(clause.strip())))
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
    introducing = cues.introducing(verb)
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


def catalog_fact(
    paper: Paper, question: str, kind: QuestionKind, lexicon: Lexicon
) -> tuple[str, str] | None:
    """For a question about a named paper's link, decision, area or keywords (the plan's
    metadata kind), authors or title: (what the catalog holds, "") or ("", what it lacks);
    None for a question about its abstract."""
    title = readable(paper.title)
    # "What's the link to the FinSearchComp paper?", "Who wrote Qronos?": the catalog's
    # URL and authors answer, not the abstract.
    if lexicon.asks_catalog(question, "link"):
        return (
            (f"{title}: {paper.url}", "")
            if paper.url
            else ("", f"The index holds no link for {title}.")
        )
    if lexicon.asks_catalog(question, "authors"):
        if paper.authors:
            return f"{title} is by {', '.join(paper.authors)}", ""
        return "", f"The index holds no authors or affiliations for {title}."
    if lexicon.asks_catalog(question, "title"):
        # "What is the title of the paper that introduces GEPA?"
        if paper.title_is_derived:
            return "", f"The index holds no title for this paper; it is shown as “{title}”."
        return f"The paper's title is “{title}”", ""
    if kind == QuestionKind.METADATA:
        fact = _metadata(paper, question)
        return fact, "" if fact else f"The index holds no decision, area or keywords for {title}."
    return None


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


def part_fact(paper: Paper, text: str, lexicon: Lexicon) -> tuple[str, str] | None:
    """What the catalog holds (or lacks) for a part asking a named paper's link, decision,
    area, keywords, authors or title ("…, and was it an oral?"); None for a part about its
    abstract."""
    kind = QuestionKind.METADATA if lexicon.asks_catalog(text, "metadata") else QuestionKind.DETAIL
    return catalog_fact(paper, text, kind, lexicon)
