"""What kind of sentence answers a question: a number, the contribution, named things, a finding.

The sentences of each kind are told apart by rag.cues."""

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

_USAGE_Q = re.compile(
    r"\b(?:which|what)\s+(?:[\w-]+\s+){0,2}?(?:datasets?|benchmarks?|models?|baselines?|tasks?|"
    r"environments?|metrics?|hardware|gpus?|llms?)\s+(?:does|do|did|is|are|was|were|has|have)\b|"
    r"\b(?:evaluated?|tested|trained|benchmarked)\s+(?:it\s+|them\s+)?on\b|\bon\s+which\b",
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


def asks_usage(question: str) -> bool:
    """Whether an entities question asks what a paper uses or is evaluated on ("Which datasets
    does APPLE use?"), not which paper is one ("Which benchmark tests LLM agents on …?")."""
    return bool(_USAGE_Q.search(question))
