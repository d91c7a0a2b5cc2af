"""What kind of sentence answers a question: a number, the contribution, named things, a finding."""

from __future__ import annotations

import re
from typing import Literal

QuestionType = Literal["number", "contribution", "entities", "finding", "problem", "general"]

_NUMBER_Q = re.compile(
    r"\b(how\s+(?:much|many|large|big|fast|long|often|well)|by\s+what\s+(?:margin|factor)|"
    r"what\s+(?:is\s+the\s+|was\s+the\s+)?(?:percentage|accuracy|score|speed-?up|improvement|"
    r"gain|reduction|number|size|rate|error|perplexity|bleu|f1|fraction|proportion|share|"
    r"portion|ratio|amount)|to\s+what\s+extent|"
    r"how\s+(?:much|many)\b)",
    re.IGNORECASE,
)
_ENTITY_Q = re.compile(
    # Not "what does the dataset distillation paper do": an auxiliary asks about the paper.
    r"\b(which|what)\s+(?:(?!(?:does|do|did|is|are|was|were)\b)\w+\s+){0,2}"
    r"(datasets?|benchmarks?|models?|baselines?|tasks?|"
    r"environments?|languages?|domains?|metrics?|hardware|gpus?|architectures?|llms?)\b|"
    r"\b(evaluated?|tested|trained|benchmarked)\s+(?:it\s+|them\s+)?on\b|"
    # "What does it compare against?": the baselines.
    r"\bwhat\s+(?:does|do|did)\s+.{1,60}?\s+compared?\s+(?:against|with|to)\s*\??\s*$",
    re.IGNORECASE,
)
_FINDING_Q = re.compile(
    # "What did the paper on negative pre-activations find?": any subject before the verb.
    r"\b(what\s+(?:did|do|does)\s+.{1,60}?\s+(?:find|show|observe|discover|reveal|"
    r"conclude|prove)|what\s+(?:is|are|were)\s+the\s+(?:main\s+|key\s+)?(?:findings?|results?|"
    r"conclusions?)|findings?|results?\s+show|"
    # "Does compression order matter …?", "Does it beat SFT?": a yes or no the result gives.
    r"^\W*(?:does|do|did|can|could)\s+(?!you\b|i\b).{1,80}?\s+(?:matter|help|hurt|beat|"
    r"outperform|improve|work|generali[sz]e|transfer|scale|affect|depend|preserve|maintain|"
    r"degrade|reduce|increase)\w*|"
    # "How does SWERank compare to agentic approaches?": the result that compares them.
    r"how\s+(?:does|do|did)\s+.{1,60}?\s+(?:compare|fare|stack\s+up))\b",
    re.IGNORECASE,
)
_CONTRIBUTION_Q = re.compile(
    r"\b(what\s+(?:does|did|do)\s+.{1,60}?\s+(?:propose|do|introduce|present|contribute|"
    # "What is Qronos?", "what is the paper about?", not "what is the GitHub link for X?".
    r"offer|address|solve)|what\s+is\s+(?!the\s|a\s|an\s).{1,40}?\?|what\s+is\s+.{1,40}?about|"
    r"main\s+(?:idea|contribution)|"
    # "Tell me about the paper X", "Summarize X": what it is and does.
    r"^\W*(?:tell\s+me\s+(?:more\s+)?about|describe|summari[sz]e|explain|give\s+me\s+a\s+summary)\b|"
    r"how\s+does\s+.{1,60}?\s+work)",
    re.IGNORECASE,
)

# "What limitation of SAEs does T-SAE address?", "What problem does SHAPO solve?": the gap the
# paper starts from, which abstracts state in their scene-setting sentences.
_PROBLEM_Q = re.compile(
    r"\b(?:what|which)\s+(?:\w+\s+){0,2}?(?:limitations?|problems?|challenges?|issues?|gaps?|"
    r"shortcomings?|drawbacks?|weakness(?:es)?|bottlenecks?|difficult(?:y|ies))\b.{0,80}?\b"
    r"(?:address|addresses|tackle|tackles|solve|solves|overcome|overcomes|fix|fixes|mitigate|"
    r"mitigates|resolve|resolves|target|targets|remedy|remedies)\b|\bwhat\s+motivate[sd]?\b|"
    r"\bwhy\s+(?:is|are|was|were)\s+.{1,60}?\s+(?:needed|necessary)\b",
    re.IGNORECASE,
)

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
_USAGE_Q = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:datasets?|benchmarks?|models?|baselines?|tasks?|"
    r"environments?|metrics?|hardware|gpus?|llms?)\s+(?:does|do|did|is|are|was|were|has|have)\b|"
    r"\b(?:evaluated?|tested|trained|benchmarked)\s+(?:it\s+|them\s+)?on\b|\bon\s+which\b",
    re.IGNORECASE,
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


# "Is FinSearchComp an oral?", "Which area is Qronos in?", "What are its keywords?": the
# catalog's fields of a named paper, not its abstract.
_METADATA_Q = re.compile(
    r"^\W*(?:is|was)\b.{1,80}?\b(?:an?\s+)?(?:oral|poster|spotlight)s?\b|"
    r"\b(?:accepted|presented)\s+as\b|\b(?:which|what)\s+(?:primary\s+)?(?:area|track|category|"
    r"decision)\b|\bwhat\s+(?:are|were)\s+(?:the\s+|its\s+|their\s+)?keywords\b|\bkeywords\s+"
    r"(?:of|for|does|did)\b",
    re.IGNORECASE,
)


_CITATIONS_Q = re.compile(
    # Not "the most cited benchmarks in code generation papers": those the papers name.
    r"\b(?:most|highly|least|frequently|widely)\s+cited\b"
    r"(?!\s+(?:datasets|benchmarks|models|baselines|llms|methods))|\bcitations?\s+counts?\b|"
    r"\b(?:number|count)\s+of\s+citations\b|\bhow\s+(?:many\s+citations|often\s+(?:is|was)\b"
    r".{1,60}?\bcited)\b|\bh-?index\b",
    re.IGNORECASE,
)


def asks_citations(question: str) -> bool:
    """Whether the question asks how often papers are cited, which no record holds."""
    return bool(_CITATIONS_Q.search(question))


def asks_metadata(question: str) -> bool:
    """Whether the question asks for a paper's decision, area or keywords."""
    return bool(_METADATA_Q.search(question))


def reports_result(sentence: str) -> bool:
    """Whether a sentence puts a number on a result ("a 3.67x speedup", "improves by 4%")."""
    return bool(_NUMBER.search(sentence) and _RESULT.search(sentence))


def states_amount(sentence: str) -> bool:
    """Whether a sentence states an amount ("by 54%", "12.4x", "twice"), as "how much" asks;
    "a two-stage strategy" counts kinds."""
    return bool(_AMOUNT.search(sentence))


def asks_two_things(question: str) -> bool:
    """Whether a question of another type also asks what the paper does: "What does Qronos do
    and how much memory does it save?", "What is FusedKV and how much does it cut the cache?"."""
    if question_type(question) in ("contribution", "general") or not re.search(
        r"\band\b", question, re.IGNORECASE
    ):
        return False
    return bool(
        _CONTRIBUTION_Q.search(question)
        or re.match(r"\W*what\s+is\s+\S+\s+and\b", question, re.IGNORECASE)
        # "How does REAP prune experts and how much does it compress?": how it works first.
        or _HOW_AND.match(question)
    )


_HOW_AND = re.compile(
    # Not "How does Browser Use perform on WebDS …, and how well do humans do?": a result.
    r"\W*how\s+(?:does|do|did)\s+(?![^?]{0,60}?\b(?:perform|compare|fare|rank|scale|behave)s?\b)"
    r"\S.{0,60}?\s+and\s+(?:how|what|which|by)\b",
    re.IGNORECASE,
)


def asked_detail(question: str) -> str:
    """The part of a two-things question that is not "what does it do": "how much memory does
    it save?" of "What does Qronos do and how much memory does it save?", and "How many
    parameters does LaTo use" of "How many parameters does LaTo use, and what does it do?";
    the question itself otherwise."""
    if not asks_two_things(question):
        return question
    first, _and, second = question.partition(" and ")
    if _CONTRIBUTION_Q.search(second) and not _CONTRIBUTION_Q.search(first):
        return first.rstrip(" ,;") + "?"
    return second


def question_type(question: str) -> QuestionType:
    """The kind of sentence that answers the question, read from its wording."""
    if _NUMBER_Q.search(question):
        return "number"
    if _ENTITY_Q.search(question):
        return "entities"
    if _PROBLEM_Q.search(question):
        return "problem"
    if _FINDING_Q.search(question):
        return "finding"
    if _CONTRIBUTION_Q.search(question):
        return "contribution"
    return "general"


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


def asks_usage(question: str) -> bool:
    """Whether an entities question asks what a paper uses or is evaluated on ("Which datasets
    does APPLE use?"), not which paper is one ("Which benchmark tests LLM agents on …?")."""
    return bool(_USAGE_Q.search(question))


def type_fit(qtype: QuestionType, sentence: str, position: int, usage: bool = False) -> float:
    """How well a sentence fits the question's type (0..1), before what it is about; `usage`
    (asks_usage) favours the evaluation's sentences."""
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
