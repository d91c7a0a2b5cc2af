"""How well an abstract's sentence fits the kind of sentence a question asks for (the plan's
answer type: a number, the contribution, named things, a finding, the problem)."""

from __future__ import annotations

import re
from typing import Literal

QuestionType = Literal["number", "contribution", "entities", "finding", "problem", "general"]

# Sentence cues per type.
_PROBLEM = re.compile(
    # Not "problem-solving", a skill the field's opening sentence praises.
    r"\b(?:however|limit|lack|fail|struggl|challeng|problem(?!-solving)|bottleneck|suffer|costly|"
    r"expensive|unclear|drawback|shortcoming|issue|gap|hinder|difficult|insufficient|ignor|"
    r"overlook|neglect|remain|prohibitive|poorly|cannot|unable)",
    re.IGNORECASE,
)
# Numbers written as words, two to ninety and dozens.
COUNT_WORDS = (
    r"two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"(?:thir|four|fif|six|seven|eigh|nine)teen|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|dozens?"
)
_NUMBER = re.compile(
    rf"\d|\\times|×|\bpercent\b|\b(?:{COUNT_WORDS}|hundred|thousand|million|billion|fold|half|"
    r"double|twice)\b",
    re.IGNORECASE,
)
# An amount, not a count of kinds ("a two-stage strategy"): what "how much" asks for.
_AMOUNT = re.compile(
    r"\d|\\times|×|\bpercent\b|\b(?:fold|half|double|twice|doubles|halves)\b", re.IGNORECASE
)
_RESULT = re.compile(
    r"\b(improv|outperform|reduc|achiev|surpass|gain|speed|faster|fewer|lower|higher|better|"
    r"up\s+to|by\s+\d|accura|boost|exceed|cut)",
    re.IGNORECASE,
)
_CONTRIBUTION = re.compile(
    r"\b(we\s+(?:\w+ly\s+)?(?:propose|introduce|present|develop|design|build|release|construct|"
    r"curate|study)|"
    # "we address this challenge and present the first …": the contribution after a coordinated
    # verb is still the paper's own.
    r"we\s+\w+(?:\s+[\w-]+){0,5}?\s+and\s+(?:\w+ly\s+)?(?:propose|introduce|present|develop|"
    r"design|build|release|construct|curate)\b|"
    r"this\s+(?:paper|work)\s+(?:proposes|introduces|presents)|introducing|"
    # "We address this gap with DanceTogether, the first …": the name and what it is.
    r"(?:with|via|through)\s+\**[A-Z][\w-]*\**,\s+(?:the\s+first|an?)\s|"
    # Not "establishes a new state-of-the-art accuracy": that is a result.
    r"named|called|a\s+(?:novel|new)\b(?!\s+(?:state[\s-]of[\s-]the[\s-]art|sota|record)\b))",
    re.IGNORECASE,
)
_ENTITIES = re.compile(
    r"\b(datasets?|benchmarks?|models?|baselines?|tasks?|environments?|games?|such\s+as|"
    r"including|e\.g\.|"
    r"[A-Z][A-Za-z]*[A-Z0-9][\w\-.]*)\b"
)
_EVALUATION = re.compile(
    r"\b(?:evaluat|experiment|benchmark|dataset|corpus|corpora|tested|test\s+on|trained\s+on|"
    r"compared?\s+(?:to|with|against))",
    re.IGNORECASE,
)
_FINDING = re.compile(
    r"\b(we\s+(?:\w+ly\s+)?(?:find|found|show|observe|reveal|demonstrate|prove|identify|discover)|"
    r"results?\s+(?:show|demonstrate|indicate|reveal)|experiments?\s+(?:show|demonstrate)|"
    r"reveals?|shows?\s+that|suggests?|indicates?|"
    # "guarantees showing that …", "experiments validate the hypothesis, and further show …".
    r"showing\s+that|validates?|confirms?|(?:and|further|also)\s+show)",
    re.IGNORECASE,
)
# The framing sentences of an abstract ("X is a prerequisite for …", "Yet … introduce new
# risks"): rarely what a question asks.
_SCENE = re.compile(
    r"^(?:however|yet|but|while|although|nevertheless|nonetheless|unfortunately|recent|"
    r"existing|prior|despite|in\s+recent|"
    # "Multimodal Dataset Distillation (MDD) has emerged as …": the acronym is part of it.
    r"[\w\s()-]{0,50}\s+(?:is|are|has|have)\s+(?:a|an|become|emerged|shown|been)|"
    # "The Model Context Protocol (MCP) is a key enabler of …": what the field is, not the paper.
    r"(?!we\b|our\b|this\s+(?:paper|work))[^,;]{0,80}?\s+(?:is|are|remains?)\s+(?:a|an|the)\s+"
    r"(?:key|central|critical|crucial|fundamental|major|core|promising|prerequisite|"
    r"cornerstone|common|popular|standard|important|essential)\b)",
    re.IGNORECASE,
)


def reports_result(sentence: str) -> bool:
    """Whether a sentence puts a number on a result ("a 3.67x speedup", "improves by 4%")."""
    return bool(_NUMBER.search(sentence) and _RESULT.search(sentence))


def states_amount(sentence: str) -> bool:
    """Whether a sentence states an amount ("by 54%", "12.4x", "twice"), as "how much" asks;
    "a two-stage strategy" counts kinds."""
    return bool(_AMOUNT.search(sentence))


def has_cue(qtype: QuestionType, sentence: str) -> bool:
    """Whether a sentence has the kind of content the question type asks for."""
    if qtype == "number":
        return bool(_NUMBER.search(sentence))
    if qtype == "entities":
        return len(_ENTITIES.findall(sentence)) >= 2
    if qtype == "finding":
        return bool(_FINDING.search(sentence) or _RESULT.search(sentence))
    if qtype == "contribution":
        return bool(_CONTRIBUTION.search(sentence))
    if qtype == "problem":
        return bool(_PROBLEM.search(sentence))
    return False


def framing(sentence: str, position: int) -> bool:
    """Whether a sentence sets the scene (the field, its problem) rather than saying what the
    paper does: the opening sentence unless it states the contribution, "However, …"."""
    return bool(_SCENE.match(sentence)) or (position == 0 and not _CONTRIBUTION.search(sentence))


def type_fit(qtype: QuestionType, sentence: str, position: int, usage: bool = False) -> float:
    """How well a sentence fits the question's type (0..1), before what it is about; `usage`
    (an entities question about a named paper: what it uses) favours the evaluation's
    sentences."""
    fit = 0.0
    if has_cue(qtype, sentence):
        fit = 1.0
        if qtype == "number" and _RESULT.search(sentence):
            fit += 0.3
        if qtype == "number" and not states_amount(sentence):
            # "Our two-stage schedule further improves efficiency" counts kinds, not an amount.
            fit -= 0.3
        if usage and _EVALUATION.search(sentence):
            # "Which datasets does APPLE use?": the evaluation names them, not the sentence
            # introducing APPLE (RL).
            fit += 0.3
    elif qtype == "general" and _CONTRIBUTION.search(sentence):
        fit = 0.5
    if framing(sentence, position) and qtype != "problem":
        fit -= 0.5
    return fit
