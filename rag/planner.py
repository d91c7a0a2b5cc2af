"""The question planner: intent, topic, filters and named papers, from rules or a model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import ValidationError

from .catalog import Catalog
from .condense import heuristic_condense, refers_back
from .conversation import listed_turn, narrows
from .examples import few_shot, load_examples
from .models import Conversation, Filters, GroupBy, Plan, QuestionKind, plan_schema
from .prompts import Prompt, load_prompt
from .qtype import QuestionType, asks_citations, asks_metadata, question_type
from .ratings import min_rating, read_rating
from .text import tokens
from .theme_words import theme_topic

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

# "Compare A and B" asks for a comparison when the question opens with it; mid-sentence,
# "by comparing its outputs" or "one-vs-all detectors" describe a method being looked up.
_COMPARE_LEAD = re.compile(
    r"^\W*(?:please\s+|(?:can|could|would)\s+you\s+(?:please\s+)?|help\s+me\s+|let'?s\s+|"
    r"i\s+(?:want|would\s+like|'d\s+like)\s+to\s+)?(?:compare|contrast)\b|"
    r"^\W*(?:give|show|write|make)\s+(?:me\s+)?an?\s+(?:side[\s-]by[\s-]side\s+)?comparison\b|"
    r"^\W*(?:what\s+(?:is|are)\s+|what's\s+)?the\s+differences?\s+between\b|"
    # "How do the papers on KV cache eviction differ?"
    r"^\W*how\s+do\s+(?:the\s+)?(?:\w+\s+)?(?:papers|works|methods|approaches)\s+(?:on|about|for|in)\s+"
    r".+?\s+(?:differ|compare)\b",
    re.IGNORECASE,
)
K = QuestionKind
# "Are there more papers on diffusion models or on flow matching?": two topics' counts.
_MORE = re.compile(
    r"\bmore\s+(?:\w+\s+)?(?:papers|works|orals|posters)\s+(?:on|about|in|for|using|with)\s+"
    r"(?P<a>.+?)\s+or\s+"
    r"(?:on\s+|about\s+|in\s+|for\s+|using\s+|with\s+)?(?P<b>[^?.!]+)|"
    r"\b(?:which|what)\s+(?:topic\s+|one\s+)?(?:has|have|gets?)\s+more\s+(?:\w+\s+)?"
    r"(?:papers|works|orals|posters)\W+"
    r"(?P<c>[^?.!]+?)\s+or\s+(?P<d>[^?.!]+)",
    re.IGNORECASE,
)
# Comparison words anywhere: a comparison only when the question names two or more papers.
_COMPARE_NAMED = re.compile(
    r"(?<![\w-])(?:versus|vs\.?)(?![\w-])|\bcomparison\s+(?:of|between)\b|"
    r"\bdifferences?\s+between\b|\bdiffers?\s+from\b|\bhow\s+do(?:es)?\s+.+\s+(?:compare|differ)\b|"
    # "How is PARD different from X?", "What do A and B have in common?"
    r"\bdifferent\s+(?:from|than)\b|\bin\s+common\b|\bsimilarit(?:y|ies)\s+between\b|"
    # "Which is better for KV cache compression, ThinKV or MixKV?"
    r"\bwhich\s+(?:one\s+)?(?:is|works?|does)\s+(?:better|best|faster|cheaper|more\s+\w+)\b",
    re.IGNORECASE,
)
_COLLECTION_NOUN = r"(?:papers|orals|posters|works|articles|abstracts|submissions)"
_COUNT = re.compile(
    rf"\b(?:how\s+many\s+(?:\w+\s+){{0,2}}{_COLLECTION_NOUN}|how\s+many\s+(?:are\s+there|"
    rf"does\s+the\s+(?:index|collection|corpus)\s+hold)|(?:number|count)\s+of\s+"
    rf"(?:\w+\s+)?{_COLLECTION_NOUN}|how\s+many\s+orals|how\s+many\s+posters|"
    # "What fraction of papers are orals?": a count, said with its share of the whole.
    rf"what\s+(?:fraction|percentage|share|proportion|percent)\s+of\s+(?:the\s+)?"
    rf"(?:[\w-]+\s+){{0,4}}?{_COLLECTION_NOUN})\b",
    re.IGNORECASE,
)
# What papers make and how a question says they were made ("What benchmarks are introduced?",
# "papers that propose a new dataset").
_RESOURCE_KINDS = (
    r"benchmarks?|datasets?|corpus|corpora|suites?|environments?|simulators?|libraries|library|"
    r"toolkits?|metrics?|leaderboards?|testbeds?"
)
_MADE = r"(?:introduced|proposed|presented|released|contributed|created|built|constructed|curated)"
_PASSIVE_AUX = r"(?:are|were|is|was|have\s+been|has\s+been|get|gets)"
_LIST = re.compile(
    rf"\b(?:which|what|list|show|find|give\s+me|name|are\s+there|all(?:\s+the)?)\b.*?"
    rf"\b{_COLLECTION_NOUN}\b|^\s*(?:the\s+|all\s+)?(?:\w+\s+)?{_COLLECTION_NOUN}\b|\blist\b|"
    # "Find work on test-time scaling": "work" as a mass noun, not "which work proposes …".
    r"^\W*(?:find|show|give)\s+(?:me\s+)?(?:some\s+|all\s+|the\s+)?(?:recent\s+|latest\s+|new\s+)?"
    r"(?:work|research)\s+on\b|"
    # "Tell me about the Muon optimizer papers": the papers, not one of them.
    r"^\W*(?:tell\s+me\s+about|describe|summari[sz]e)\s+(?:the\s+|all\s+)?(?:[\w-]+\s+){0,6}?"
    r"(?:papers|works)\b|"
    # "What work exists on AI for theorem proving?"
    r"^\W*what\s+(?:work|research)\s+(?:exists?|is\s+there)\s+(?:on|about|for|in)\b|"
    # "What benchmarks exist for evaluating LLM agents?": the papers offering them.
    r"^\W*(?:what|which)\s+(?:\w+\s+)?(?:benchmarks|datasets|methods|approaches|tools|frameworks|"
    r"techniques)\s+(?:exist|are\s+there|have\s+been\s+(?:proposed|introduced))\b|"
    # "What benchmarks are introduced in the sample?": the papers introducing them.
    r"^\W*(?:what|which)\s+(?:new\s+|novel\s+)?(?:benchmarks|datasets|corpora|environments|"
    rf"simulators|metrics|toolkits|libraries)\s+(?:are|were|have\s+been|get)\s+(?:newly\s+)?"
    rf"{_MADE}\b",
    re.IGNORECASE,
)
_FOLLOW = re.compile(
    r"\b(those|these|them|they|their|it|its|this\s+one|that\s+one|the\s+first|the\s+second|"
    r"the\s+last|of\s+them)\b",
    re.IGNORECASE,
)
_AREA = re.compile(
    # "orals in the area of optimization", "from the area generative models on video".
    r"\b(?:in|from|within|under)\s+(?:the\s+)?(?:primary\s+)?(?:area|track|category)\s+"
    r"(?:of\s+|called\s+|named\s+)?(?P<after>[\w ,\-()]+)"
    r"|\b(?:primary\s+)?area\s+(?:of\s+|called\s+)?[\"“'](?P<quoted>[^\"”']+)[\"”']"
    r"|\b(?:in|from|within|of|under)\s+(?:the\s+)?(?!the\s)(?P<before>[\w ,\-()]+?)\s+"
    r"(?:primary\s+)?(?:area|track|category)\b",
    re.IGNORECASE,
)
_KEYWORD = re.compile(
    r"\b(?:with|having|under|tagged(?:\s+with)?|listing)?\s*(?:the\s+)?keywords?\s+"
    r"(?:is\s+|of\s+|include\s+|including\s+)?(?:[\"“']([^\"”']+)[\"”']|([\w\- ]+?))(?=[?.,;]|$)",
    re.IGNORECASE,
)
# 'Which papers have "benchmark" in the title?', "papers whose title mentions Mamba".
_TITLE = re.compile(
    r"\b(?:with|have|has|having|containing|contain|mention|mentions|mentioning|use|uses|"
    r"using)\s+(?:the\s+word\s+)?(?:[\"“']([^\"”']+)[\"”']|([\w-]+(?:\s+[\w-]+){0,2}?))"
    r"\s+in\s+(?:the|their|its)\s+titles?\b|\b(?:whose|with\s+a|with)\s+titles?\s+"
    r"(?:contains?|containing|mentions?|mentioning|includes?|including|has|with)\s+"
    r"(?:the\s+word\s+)?[\"“']?([^\"”'?.,;]+?)[\"”']?(?=[?.,;]|$)|\btitled\s+[\"“']([^\"”']+)[\"”']",
    re.IGNORECASE,
)
# "Find papers similar to Qronos": the papers nearest a named one.
_SIMILAR = re.compile(
    r"\b(?:similar\s+to|related\s+to|like|close\s+to|resembling|in\s+the\s+spirit\s+of)\s",
    re.IGNORECASE,
)
# "Which paper has the highest accuracy on GSM8K?" (K.RESULTS): the results the papers writing
# a benchmark's name state on it; with a Plan.measure ("the largest speedup for X"), the numbers
# the papers state for it. "reward hacking" typed alone is K.SEARCH; "Which paper is the most
# cited?" K.CITATIONS; "What is reward hacking?" K.DEFINE: the abstracts' sentences that say
# what it is, else the question is looked up.
_DEFINE = re.compile(
    r"^\W*(?:(?:(?:what\s+is\s+)?the\s+definition\s+of\s+|what\s+(?:is|are)\s+(?:meant\s+by\s+)?"
    r"(?:an?\s+)?|define\s+|explain\s+(?:what\s+)?)(?P<a>[^?,;]{2,60}?)(?:\s+(?:is|are|means))?|"
    r"what\s+(?:does|do)\s+(?P<b>[^?,;]{2,60}?)\s+(?:mean|stand\s+for))\s*\??\s*$",
    re.IGNORECASE,
)
# "What is the accuracy of …", "What are the main approaches to …": the thing asked is not a
# concept's name.
_NOT_CONCEPT = re.compile(
    r"^(?:the|this|that|these|those|its|their|it|they)\b|(?<![\w-])(?:of|for|between|in|on|by|"
    r"with|about|from|to|does|do|did|and|or|papers?|works|studies|orals?|posters?)(?![\w-])",
    re.IGNORECASE,
)
# "Who works on scaling laws?" (K.AUTHORS): the papers on it, all the index can tell of who.
_WHO_WORKS = re.compile(
    r"^\W*who\s+(?:else\s+)?(?:(?:is|are|was|were|has|have)\s+(?:been\s+)?)?(?:works?|working|"
    r"worked|research(?:es|ing|ed)?|stud(?:ies|ying|ied)|publish(?:es|ing|ed)?|writes|wrote|"
    r"writing)\s+(?:on|about|in)\s+|"
    # "Who proposed the Muon optimizer?": who made it, which the index cannot tell either.
    r"^\W*who\s+(?:first\s+|originally\s+)?(?:proposed|introduced|invented|developed|created|"
    r"came\s+up\s+with)\s+",
    re.IGNORECASE,
)
_BEST_ON = re.compile(
    r"(?i:\b(?:highest|best|top|strongest|state[\s-]of[\s-]the[\s-]art|sota|leading|record|"
    r"lowest|beats?|outperforms?|surpass(?:es)?)\b(?P<metric>(?:\s+[\w@.-]+){0,3}?)"
    r"\s+(?:on|in|for)\s+"
    r"(?:the\s+)?)"
    r"(?P<name>[A-Z][\w.-]*[A-Z0-9][\w.-]*|[A-Z][a-z]+[A-Z][\w-]*)"
)
# Words between "highest" and a benchmark's name that name no metric ("the highest reported
# results on GSM8K"); "accuracy" alone is what most papers call their score (a resolve rate on
# SWE-bench), "top-1 accuracy" is a metric.
_NOT_A_METRIC = (
    r"(?:the|a|an|reported|stated|overall|average|final|results?|performance|scores?|accuracy|"
    r"numbers?|models?|methods?|papers?)"
)
_NO_METRIC = re.compile(rf"{_NOT_A_METRIC}(?:\s+{_NOT_A_METRIC})*", re.IGNORECASE)


def _metric(words: str) -> str:
    """The metric the words before a benchmark's name ask for ("FID", "top-1 accuracy"):
    empty when they name none ("results", "performance")."""
    words = " ".join(
        re.sub(r"(?i)^(?:(?:the|a|an|reported|stated)\s+)+", "", words.strip()).split()
    )
    return "" if not words or _NO_METRIC.fullmatch(words) else words


# "Which paper reports the largest speedup for LLM inference?": the topic's papers stating
# that quantity, ordered by the number each states.
_MEASURES = (
    r"(?P<measure>speed[\s-]?ups?|accelerations?|memory\s+(?:savings?|reductions?)|"
    r"compression(?:\s+ratios?)?|accuracy|improvements?|gains?|reductions?)"
)
_LARGEST = re.compile(
    r"\b(?:largest|biggest|highest|greatest|best|strongest|fastest|most|maximum|top)\s+"
    rf"{_MEASURES}(?:\s+(?:for|on|in|of|among|across|when)\s+(?P<topic>.+)|\s*[?.!]*$)",
    re.IGNORECASE,
)
# "What speedups do speculative decoding papers report?", "What is the speedup reported by
# KV-cache compression methods?": the same answer, asked of a topic's papers as a group.
_PAPERS_NOUN = r"(?:papers|methods|works|approaches|techniques|models)"
_MEASURE_OF = (
    re.compile(
        rf"^\W*(?:what|which)\s+(?:is|are)\s+(?:the\s+)?(?:typical\s+)?{_MEASURES}\s+"
        rf"(?:reported|achieved|claimed|stated|obtained)\s+(?:by|in|for)\s+(?:the\s+)?"
        rf"(?P<topic>.+?)\s+{_PAPERS_NOUN}\b",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^\W*(?:what|which|how\s+much)\s+(?:kinds?\s+of\s+)?{_MEASURES}\s+(?:do|did)\s+"
        rf"(?:the\s+)?(?P<topic>.+?)\s+{_PAPERS_NOUN}\s+(?:report|achieve|claim|state|obtain|get|"
        rf"give)\b",
        re.IGNORECASE,
    ),
)
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
# "… hallucination in VLMs, and what do they propose?": a second question about the list.
_SUBQUESTION = re.compile(
    r",?\s+and\s+(?:what|how|which|why|where|who|whether)\b.*$|"
    # "… agents like AutoGPT", "… such as GPT-4": examples, not the topic.
    r",?\s+(?:like|such\s+as|e\.g\.,?)\s+[^,;]*$",
    re.IGNORECASE | re.DOTALL,
)
# An overview asks for the papers on a topic: "What's new in flow matching?", "What are the
# main approaches to KV-cache compression?".
_OVERVIEW = re.compile(
    rf"^\W*(?:what'?s\s+new\s+(?:in|on|for)\b|what\s+(?:is|are)\s+(?:the\s+)?(?:{_QUALIFIER}\s+)?"
    rf"{_APPROACHES}\s+(?:to|for|in|on)\b|(?:give\s+me\s+)?an?\s+overview\s+of\b|"
    # "Summarize the research on KV cache compression": the body of work, not one paper.
    r"(?:summari[sz]e|give\s+me\s+an?\s+summary\s+of)\s+(?:the\s+)?(?:research|literature|"
    r"studies|papers)\s+(?:on|about|in)\b)",
    re.IGNORECASE,
)
# Decisions a person may ask for that a catalog need not have ("spotlight" at ICLR 2026): a
# filter that matches nothing, so the answer says so instead of reading the word as a topic.
_DECISION_WORDS = ("spotlight", "oral", "poster")
# "Which areas have the most papers?", "How many orals per area?": counts grouped by a field.
_GROUP = re.compile(
    r"\b(?:which|what)\s+(?:are\s+the\s+)?(?:most\s+(?:common|frequent|popular)\s+|top\s+)?"
    r"(keywords)\b|"
    # "What are the most popular topics this year?": the keywords papers list most.
    r"\b(?:most\s+(?:common|frequent|popular)|top|hot|hottest|trending|main|biggest)\s+"
    r"(?:research\s+)?(topics|themes|subjects)\b|"
    # "What topics do these papers cover?"
    r"\b(?:what|which)\s+(?:main\s+)?(topics|themes|subjects)\s+(?:do|does|did|are)\s+"
    r"(?:the\s+|these\s+|those\s+|its\s+)?(?:papers?|works?|orals|posters|index|collection)?\s*"
    r"(?:cover|covered|address|study|include|span)?\b|\b(?:most\s+(?:common|frequent|popular)|top)\s+(keywords)\b|"
    r"\b(?:which|what)\s+(?:primary\s+)?(areas?|tracks?|categor(?:y|ies)|decisions?)\s+"
    r"(?:have|has|hold|holds|get|gets|contain|contains)\b|\b(?:per|each|every|by)\s+(?:primary\s+)?"
    r"(area|track|category|decision)\b|\bbreak\s*down\b.*?\b(areas?|decisions?)\b|"
    # "What is the most common primary area?", "Which is the largest area?".
    r"\b(?:most|least)\s+(?:common|frequent|popular)\s+(?:primary\s+)?(areas?|tracks?|"
    r"categor(?:y|ies)|keywords?)\b|\b(?:largest|biggest|smallest)\s+(?:primary\s+)?(areas?|"
    r"tracks?|categor(?:y|ies))\b|\b(?:primary\s+)?(areas?|tracks?|categor(?:y|ies))\s+"
    r"(?:with|having|that\s+has|that\s+have)\s+the\s+(?:most|fewest|least|largest|smallest)\b",
    re.IGNORECASE,
)
_RANKING = re.compile(
    r"\b(?:the\s+)?(?:most|fewest|least|largest|highest|biggest|smallest|lowest)"
    r"(?:\s+(?:common|frequent|popular))?\b|\b(?:common|frequent|popular|among)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}
# "What is GRPO and which papers improve on it?": "it" is the topic written before it.
_BACK_REFERENCE = re.compile(
    r"(?:\s+(?:or|and|but))?\s+\w+(?:\s+(?:on|upon|over|to))?\s+(?:it|them)$", re.IGNORECASE
)


# "kv cache compression", "reward hacking": a topic typed as into a search box asks for the
# papers on it, as "papers on X" does.
_QUESTION_LEAD = re.compile(
    r"\W*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|has|have|tell|explain|describe|summari[sz]e|compare|give|show|list|find|"
    r"and|or|but|so|then|also|please|ok|okay|thanks?|hi|hello|yes|no|the|this|that|it)\b",
    re.IGNORECASE,
)


def _bare_topic(question: str) -> bool:
    """Whether the question is a short topic with no question words ("reward hacking")."""
    words = re.findall(r"[\w'’-]+", question)
    return 0 < len(words) <= 6 and not _QUESTION_LEAD.match(question) and "?" not in question


def _mark_relations(text: str) -> str:
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


def _rest_of(question: str, spans: list[tuple[int, int]], named: list[str]) -> str:
    """The question without its filter phrases and the names it writes."""
    rest = question
    for a, b in sorted(spans, reverse=True):
        rest = rest[:a] + " " + rest[b:]
    for name in named:
        rest = re.sub(re.escape(name), " ", rest, flags=re.IGNORECASE)
    return rest


def _clean(text: str) -> str:
    return " ".join(re.sub(r"[?!.,;:]+(\s|$)", " ", text).split())


_PASSIVE_TAIL = re.compile(rf"\s+(?:{_PASSIVE_AUX}\s+)?(?:newly\s+)?{_MADE}$", re.IGNORECASE)


def _topic(rest: str) -> str:
    """A list or count question's topic: its words without the question's frame."""
    rest = _FILLER.sub(" ", _SUBQUESTION.sub("", rest))
    topic = _FRAME.sub(" ", _mark_relations(rest))
    topic = re.sub(rf"\b({'|'.join(_NUMBER_WORDS)})\b", " ", topic, flags=re.IGNORECASE)
    # "Give me 5 papers on GNNs": how many to show (asked_count), not part of the topic.
    topic = re.sub(r"^\s*\d{1,2}(?=\s|$)", " ", topic)
    topic = _MARKED.sub(r"\1", topic).strip()
    # "propose reducing the KV cache": each leading verb.
    while (bare := re.sub(r"(?i)^of\s+", "", _LEAD_VERB.sub("", topic))) != topic:
        # "the use of LLMs for chemistry": what the verb's noun was of.
        topic = bare
    topic = _clean(re.sub(r"^(?:a|an)\s+", "", topic, flags=re.IGNORECASE))
    # "What benchmarks are introduced?": what introducing them says (introduced_kind).
    topic = _PASSIVE_TAIL.sub("", topic)
    if re.fullmatch(r"(?i)(?:these|those|them|they|this|it)", topic):
        # "What are these papers about?": every paper, not a topic "these".
        return ""
    return _BACK_REFERENCE.sub("", topic) if _BACK_REFERENCE.search(topic, 1) else topic


# "How many of them are orals?", "which of those are in the RL area?": the last list, narrowed
# (Plan.within, a follow-up).
_OF_THOSE = re.compile(r"\b(?:of\s+)?(?:them|those|these)\b", re.IGNORECASE)


def _narrowed(
    question: str, conversation: Conversation | None, filters: Filters, rest: str
) -> Plan | None:
    """A list or count over the last answer's papers, when the question narrows them; None
    otherwise. Only filters ("How many of them are orals?") keep the last list's topic; words
    of its own ("Which of those use a draft model?") are matched among the papers listed."""
    last = listed_turn(conversation)
    prev = last.answer.plan if last else None
    if last is None or prev is None or not _OF_THOSE.search(question):
        return None
    if (asked := listed_aspect(question)) and not asked[0]:
        # "What are the limitations of those papers?": each one's, not those writing the word.
        return None
    count = bool(re.search(r"\bhow\s+many\b", question, re.IGNORECASE))
    if not (count or re.match(r"\W*(?:which|what|list|show)\b", question, re.IGNORECASE)):
        return None
    own = _topic(_OF_THOSE.sub(" ", rest))
    kind = K.COUNT if count else K.LIST
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
        ids = (
            [p.paper_id for p in last.answer.papers]
            or [c.paper_id for c in last.answer.citations]
            # A narrowing that matched nothing: "those" are still the papers it looked in.
            or (prev.within if narrows(prev) else [])
        )
        if not ids:
            return None
        return Plan(kind=kind, topic=own, filters=filters, within=ids, follow_up=True)
    if not (filters.active() or count):
        return None
    if prev.kind in (K.COMPARE, K.RESULTS):
        # "Which of those are orals?" after a comparison or the results on a benchmark: the
        # papers it showed, not its topic matched again.
        ids = [p.paper_id for p in last.answer.papers] or [
            c.paper_id for c in last.answer.citations
        ]
        return Plan(kind=kind, topic="", filters=filters, within=ids, follow_up=True)
    # Only filters ("how many of them are orals?"): the last list's topic (and papers, when
    # it narrowed an earlier one), narrowed.
    merged = prev.filters.model_copy(
        update={k: v for k, v in filters.model_dump().items() if v is not None}
    )
    within = prev.within if narrows(prev) else []
    return Plan(kind=kind, topic=prev.topic, filters=merged, within=within, follow_up=True)


# "What is Muon?" then "Which papers improve on it?": "it" is the thing the last question asked
# about, when that named no paper (many papers use Muon).
_ASKED_ABOUT = re.compile(
    r"^\W*(?:what\s+(?:is|are|was|were)|what'?s|tell\s+me\s+about|explain|describe)\s+"
    r"(?:the\s+|an?\s+)?(?P<subject>[^?.!]{2,60}?)\s*[?.!]*$",
    re.IGNORECASE,
)
_IT_AT_END = re.compile(
    r"\b(?:it|them|this|that)(?:\s+(?:method|technique|idea|optimi[sz]er|model|approach))?"
    r"\s*[?.!]*$",
    re.IGNORECASE,
)


def _previous_subject(question: str, conversation: Conversation | None) -> str:
    """For "Which papers improve on it?", what "it" is: the subject of the last question when
    it asked what a thing is and named no paper; "" otherwise."""
    if not conversation or not conversation.turns or not _IT_AT_END.search(question):
        return ""
    last = conversation.turns[-1]
    plan = last.answer.plan
    m = _ASKED_ABOUT.match(last.question)
    # "What is message passing?" was looked up, or answered from the sentences defining it.
    if m is None or (
        plan is not None
        and (
            plan.paper_ids or ((plan.kind != K.LOOKUP or plan.follow_up) and plan.kind != K.DEFINE)
        )
    ):
        return ""
    return m["subject"].strip()


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


def _which_one(question: str, conversation: Conversation | None) -> Plan | None:
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


def _decision(question: str, catalog: Catalog) -> tuple[str | None, list[tuple[int, int]]]:
    for value in catalog.decisions:
        if m := re.search(rf"\b{re.escape(value)}s?\b", question, re.IGNORECASE):
            return value, [m.span()]
    if not catalog.decisions:
        # A collection without decisions (the sample): "How many orals are there?" asks for
        # one it cannot have, said so; "oral cancer" is a topic.
        m = re.search(
            r"\b(orals|posters|spotlights)\b|\b(oral|poster|spotlight)\s+(?:papers|presentations)\b",
            question,
            re.IGNORECASE,
        )
        if m:
            return (m.group(1) or m.group(2)).lower().removesuffix("s").capitalize(), [m.span()]
        return None, []
    for word in _DECISION_WORDS:
        if m := re.search(rf"\b{word}s?\b", question, re.IGNORECASE):
            return word.capitalize(), [m.span()]
    return None, []


# "Which benchmarks are most commonly used for LLM reasoning?": the named datasets, benchmarks
# or models the topic's abstracts write, by how many papers write each. A habit word is
# required: "Which datasets does Qronos use?" asks about one paper.
_USUAL = r"(?:most|more|commonly|common|often|frequently|widely|popular|typically|usually|standard)"
_CITED = r"(?:used|cited|mentioned|reported|adopted)"
_NAMES_GROUP = re.compile(
    rf"\b(?:(?:which|what)\s+(?:are\s+the\s+)?(?:{_USUAL}\s+)*(?:{_CITED}\s+)?|"
    rf"(?:the\s+)?(?:{_USUAL}|top)\s+(?:{_CITED}\s+)?)(?P<kind>datasets|benchmarks|models|baselines|llms)\b"
    rf"(?P<tail>(?:\s+(?:are|is|do|does|did|have|been|papers|they|works|people|researchers|"
    rf"authors|{_USUAL}))*(?:\s+(?:used|use|evaluated|evaluate|reported|report|tested|test|"
    rf"compared|adopted|chosen|mentioned))?(?:\s+(?:on|for|in|with|to|by|when|across))?"
    rf"(?:\s+(?:evaluating|evaluate|testing|test|benchmarking|measuring))?)",
    re.IGNORECASE,
)


# "Which datasets does the method that prunes GNNs use?": one paper, described.
_ONE_PAPER = re.compile(
    r"\b(?:the|this|that|a|one)\s+(?:paper|method|work|approach|model|framework|system|study|"
    r"authors?)\b|\b(?:it|its|they|their|them|he|she)\b",
    re.IGNORECASE,
)


# "What datasets do papers on GNNs use?", "Which benchmarks do RL papers evaluate on?": the
# names the topic's papers write, as a habit question asks.
_KINDS_USED = r"(?:datasets|benchmarks|baselines|models|llms|metrics)"
_USE = r"(?:use|evaluate\s+on|test\s+on|train\s+on|compare\s+(?:against|to|with)|rely\s+on)"
_NAMES_OF_PAPERS = (
    re.compile(
        rf"^\W*(?:which|what)\s+{_KINDS_USED}\s+(?:do|did)\s+(?:the\s+)?(?:papers?|works?|studies|"
        rf"methods)\s+(?:on|about|in|for)\s+(?P<topic>.+?)\s+{_USE}\W*$",
        re.IGNORECASE,
    ),
    re.compile(
        rf"^\W*(?:which|what)\s+{_KINDS_USED}\s+(?:do|did)\s+(?:the\s+)?(?P<topic>.+?)\s+"
        rf"(?:papers|works|studies|methods)\s+{_USE}\W*$",
        re.IGNORECASE,
    ),
)


def _group(question: str) -> tuple[GroupBy | None, list[tuple[int, int]]]:
    for frame in _NAMES_OF_PAPERS:
        if f := frame.search(question):
            # Everything but the topic is the frame.
            return "name", [(0, f.start("topic")), (f.end("topic"), len(question))]
    m = _NAMES_GROUP.search(question)
    if m and (
        re.search(rf"\b{_USUAL}\b|\btop\b", m.group(), re.IGNORECASE)
        # "What datasets are used for evaluating text-to-image models?": papers in general.
        or (
            m["kind"].lower() != "models"
            and re.search(r"\b(?:used|evaluated|tested|adopted)\b", m["tail"], re.IGNORECASE)
            and not _ONE_PAPER.search(question)
        )
    ):
        return "name", [m.span()]
    m = _GROUP.search(question)
    if not m:
        return None, []
    word = next(g for g in m.groups() if g).lower()
    if word.startswith(("keyword", "topic", "theme", "subject")):
        return "keyword", [m.span()]
    return ("decision" if word.startswith("decision") else "area"), [m.span()]


def _area(question: str, catalog: Catalog) -> tuple[str | None, list[tuple[int, int]]]:
    for m in _AREA.finditer(question):
        if m["after"]:
            # The area's name comes first and the topic may follow: the longest head that
            # names an area.
            words = list(re.finditer(r"[^\s,]+", m["after"]))
            for end in range(len(words), 0, -1):
                area = catalog.area_named(m["after"][: words[end - 1].end()])
                if area:
                    return area, [(m.start(), m.start("after") + words[end - 1].end())]
            continue
        phrase = m["quoted"] or m["before"] or ""
        words = phrase.split()
        # "papers in the RL area": try the longest tail that names an area.
        for start in range(len(words)):
            area = catalog.area_named(" ".join(words[start:]))
            if area:
                return area, [m.span()]
    return None, []


def _title(question: str) -> tuple[str | None, list[tuple[int, int]]]:
    m = _TITLE.search(question)
    if not m:
        return None, []
    value = next(g for g in m.groups() if g).strip()
    return value, [m.span()]


def _keyword(question: str) -> tuple[str | None, list[tuple[int, int]]]:
    m = _KEYWORD.search(question)
    if not m:
        return None, []
    value = (m.group(1) or m.group(2) or "").strip()
    return (value or None), ([m.span()] if value else [])


def find_names(question: str, catalog: Catalog, fuzzy: bool) -> tuple[list[str], list[str]]:
    """Names written in the question that the catalog knows: (names as written, paper ids)."""
    mentions = catalog.names.mentions(question, fuzzy)
    named = list(dict.fromkeys(m.text for m in mentions))
    ids = list(dict.fromkeys(pid for m in mentions for pid in m.ids))
    return named, ids


def rule_plan(question: str, catalog: Catalog, conversation: Conversation | None = None) -> Plan:
    """The plan read from the question's words and the catalog, without a model."""
    return complete_plan(_rule_plan(question, catalog, conversation), question, catalog)


def _rule_plan(question: str, catalog: Catalog, conversation: Conversation | None) -> Plan:
    spans: list[tuple[int, int]] = []
    decision, s = _decision(question, catalog)
    spans += s
    area, s = _area(question, catalog)
    spans += s
    group_by, s = _group(question)
    spans += s
    # "Which keywords are most common?" groups by keyword; it filters by none.
    keyword, s = _keyword(question) if group_by != "keyword" else (None, [])
    spans += s
    title, title_spans = _title(question)
    spans += title_spans
    least, s = min_rating(question)
    spans += s
    filters = Filters(decision=decision, area=area, keyword=keyword, title=title, min_rating=least)
    compare = bool(_COMPARE_LEAD.search(question))
    # 'Which papers have "Atlas" in the title?': a title filter, not the paper Atlas.
    unfiltered = _rest_of(question, title_spans, [])
    named, ids = find_names(unfiltered, catalog, fuzzy=compare)
    if ids and asks_metadata(question) and not compare:
        # "Is FinSearchComp an oral?" asks for its decision: "oral" filters nothing.
        filters = filters.model_copy(update={"decision": None})
    if not compare and _COMPARE_NAMED.search(question) and len(ids) >= 2:
        compare = True
        named, ids = find_names(unfiltered, catalog, fuzzy=True)
    elif not compare and not ids and _PAIR.search(question.strip()):
        # "Which is better for LLM quantization, GPTQ or AWQ?": no paper is either; the
        # papers best matching each stand for it.
        compare = True
    if ids and group_by in ("keyword", "name"):
        # "What are the main topics of Qronos?", "which benchmarks does SHAPO most often
        # use?": about the paper named, not a count over the collection.
        group_by = None
    if rating := None if ids or compare else read_rating(question):
        # "Which diffusion papers were rated best?", "which area has the best-rated papers?"
        topic = _topic(_rest_of(question, spans + rating.spans, named))
        return Plan(kind=K.RATING, topic=topic, filters=filters, **rating.fields())
    if not ids and (theme := theme_topic(question)) is not None:
        return Plan(kind=K.THEMES, topic=theme)  # one clustering of every paper: no filters
    if asks_citations(question) and not ids:
        return Plan(kind=K.CITATIONS, filters=filters)
    if who := _WHO_WORKS.match(question):
        spans.append(who.span())
    has_turns = bool(conversation and conversation.turns)
    which = _which_one(question, conversation)
    if which is not None:
        return which
    narrowed = _narrowed(question, conversation, filters, _rest_of(question, spans, named))
    if narrowed is not None and not compare:
        return narrowed
    more = None if ids or compare else _MORE.search(question)
    if more:
        a, b = (more["a"] or more["c"]), (more["b"] or more["d"])
        sides = [_topic(side) for side in (a, b)]
        if all(sides):
            return Plan(kind=K.MORE, topic=" or ".join(sides), filters=filters)
    subject = "" if ids else _previous_subject(question, conversation)
    if subject and _LIST.search(question) and not compare:
        # "Which papers improve on it?" after "What is Muon?": the papers on Muon.
        return Plan(kind=K.LIST, topic=subject, filters=filters)
    if compare:
        intent = "compare"
    elif has_turns and _FOLLOW.search(question):
        intent = "follow-up"
    elif _COUNT.search(question) or group_by:
        intent = "count"
    elif (
        _LIST.search(question) or _OVERVIEW.search(question) or _bare_topic(question) or who
    ) and not ids:
        intent = "list"
    elif ids:
        intent = "detail"
    else:
        intent = "lookup"
    if (
        intent == "detail"
        and len(ids) == 1
        and _SIMILAR.search(question)
        and re.search(rf"\b{_COLLECTION_NOUN}\b|^\W*(?:find|show|list)\b", question, re.IGNORECASE)
    ):
        # "Find papers similar to Qronos", "Which papers are related to SHAPO?".
        return Plan(kind=K.SIMILAR, named=named, paper_ids=ids, filters=filters)
    best = _BEST_ON.search(question)
    # "best accuracy for LLM inference": a name followed by more topic words is no benchmark.
    if best and re.match(r"\s+[a-z]", question[best.end() :]):
        best = None
    if best and not ids and intent in ("lookup", "list"):
        return Plan(
            kind=K.RESULTS,
            topic=best["name"].rstrip(".-"),
            filters=filters,
            # "beats GPT-4o on MathVista": the words are a rival, not a metric.
            metric=""
            if re.match(r"(?i)beat|outperform|surpass", best[0])
            else _metric(best["metric"]),
        )
    largest = next(
        (m for r in (_LARGEST, *_MEASURE_OF) if (m := r.search(question)) is not None), None
    )
    if largest and not ids and intent in ("lookup", "list"):
        measure = " ".join(largest["measure"].lower().replace("-", " ").split())
        # "Which paper has the largest speedup?": over the whole index.
        topic = _topic(_rest_of(largest["topic"], [], [])) if largest["topic"] else ""
        if topic or not largest["topic"]:
            return Plan(kind=K.RESULTS, topic=topic, filters=filters, measure=measure)
    define = (
        _DEFINE.match(question)
        if not (ids or compare or group_by) and intent in ("lookup", "list")
        else None
    )
    concept = (define["a"] or define["b"] or "").strip() if define else ""
    if concept and not _NOT_CONCEPT.search(concept) and len(concept.split()) <= 5:
        return Plan(kind=K.DEFINE, topic=concept, filters=filters)
    # Read without the filter words found above ("oral papers on X").
    aspect = None if ids or compare or group_by else listed_aspect(_rest_of(question, spans, []))
    if aspect:
        topic = _topic(aspect[0])
        if topic:
            return Plan(kind=K.LIST, topic=topic, filters=filters)
        if not aspect[0]:
            # "What are the limitations of these papers?": those listed last, else all.
            last = listed_turn(conversation)
            listed = (
                (
                    [p.paper_id for p in last.answer.papers]
                    or [c.paper_id for c in last.answer.citations]
                )
                if last
                else []
            )
            return Plan(kind=K.LIST, filters=filters, within=listed, follow_up=bool(listed))
    rest = _rest_of(question, spans, named)
    topic = _topic(rest) if intent in ("list", "count", "compare") else _clean(rest)
    if group_by:
        # "Which areas have the most papers?": the ranking is the table's, not a topic.
        topic = _clean(re.sub(_RANKING, " ", topic))
    if intent == "list" and who:
        kind = K.AUTHORS
    elif intent == "list":
        # "Papers on X" asks for a list in words: its loose matching stays; "X" typed alone
        # is a search.
        typed = _bare_topic(question) and not (_LIST.search(question) or _OVERVIEW.search(question))
        kind = K.SEARCH if typed else K.LIST
    elif intent == "count":
        kind = K.BREAKDOWN if group_by else K.COUNT
    elif intent == "compare":
        kind = K.COMPARE
    else:
        kind = K.METADATA if ids and asks_metadata(question) else K.DETAIL if ids else K.LOOKUP
    return Plan(
        kind=kind,
        topic=topic,
        filters=filters,
        named=named,
        paper_ids=ids,
        group_by=group_by if intent == "count" else None,
        follow_up=intent == "follow-up",
    )


# "What fraction of papers are about LLMs?": a count said with its share of the whole.
_SHARE = frozenset("fraction percentage share proportion percent".split())
# "Which papers were published by Google?": who wrote them, which the index may not hold.
_BY_WHOM = re.compile(
    r"\b(?:published|written|authored|co-authored|submitted)\s+by\b|\bby\s+(?:the\s+)?authors?\b|"
    r"\baffiliat\w*|\b(?:which|what)\s+(?:authors?|labs?|institutions?|universit(?:y|ies)|"
    r"companies|researchers)\b|\bauthors?\s+(?:of|from|at)\b|"
    # "from Stanford authors", "by DeepMind researchers".
    r"\b(?:from|at|by)\s+(?:\w+\s+){0,2}(?:authors?|researchers|labs?|universit(?:y|ies))\b",
    re.IGNORECASE,
)
_NAMES_KIND = re.compile(r"\b(datasets|benchmarks|models|baselines|LLMs)\b", re.IGNORECASE)


def complete_plan(plan: Plan, question: str, catalog: Catalog) -> Plan:
    """The plan with every field its answerer needs read from the question: the kind of
    sentence asked, how many papers to show, the resource asked for, a share or a breakdown,
    the sides of a comparison of topics. Fields already set (by a model) are kept."""
    kind = plan.kind
    if kind == K.COUNT and plan.group_by:
        kind = K.BREAKDOWN
    elif kind == K.COUNT and _SHARE & {t for t, _, _ in tokens(question)}:
        kind = K.SHARE
    if (
        kind.collection
        and kind != K.COMPARE
        and _BY_WHOM.search(question)
        and not any(p.authors for p in catalog.papers)
    ):
        # "Which papers were published by Google?": nowhere in the index, whatever the topic.
        return plan.model_copy(update={"kind": K.AUTHORS, "aspect": "authorship"})
    update: dict[str, object] = {"kind": kind}
    if not kind.collection:
        update["answer_type"] = plan.answer_type or question_type(question)
    elif kind == K.COMPARE:
        update["shown"] = plan.shown or wanted_count(question)
        if not plan.paper_ids and not plan.sides:
            update["sides"] = compared_sides(question)
    else:
        update["shown"] = plan.shown or asked_count(question)
        if not plan.aspect and (asked := listed_aspect(question)):
            update["aspect"] = asked[1]
        if not plan.resource and plan.group_by == "name":
            # "Which benchmarks are most used for X?": the kind of names counted.
            names = _NAMES_KIND.search(question)
            update["resource"] = names[1].lower() if names else ""
        elif not plan.resource:
            update["resource"] = introduced_kind(question)
    return plan.model_copy(update=update)


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


# "How many papers propose a new benchmark?": papers introducing one, not every paper that
# evaluates on benchmarks. Only made resources: every paper proposes a method.
_INTRODUCING = re.compile(
    r"\b(?:propos|introduc|present|releas|build|construct|creat|contribut|offer|curat)\w*\s+"
    rf"(?:a\s+|an\s+)?(?:new\s+|novel\s+)?(?:[\w-]+\s+)?(?P<kind>{_RESOURCE_KINDS})\b",
    re.IGNORECASE,
)


# "What benchmarks are introduced?", "Which datasets were released?": the passive.
_INTRODUCED = re.compile(
    rf"\b(?P<kind>{_RESOURCE_KINDS})\s+{_PASSIVE_AUX}\s+(?:newly\s+)?(?:propos|introduc|present|"
    r"releas|built|construct|creat|contribut|offer|curat)\w*",
    re.IGNORECASE,
)


def introduced_kind(question: str) -> str:
    """The kind of resource a list question asks papers to introduce ("benchmark" for "papers
    that propose a new benchmark", "what benchmarks are introduced"), or ""."""
    m = _INTRODUCING.search(question) or _INTRODUCED.search(question)
    return m["kind"].lower() if m else ""


def wanted_count(question: str) -> int:
    """How many papers "compare the two papers on X" asks for (2 when unsaid)."""
    m = re.search(rf"\b({'|'.join(_NUMBER_WORDS)}|\d)\b", question, re.IGNORECASE)
    if not m:
        return 2
    word = m.group(1).lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def asked_count(question: str) -> int | None:
    """How many papers a list question asks to see ("give me three papers on X"), if it says."""
    m = re.search(
        rf"\b({'|'.join(_NUMBER_WORDS)}|\d{{1,2}})\s+(?:\w+\s+)?{_COLLECTION_NOUN}\b",
        question,
        re.IGNORECASE,
    )
    if not m:
        return None
    word = m.group(1).lower()
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


class Planner:
    """Turns a question into a Plan: rules over the catalog, or a model's structured output."""

    def __init__(
        self,
        catalog: Callable[[], Catalog],
        llm: LLM | None = None,
        prompt: Prompt | None = None,
    ) -> None:
        self.catalog = catalog
        self.llm = llm
        self.prompt = prompt or load_prompt("plan")
        # The labelled questions marked few-shot (rag/examples.jsonl), shown to the model.
        self.examples = few_shot(load_examples())

    def plan(
        self, question: str, conversation: Conversation | None = None, use_model: bool = True
    ) -> Plan:
        """The plan of a question: the model's when one plans, else the rules'.

        A model reply that is not a valid plan falls back to the rules plan, marked
        `source="fallback"` with the reason; a provider error (bad key, server down) is
        raised, never hidden behind an offline plan.
        """
        catalog = self.catalog()
        rules = rule_plan(question, catalog, conversation)
        if (
            not use_model
            or self.llm is None
            or not hasattr(self.llm, "structured")
            # The model plans one question alone; narrowing the last list needs the
            # conversation, and the papers nearest a named one (or writing a benchmark's
            # results) are the catalog's to find.
            or rules.within
            or narrows(rules)
            or rules.kind
            in (K.SIMILAR, K.RESULTS, K.AUTHORS, K.MORE, K.CITATIONS, K.RATING, K.THEMES)
        ):
            return _referred(rules, question, conversation)
        prompt = self.prompt.render(
            decisions=", ".join(catalog.decisions) or "none",
            areas="; ".join(catalog.areas),
            examples=self.examples,
        )
        # Provider errors propagate: only a bad reply, not a bad provider, falls back.
        reply, usage = self.llm.structured(prompt, question, "plan", plan_schema())  # type: ignore[union-attr]
        try:
            plan = self._model_plan(reply, question, catalog, rules)
        except (ValidationError, ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, ValidationError):
                err = exc.errors()[0]
                reason = f"{'.'.join(map(str, err['loc']))}: {err['msg']}"
            else:
                reason = str(exc)
            reason = f"model plan rejected ({reason[:200]}); planned by rules"
            plan = rules.model_copy(update={"source": "fallback", "rejected": reason})
        plan.usage = usage
        return _referred(plan, question, conversation)

    def _model_plan(self, reply: str, question: str, catalog: Catalog, rules: Plan) -> Plan:
        """The model's reply as a Plan, checked against the catalog; raises when invalid."""
        try:
            data = json.loads(reply)
        except ValueError as exc:
            raise ValueError(f"the model's reply is not JSON: {reply[:80]!r}") from exc
        if not isinstance(data, dict):
            raise TypeError(f"the model's reply is not a JSON object: {reply[:80]!r}")
        plan = Plan.model_validate({**data, "source": "model", "rejected": "", "usage": None})
        f = plan.filters
        # The model's filter values must be the catalog's own, or they would match nothing.
        if f.decision and f.decision not in catalog.decisions:
            match = [d for d in catalog.decisions if d.lower() == f.decision.lower().rstrip("s")]
            if not match:
                raise ValueError(f"unknown decision {f.decision!r}")
            f.decision = match[0]
        if f.area and f.area not in catalog.areas:
            area = catalog.area_named(f.area)
            if area is None:
                raise ValueError(f"unknown area {f.area!r}")
            f.area = area
        ids: list[str] = []
        for name in plan.named:
            found = catalog.names.resolve(name) or catalog.names.find(name, fuzzy=True)
            ids.extend(i for i in found if i not in ids)
        if plan.kind in (K.COUNT, K.BREAKDOWN) and plan.group_by is None:
            plan.group_by = rules.group_by
        # The schema asks the model for decision, area and keyword; a title filter is read
        # from the words.
        f.title = f.title or rules.filters.title
        f.min_rating = f.min_rating or rules.filters.min_rating
        # Names the question writes are the catalog's facts, whatever the model noticed.
        plan.paper_ids = ids + [i for i in rules.paper_ids if i not in ids]
        return complete_plan(plan, question, catalog)


def _referred(plan: Plan, question: str, conversation: Conversation | None) -> Plan:
    """A comparison naming fewer than two papers compares the conversation's: "Compare both.",
    "compare the first and the third" (the papers a follow-up would resolve to); "compare it
    with PARD": the last answer's paper and the one named."""
    if plan.kind != K.COMPARE or len(plan.paper_ids) >= 2:
        return plan
    referred = heuristic_condense(question, conversation).paper_ids or []
    if plan.paper_ids and refers_back(question):
        referred = list(dict.fromkeys([*referred, *plan.paper_ids]))
    return plan.model_copy(update={"paper_ids": referred}) if len(referred) >= 2 else plan
