"""Whether an abstract holds the detail a question asks for: a number, named datasets, a
speedup, the paper's own limitations. A named paper whose abstract lacks it is said to."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rag.cues import Cues
from rag.lexicon import Lexicon
from rag.models import AnswerType, Plan, QuestionPart
from rag.retrieval.support import SentenceScore
from rag.text import content_terms

# A number as a word of a sentence: "635", "1,000", "$5", "7B", "40%".
_NUMBER_WORD = re.compile(r"\$?\d[\d,.]*\$?[kKmMbB+%]?")


# What a collection of data is counted in.
SIZE_UNITS = frozenset(
    content_terms(
        "pairs samples examples instances items questions problems images videos hours "
        "tokens documents sentences trajectories episodes conversations dialogues annotations "
        "clips scenes programs functions prompts"
    )
)


@dataclass(frozen=True)
class Asked:
    """What a detail question asks beyond its answer type, read once from its words with the
    lexicon: how much more (a comparative), how much faster, the amount of a change, how big
    a collection is, how many (first), what a named paper uses."""

    more: bool = False
    speed: bool = False
    change: bool = False
    size: bool = False
    how_many: bool = False
    how_many_first: bool = False
    usage: bool = False  # asks what a named paper was evaluated on: the abstract must name it
    # Who wrote it, when it was published: what no abstract states.
    never_stated: bool = False
    own_limits: bool = False  # its own limitations, which few abstracts state
    # The verb of making the question asks with, as a stem ("introduc" of "which components
    # does AtlasKV introduce?"): the paper's own "we introduce …" sentence answers it.
    made: str = ""
    # The question word opening the focus ("how many") and the focus' words ("GPUs were used").
    focus: tuple[str, tuple[str, ...]] | None = None


def read_asked(question: str, qtype: AnswerType, lexicon: Lexicon, usage: bool) -> Asked:
    """The Asked of a question (a part of one) of answer type `qtype`; `usage`: an entities
    question about a named paper."""
    words = [w.strip("?.,!;:\"'()") for w in question.lower().split()]
    pairs = list(zip(words, words[1:], strict=False))
    # "how much faster", "by how much better": a comparative right after "much".
    more = next((b for a, b in pairs if a == "much" and b in lexicon.comparative_words), "")
    number = qtype == "number"
    return Asked(
        more=bool(more),
        speed=more in lexicon.measures["speedup"].question,
        # "How much does InSight-o3 improve?", "by what margin does it cut memory?".
        change=number
        and bool({"much", "margin", "factor"} & set(words))
        and any(_inflects(w, lexicon.change_words) for w in words),
        # "How big is the InternSpatial dataset?", "the size of …".
        size=bool({"size", "sizes"} & set(words))
        or any(a == "how" and b in lexicon.size_words for a, b in pairs),
        how_many=("how", "many") in pairs,
        how_many_first=words[:2] == ["how", "many"],
        # "Which models did they evaluate?": an evaluated thing, then a word of evaluating.
        usage=usage and _evaluated(words, lexicon),
        never_stated=lexicon.asks_catalog(question, "authors")
        or (lexicon.asks_catalog(question, "date") and lexicon.asks_catalog(question, "dated")),
        # "What are the limitations of NRGPT?": the paper's own; the limitations of prior work
        # that its scene-setting sentences list do not answer it.
        own_limits=bool(lexicon.phrase_spans(question, lexicon.limitation_words)),
        made=next((v for w in words for v in lexicon.contribution_stems if _inflects(w, (v,))), ""),
        focus=_focus(question, lexicon),
    )


def _focus(question: str, lexicon: Lexicon) -> tuple[str, tuple[str, ...]] | None:
    """The first focus opener ("how many", "which", "what is the") the question writes with
    the up to five words after it, up to a punctuation mark; None when none does."""
    for start, end in lexicon.phrase_spans(question, lexicon.focus_openers):
        if not question[end : end + 1].isspace():
            continue
        words: list[str] = []
        for token in question[end:].split()[:5]:
            head = token[: next((i for i, c in enumerate(token) if not _word_char(c)), None)]
            if head:
                words.append(head)
            if not head or head != token:
                break
        if words:
            return question[start:end], tuple(words)
    return None


def _word_char(c: str) -> bool:
    return c.isalnum() or c in "_-"


def _evaluated(words: list[str], lexicon: Lexicon) -> bool:
    """Whether the words ask what something was evaluated on: an evaluated thing ("models")
    followed by a word of evaluating ("tested", "use")."""
    things = [i for i, w in enumerate(words) if w in lexicon.evaluated_things]
    return bool(things) and any(
        w.startswith(lexicon.evaluation_stems) for w in words[things[0] + 1 :]
    )


def _inflects(word: str, bases: frozenset[str]) -> bool:
    """Whether a word is a base form or a regular inflection of one ("cuts", "improved")."""
    return any(word.startswith(b) and len(word) - len(b) <= 2 for b in bases)


def counts(sentence: str, counted: frozenset[str], cues: Cues) -> bool:
    """Whether a number in the sentence counts one of the stems ("635 questions", "three
    tasks", "20 MCP attack types", "870 web-based data science tasks": the noun within four
    words after the number; "the generation steps from 256 to 20": the noun before it, with
    no other content word between)."""
    words = sentence.split()
    quantity = cues.words("quantity_words")
    for i, w in enumerate(words):
        # "33\%": abstracts keep LaTeX's escapes; "*130K*", "$512$": and their emphasis
        # and maths marks.
        word = w.strip("(),;:*_$").replace("\\", "")
        if _NUMBER_WORD.fullmatch(word) or word.lower() in quantity:
            after = " ".join(words[i + 1 : i + 5])
            if counted & set(content_terms(after)):
                return True
            before = [set(content_terms(b)) for b in words[max(0, i - 3) : i]]
            while before and not before[-1]:
                before.pop()
            if before and counted & before[-1]:
                return True
    return False


def parameter_count(text: str) -> bool:
    """Whether a text states a model's size as abstracts write it, a parameter count: "7B",
    "(160M–6.9B)", "Llama-3-8B", "the 1.4B scale" (not "5MB")."""
    pieces = "".join(c if c.isalnum() or c == "." else " " for c in text).split()
    return any(
        len(p) > 1 and p[-1] in "MB" and p[:-1].replace(".", "", 1).isdigit()
        for p in (piece.rstrip(".") for piece in pieces)
    )


def detail_sentences(
    question: str,
    qtype: AnswerType,
    ranked: Sequence[SentenceScore],
    name_words: set[str],
    asked: Asked,
    cues: Cues,
) -> list[SentenceScore]:
    """The sentences of `ranked` (in its order) that state the asked detail; [] when the
    abstract lacks it.

    The detail is the question's focus phrase ("how many GPUs", "what perplexity", "which
    software license"): an abstract with no sentence of the asked kind using a word of it
    lacks it, and so does one that never uses both words of a two-word detail ("learning
    rate"). Questions about the contribution or the findings ask for the abstract's
    substance, which every abstract states: every sentence may.
    """
    if asked.never_stated:
        return []
    if qtype in ("contribution", "finding", "problem"):
        return list(ranked)
    if qtype == "number" and asked.size:
        # "What model sizes were they tested at?" is answered by "on the Pythia suite
        # (160M–6.9B)", "How big is InternSpatial?" by "12 million QA pairs": a size, whatever
        # word the question used for it.
        sized = [
            s for s in ranked if parameter_count(s.text) or counts(s.text, SIZE_UNITS, cues)
        ]
        if sized:
            return sized
    if asked.own_limits:
        return [s for s in ranked if _OWN_LIMIT.search(s.text)]
    if asked.usage:
        naming = [
            s
            for s in ranked
            if any(m.group().lower() not in name_words for m in _NAMED_THING.finditer(s.text))
            or cues.says("model_families", s.text)
        ]
        # "Which models did they evaluate?": an abstract naming no model, dataset or benchmark
        # ("extensive experiments show …") does not say, whatever sentence mentions "models";
        # one naming them where it is evaluated ("we validate on PENS, OpenAI-Reddit and
        # PersonalSum", "experiments on LLaMA, Mistral and Qwen") does, whatever it calls them.
        if not naming:
            return []
        evaluated = [s for s in naming if cues.says("evaluation", s.text)]
        if evaluated:
            return evaluated
    # (words, whole): a compound is judged as the question wrote it, before generic words go.
    generic = GENERIC_FOCUS | (_QUANTITY if qtype == "number" else frozenset())
    # A compound's own words must all be used ("RAG benchmarks"), before synonyms join it.
    groups = [
        (g - generic, frozenset(g - generic) if _compound(g) else frozenset())
        for g in focus_terms(asked, name_words)
    ]
    # "What benchmark does UFEval introduce?" is answered by "we introduce FRABench, a …
    # dataset": the words for a made collection of data stand for one another.
    groups = [(g | _RESOURCE if g & _RESOURCE else g, whole) for g, whole in groups]
    groups = [(g, whole) for g, whole in groups if g]
    if any(g & COMPONENT_TERMS for g, _whole in groups) and (
        composed := [s for s in ranked if cues.says("composed", s.text)]
    ):
        # "What are the components of KVTC?": "KVTC combines …" names them.
        return composed
    speed = [s for s in ranked if cues.states_amount(s.text) and cues.says("speed", s.text)]
    if qtype == "number" and any(g & SPEED_TERMS for g, _whole in groups):
        # "What speedup does it report?" is answered by "up to 5× faster", which never writes
        # "speedup".
        return speed
    if not groups:
        if qtype == "number" and not any(cues.says("number", s.text) for s in ranked):
            # "How many parameters does LDT use?" ("parameter" is in its DPU's name): an
            # abstract stating no number does not say.
            return []
        if asked.change:
            # "How much does InSight-o3 improve?": a number on a change, not "o3 only obtains
            # 42.8% accuracy" (another system's score).
            return [s for s in ranked if cues.states_amount(s.text) and cues.says("change", s.text)]
        # "How much faster is it?": only a number on a result answers it, not "three major
        # categories"; on speed, not "a 128K-token context window … outperforms".
        if asked.speed:
            return speed
        if not asked.more:
            return list(ranked)
        return [s for s in ranked if cues.reports_result(s.text)]
    if asked.made and not any(g & _RESOURCE for g, _whole in groups):
        made = [
            s
            for s in ranked
            if cues.contributes(s.text)
            and any(w.startswith(asked.made) for w in s.text.lower().split())
        ]
        if made:
            # "Which components does AtlasKV introduce?": "we introduce KG2KV and HiKVP" says,
            # whatever it calls them; what a made dataset is called is judged below.
            return made
    if any(g & _BASELINE for g, _whole in groups) and (
        compared := [s for s in ranked if _COMPARED.search(s.text)]
    ):
        # "Which baselines does MOAI compare against?": "compared to … THOR" names them.
        return compared
    sentences = [(s, set(content_terms(s.text))) for s in ranked]
    used = set().union(*(terms for _s, terms in sentences))
    wholes = [g for g, whole in groups if whole <= used]
    return [
        s
        for s, terms in sentences
        if any(g & terms for g in wholes) and (qtype != "number" or cues.has_cue(qtype, s.text))
    ]


# Heads that a result goes by loosely: "retrieval gains" may be reported as "improves … by".
_LOOSE_HEADS = frozenset(
    content_terms("gain gains improvement improvements result results performance score scores")
)


_BASELINE = frozenset(content_terms("baseline baselines"))


COMPONENT_TERMS = frozenset(
    content_terms("component components module modules part parts element elements ingredients")
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
    Longer phrases describe the detail ("the face-editing dataset released"); any word does, as
    in "model components", which asks for parts of the model whatever the abstract calls them."""
    return len(group) == 2 and not group & (_LOOSE_HEADS | COMPONENT_TERMS)


# Focus words that ask for the abstract's substance, not a detail it may lack.
GENERIC_FOCUS = frozenset(
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


# "How large is …": the adjective is the focus, whatever verb follows.
_HOW_ADJECTIVES = ("large", "big", "long", "fast", "well")


_SKIP = frozenset(
    "is are was were does do did the a an of it its they their this that these those be been "
    "kind kinds type types sort sorts of".split()
)


def focus_terms(asked: Asked, name_words: set[str] | None = None) -> list[set[str]]:
    """Stems of the noun phrase a detail question asks about ("how many GPUs were used"), one
    set per alternative ("which datasets or benchmarks": {dataset}, {benchmark})."""
    if asked.focus is None:
        return []
    opener, focus = asked.focus
    words = list(focus)
    if (
        words
        and words[0].lower() in _STOP_PHRASE
        and opener.lower().split()[:2] not in (["how", w] for w in _HOW_ADJECTIVES)
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


# Named models, datasets and benchmarks: "Llama3", "GPT-4", "CIFAR-10", "ImageNet", "MuJoCo",
# "LLaMA", "D4RL", "THOR"; not the field's acronyms ("LLMs", "KD").
_NAMED_THING = re.compile(
    r"\b(?:[A-Z]+[a-z]+[A-Z][\w-]*|[A-Za-z]+-?\d[\w.-]*|"
    r"(?!(?:[LM]?LLM|L?VLM|NLP|SOTA|GPU|CPU|TPU|API|DNN|CNN|RNN|GNN|MLP)s?\b)"
    r"[A-Z]{3,}s?)\b"
)


SPEED_TERMS = frozenset(
    content_terms("speedup speed faster slower quicker acceleration latency throughput runtime")
)


def with_antecedent(
    picks: list[SentenceScore], ranked: Sequence[SentenceScore], cues: Cues
) -> tuple[list[SentenceScore], list[SentenceScore]]:
    """The picks with the sentence before one that refers back to the problem ("this
    limitation"), and the sentences that state the problem (the lead's)."""
    by_index = {s.index: s for s in ranked}
    added = [
        by_index[s.index - 1]
        for s in picks
        if cues.says("anaphoric_problem", s.text) and s.index - 1 in by_index
    ]
    merged = sorted({s.index: s for s in [*picks, *added]}.values(), key=lambda s: s.index)
    return merged, added or picks


def main_part(question: str, plan: Plan) -> tuple[QuestionPart, list[QuestionPart]]:
    """The part of the question whose detail the answer is judged on (the first asking more
    than what the paper does), and the other parts; the question itself when it asks one."""
    if not plan.parts:
        return QuestionPart(text=question, answer_type=plan.answer_type or "general"), []
    broad = ("contribution", "general")
    primary = next((p for p in plan.parts if p.answer_type not in broad), plan.parts[0])
    return primary, [p for p in plan.parts if p is not primary]
