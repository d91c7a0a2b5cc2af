"""A question's topic, read by one rule: its words without the question's frame.

Also the sentence kind a question about a topic's papers asks for (listed_aspect) and the two
sides a comparison of topics sets against each other (compared_sides). The planner
(rag/planner.py) calls these once the learned router has said what kind of question it is.
"""

from __future__ import annotations

import re

from .lexicon import Lexicon
from .parts import question_parts
from .qtype import QuestionType

# "What challenges do papers on federated learning address?", "What do GNN papers propose?",
# "What are the limitations of sparse autoencoders according to these papers?": the topic's
# papers, each quoted by the sentence of the asked kind (listed_aspect).
_PROBLEM_WORDS = (
    r"limitations?|challenges?|problems?|issues?|gaps?|drawbacks?|weakness(?:es)?|shortcomings?"
)
_FINDING_WORDS = r"findings?|results?|conclusions?|insights?|lessons?"
_CONTRIBUTION_WORDS = r"contributions?|methods?|techniques?|solutions?|ideas?|approaches"
_ASPECT_NOUN = (
    rf"(?:(?:main|key|common|major|open|typical)\s+)?(?:(?P<problem>{_PROBLEM_WORDS})|"
    rf"(?P<finding>{_FINDING_WORDS})|(?P<contribution>{_CONTRIBUTION_WORDS}))"
)
_ASPECT_VERB = (
    r"(?:(?P<solves>address|tackle|solve|face|overcome|identify|highlight)|"
    r"(?P<finds>find|show|report|observe|reveal|conclude|demonstrate)|"
    r"(?P<proposes>propose|introduce|present|suggest|contribute|offer))"
)
_THESE_PAPERS = r"(?:these|those|the|all(?:\s+(?:of\s+)?(?:the|these|those))?)\s+papers"
_ASPECT_FRAMES = (
    # "What are the limitations of these papers?", "What do those papers find?": no topic,
    # the papers listed last (or every paper).
    re.compile(
        rf"^\W*what\s+(?:are|were)\s+(?:the\s+)?{_ASPECT_NOUN}\s+(?:of|in)\s+(?P<topic>)"
        rf"{_THESE_PAPERS}\W*$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^\W*what\s+(?:{_ASPECT_NOUN}\s+)?(?:do|did)\s+(?P<topic>){_THESE_PAPERS}\s+"
        rf"{_ASPECT_VERB}\b\W*$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^\W*(?:what|which)\s+(?:{_ASPECT_NOUN}\s+)?(?:do|did)\s+(?:the\s+)?(?:papers?|works?|"
        rf"studies|authors)\s+(?:on|about|in|for|of)\s+(?P<topic>.+?)\s+{_ASPECT_VERB}\b"
        r"(?:\s+(?:to\s+\w+|for\s+it|in\s+it))?\W*$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^\W*(?:what|which)\s+(?:{_ASPECT_NOUN}\s+)?(?:do|did)\s+(?:the\s+)?(?P<topic>.+?)\s+"
        rf"(?:papers|works|studies)\s+{_ASPECT_VERB}\b\W*$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^\W*what\s+(?:are|were)\s+(?:the\s+)?{_ASPECT_NOUN}\s+(?:of|in|for|with)\s+"
        r"(?P<topic>.+?)\s+(?:according\s+to|in|across|reported\s+(?:by|in))\s+(?:the|these|"
        r"those)\s+(?:papers|abstracts|works)\W*$",
        re.IGNORECASE,
    ),
)


def listed_aspect(question: str) -> tuple[str, QuestionType] | None:
    """The topic and the kind of sentence a question about a topic's papers asks each for
    ("challenges" -> problem), when it asks one; None otherwise."""
    for frame in _ASPECT_FRAMES:
        if m := frame.search(question):
            found = m.groupdict()
            if found.get("problem") or found.get("solves"):
                return m["topic"], "problem"
            if found.get("finding") or found.get("finds"):
                return m["topic"], "finding"
            return m["topic"], "contribution"
    return None


# Question frame words: how the question is asked, not what it is about.
_FRAME = re.compile(
    # Not "the sample complexity of …": a noun after it makes it the topic's word.
    r"(?<![\w-])((?:in\s+)?(?:the|this)\s+(?:sample|index|collection|corpus)"
    r"(?!\s+(?!(?:papers?|abstracts?|are|is|was|were|about|on|that|which|have|has|hold|"
    r"holds|mention|mentions|with|do|does)\b)[a-z])|how\s+many|"
    # "What's the difference …": the contraction is the frame's, not a topic's "'s".
    r"(?:total\s+)?number\s+of|(?:kinds?|types?|sorts?)\s+of|(?:what|that|there|here)['’]s|"
    r"which|what|list|show(?:\s+me)?|find|give\s+me|"
    r"are\s+there|"
    r"is\s+there|all|the|compare|comparing|comparison|versus|vs\.?|and|between|differences?|"
    r"how|differ|exist|exists|have\s+been\s+(?:proposed|introduced)|cite|cites|citing|"
    r"tell\s+me\s+about|describe|summari[sz]e|"
    r"orals?|posters?|papers?|works?|articles?|abstracts?|about|on|study|studying|studies|"
    r"are|is|there|in|of|that|do|does|mention|mentioning|deal\s+with|dealing\s+with|"
    r"related\s+to|regarding|concerning|index|collection|corpus|hold|holds|me|any|some|"
    r"work\s+on|research\s+on|by|overall|altogether|"
    r"(?:what\s+)?(?:fraction|percentage|share|proportion|percent)\s+of|"
    # "Compare the first two": which papers of the last answer, not a topic.
    r"first|second|third|fourth|fifth|last|former|latter|ones?)(?![\w-])",
    re.IGNORECASE,
)
# "unlearning in LLMs": a preposition between two topic words relates them (the matcher
# looks for both), unlike the frame's "papers in …" or "about …".
_RELATION = frozenset("in on for with against to under across via using within into and".split())
_MARKED = re.compile(r"__(\w+)__")
# "Which papers apply RL to …", "… use Mamba": the verb asks, the rest is the topic.
_LEAD_VERB = re.compile(
    r"^(?:apply|applying|use|using|propose|proposing|introduce|introducing|release|releasing|"
    r"report|reports|state|states|"
    r"curate|curating|investigate|"
    r"investigating|explore|exploring|address|addressing|tackle|tackling|cite|citing|"
    # "approaches to reducing hallucination in VLMs": papers on it reduce, mitigate or
    # measure it; the abstracts' verbs vary.
    r"reduce|reducing|mitigate|mitigating|alleviate|alleviating|prevent|preventing|combat|"
    r"combating|overcome|overcoming|improve|improving|"
    # "Which papers compare their method against GRPO?" ("compare" is the frame's),
    # "… outperform GPT-4o?": the papers writing it.
    r"(?:(?:their|its)\s+(?:own\s+)?(?:methods?|approach(?:es)?|models?|results?)\s+)?against|"
    r"outperform|beat|"
    r"mention|mentioning|discuss|discussing|employ|employing|leverage|leveraging|"
    r"(?:evaluate|evaluated|evaluating|test|tested|testing|train|trained|training|"
    r"experiment|experimenting|report|reporting|focus|focusing|build|building|rely|"
    r"relying)\s+(?:\w+\s+)?(?:on|upon|with)|(?:evaluate|evaluated|evaluating))\s+",
    re.IGNORECASE,
)
# "What are the main approaches to X in this year's papers?": how the topic is framed, not
# the topic.
_QUALIFIER = r"(?:main|key|common|major|different|recent|latest|current)"
_APPROACHES = (
    r"(?:approaches|methods|techniques|ways|ideas|trends|directions|advances|progress|"
    r"developments)"
)
_FILLER = re.compile(
    rf"(?<![\w-])(?:(?:the\s+)?{_QUALIFIER}\s+)?{_APPROACHES}\s+(?:to|for|in|on)(?![\w-])|"
    r"(?<![\w-])(?:(?:at|in|from)\s+)?ICLR(?:\s*'?\d{2,4})?"
    r"(?![\w-])|(?<![\w-])(?:this|that)\s+(?:year'?s?|conference)(?![\w-])|"
    r"(?<![\w-])(?:what'?s|what\s+is)\s+new\s+(?:in|on|for)(?![\w-])|"
    r"(?<![\w-])(?:an\s+)?overview\s+of(?![\w-])|(?<![\w-])(?:recent|latest)(?![\w-])|"
    r"(?<![\w-])in\s+total(?![\w-])|"
    r"(?<![\w-])(?:summari[sz]e\s+)?(?:the\s+)?(?:research|literature)\s+(?:on|about|in)(?![\w-])|"
    # "Which papers were accepted as orals …": the decision is the filter.
    r"(?<![\w-])(?:(?:were|was|are|is|got|get)\s+)?accepted(?:\s+as)?(?![\w-])|"
    # "papers in the area of robotics", robotics being no primary area: the topic.
    r"(?<![\w-])(?:(?:in|from|within)\s+)?(?:the\s+)?(?:primary\s+)?(?:area|field|domain)\s+of"
    r"(?![\w-])|"
    # "a new benchmark": "new" is what proposing one says.
    r"(?<![\w-])(?:a\s+)?(?:new|novel)(?=\s+(?:benchmarks?|datasets?|corpus|corpora|suites?|"
    r"environments?|simulators?|libraries|library|toolkits?|metrics?|optimizers?|methods?|"
    r"algorithms?|approaches)\b)|"
    # "benchmarks for evaluating LLM agents": benchmarks for LLM agents.
    r"(?<=\bfor)\s+(?:evaluating|assessing|benchmarking|measuring|testing)(?![\w-])|"
    # "… according to the papers?": where to look, which every answer does.
    r"(?<![\w-])according\s+to(?:\s+(?:the|these|those)\s+(?:papers|abstracts|index))?"
    r"(?![\w-])|"
    # "What do papers say about X?"
    r"(?<![\w-])(?:say|says|said|tell\s+(?:me|us)|write|claim|report|know)\s+about(?![\w-])|"
    # "Top papers on X", "the most important orals about X".
    r"(?<![\w-])(?:top|best|most\s+\w+|key|important|notable|interesting|influential|"
    r"relevant|good|great|major|main)(?=\s+(?:\d+\s+|ten\s+|five\s+)?(?:papers|works|orals|"
    r"posters|articles)\b)",
    re.IGNORECASE,
)
# "What is GRPO and which papers improve on it?": "it" is the topic written before it.
_BACK_REFERENCE = re.compile(
    r"(?:\s+(?:or|and|but))?\s+\w+(?:\s+(?:on|upon|over|to))?\s+(?:it|them)$", re.IGNORECASE
)


def mark_relations(text: str) -> str:
    """Protect each relating preposition from the frame words' removal ("in" -> "__in__")."""
    words = text.split()

    def topical(word: str) -> bool:
        return bool(word.strip("?!.,;:")) and not _FRAME.fullmatch(word.strip("?!.,;:"))

    def relates(i: int) -> bool:
        if words[i].lower() == "of":
            # Kept between topic words, so the topic reads as asked ("mixture of experts");
            # the matcher decides whether it relates two phrases ("test-time scaling of
            # reasoning models") or is one.
            return (
                0 < i < len(words) - 1
                and topical(words[i - 1])
                and topical(words[i + 1])
                # "percentage of", "number of": the frame's own phrases.
                and not _FRAME.fullmatch(f"{words[i - 1]} {words[i]}")
            )
        return (
            words[i].lower() in _RELATION
            and 0 < i < len(words) - 1
            and topical(words[i - 1])
            and topical(words[i + 1])
            # "deal with", "related to": the frame's own phrases.
            and not _FRAME.fullmatch(f"{words[i - 1]} {words[i]}")
        )

    return " ".join(f"__{w}__" if relates(i) else w for i, w in enumerate(words))


def rest_of(question: str, spans: list[tuple[int, int]], named: list[str]) -> str:
    """The question without its filter phrases and the names it writes."""
    rest = question
    for a, b in sorted(spans, reverse=True):
        rest = rest[:a] + " " + rest[b:]
    for name in named:
        rest = re.sub(re.escape(name), " ", rest, flags=re.IGNORECASE)
    return rest


def clean(text: str) -> str:
    return " ".join(re.sub(r"[?!.,;:]+(\s|$)", " ", text).split())


def _without_examples(text: str, lexicon: Lexicon) -> str:
    """The text without a trailing list of examples ("… agents like AutoGPT", "… such as
    GPT-4"): examples are not the topic."""
    lower = f" {text.lower()} "
    for marker in lexicon.example_markers:
        at = lower.find(f" {marker} ")
        if at >= 0 and not any(c in lower[at + len(marker) + 2 :] for c in ",;"):
            return text[:at].rstrip(" ,")
    return text


def topic_of(rest: str, lexicon: Lexicon, marking: frozenset[str] = frozenset()) -> str:
    """A list or count question's topic: its words without the question's frame, the numbers
    it says, and the words that mark questions rather than topics at its edges (`marking`,
    learned from the labelled corpus by eval/question_marking.py)."""
    # "… hallucination in VLMs, and what do they propose?": the second question is about the
    # list, not its topic.
    rest = _FILLER.sub(" ", _without_examples(question_parts(rest, lexicon)[0], lexicon))
    for start, end, _n in reversed(lexicon.numbers_in(rest)):
        # "Give me 5 papers on GNNs": how many to show (asked_count), not part of the topic.
        rest = rest[:start] + " " + rest[end:]
    topic = _FRAME.sub(" ", mark_relations(rest))
    topic = _MARKED.sub(r"\1", topic).strip()
    # "propose reducing the KV cache": each leading verb.
    while (bare := re.sub(r"(?i)^of\s+", "", _LEAD_VERB.sub("", topic))) != topic:
        # "the use of LLMs for chemistry": what the verb's noun was of.
        topic = bare
    words = clean(topic).split()
    made = tuple(v[:-1] if v.endswith("e") else v for v in lexicon.contribution_verbs)
    edge = lexicon.function_words | lexicon.question_words | lexicon.domain_stopwords | marking
    while words and (
        words[0].lower() in edge
        or words[-1].lower() in edge
        # "What benchmarks are introduced?": what introducing them says (introduced_kind).
        or (words[-1].lower().startswith(made) and words[-1].lower().endswith(("ed", "t")))
    ):
        if words[0].lower() in edge:
            words.pop(0)
        else:
            words.pop()
    topic = " ".join(words)
    if topic.lower() in lexicon.reference_words | {"this"}:
        # "What are these papers about?": every paper, not a topic "these".
        return ""
    return _BACK_REFERENCE.sub("", topic) if _BACK_REFERENCE.search(topic, 1) else topic


_SIDES = re.compile(
    r"\bcompar\w*\s+(?:the\s+)?(.+?)\s+(?:and|vs\.?|versus|with)\s+(?:the\s+)?(.+?)"
    r"(?:\s+(?:papers?|works?|approaches|methods)?\s*\b(on|for|in|about|regarding)\s+(.+?))?"
    r"\s*[?.!]?$",
    re.IGNORECASE,
)
# Two things set side by side without "compare": "the difference between DPO and GRPO",
# "GPTQ vs AWQ", "Which is better for LLM quantization, GPTQ or AWQ?", "How does DPO compare to
# PPO?". Each side is a short phrase: a longer one describes a paper being looked up.
_SIDE = r"[\w][\w.+/-]*(?:\s+[\w.+/-]+){0,3}?"
_PAIR = re.compile(
    rf"\bdifferences?\s+between\s+(?:the\s+)?(?P<a>{_SIDE})\s+and\s+(?:the\s+)?(?P<b>{_SIDE})"
    rf"(?:\s+papers?)?\s*[?.!]?$|"
    rf"^\W*(?P<c>{_SIDE})\s+(?:vs\.?|versus)\s+(?P<d>{_SIDE})\s*[?.!]?$|"
    rf"^\W*(?:which|what)\s+(?:one\s+)?is\s+(?:better|best|faster|cheaper|more\s+\w+)\b[^,]*,\s*"
    rf"(?P<e>{_SIDE})\s+or\s+(?P<f>{_SIDE})\s*[?.!]?$|"
    rf"^\W*how\s+(?:does|do)\s+(?P<g>{_SIDE})\s+compare\s+(?:to|with|against)\s+(?P<h>{_SIDE})"
    rf"\s*[?.!]?$",
    re.IGNORECASE,
)
_SIDE_FILLER = re.compile(
    r"\baccording\s+to\b.*$|\b(?:papers?|works?|approaches|methods|the|these|those)\b",
    re.IGNORECASE,
)


def _side(text: str) -> str:
    """A compared side as a topic: "papers on LoRA" -> "LoRA", "DPO according to the papers"
    -> "DPO"."""
    words = " ".join(_SIDE_FILLER.sub(" ", text).split())
    return re.sub(r"^(?:on|about|in|for|regarding|of)\s+", "", words, flags=re.IGNORECASE)


def compared_sides(question: str) -> list[list[str]]:
    """The topics "compare X and Y (papers) on Z" sets side by side, each as its wordings to
    try in turn: ["X on Z", "X"] and ["Y on Z", "Y"]; also "the difference between X and Y",
    "X vs Y", "which is better, X or Y", "how does X compare to Y" ([["X"], ["Y"]])."""
    m = _SIDES.search(question.strip())
    pair = None if m else _PAIR.search(question.strip())
    written = m.group(1, 2) if m else [g for g in pair.groups() if g] if pair else []
    sides = [_side(side) for side in written]
    if not sides or not all(sides):
        return []
    # "… in these papers": where to look, not a subject both sides share.
    shared = _side(m.group(4)) if m is not None and m.group(4) else ""
    if not shared:
        return [[side] for side in sides]
    # The preposition stays: the matcher reads "X on Z" as X with Z, not as one phrase.
    prep = "on" if m.group(3).lower() in ("about", "regarding") else m.group(3).lower()
    return [[f"{side} {prep} {shared}", side] for side in sides]
