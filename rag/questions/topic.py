"""A question's topic, read by one rule: its words without the question's frame.

Also the sentence kind a question about a topic's papers asks for (listed_aspect) and the two
sides a comparison of topics sets against each other (compared_sides). The planner
(rag/questions/planner.py) calls these once the learned router has said what kind of question it is.
"""

from __future__ import annotations

import re

from rag.lexicon import Lexicon
from rag.models import AnswerType
from rag.questions.parts import question_parts
from rag.store.catalog import Catalog
from rag.text import content_terms, quoted_span, slip_of


def listed_aspect(question: str, lexicon: Lexicon) -> tuple[str, AnswerType] | None:
    """The topic and the kind of sentence a question about a topic's papers asks each for
    ("What challenges do papers on federated learning address?" -> problem), when it asks
    one; None otherwise. The topic is "" for "these papers" (the papers listed last).

    Two shapes, words of lexicon.aspect_words: "what are the <noun> of <topic|these papers>
    [according to the papers]" and "what|which [<noun>] do|did <subject> <verb>", the subject
    being these papers, papers on <topic> or <topic> papers."""
    words = question.split()
    if words:
        words[0], words[-1] = _trimmed(words[0], left=True), _trimmed(words[-1], left=False)
    written = [w for w in words if w]
    words = [w.lower() for w in written]
    if len(words) < 3 or words[0] not in ("what", "which"):
        return None
    if words[0] == "what" and words[1] in ("are", "were"):
        i, noun = lexicon.aspect_at(words, 3 if words[2] == "the" else 2)
        if noun is None or i >= len(words) or words[i] not in ("of", "in", "for", "with"):
            return None
        rest = words[i + 1 :]
        if words[i] in ("of", "in") and _these_papers(rest):
            return "", noun
        place = _place(rest, lexicon)
        return (" ".join(written[i + 1 : i + 1 + place]), noun) if place else None
    i, noun = lexicon.aspect_at(words, 1)
    if i >= len(words) or words[i] not in ("do", "did"):
        return None
    for end, verb in _verb_ends(words, lexicon):
        subject, said = words[i + 1 : end], written[i + 1 : end]
        kind = _kind(noun, verb, lexicon)
        if words[0] == "what" and end == len(words) - 1 and _these_papers(subject):
            return "", kind
        if subject[:1] == ["the"]:
            subject, said = subject[1:], said[1:]
        papers = lexicon.paper_nouns
        if len(subject) >= 3 and subject[0] in papers and subject[1] in _ABOUT_TOPIC:
            return " ".join(said[2:]), kind
        # "What do GNN papers propose?": a topic's papers (plural; "the X paper" is one).
        last = subject[-1] if subject else ""
        if end == len(words) - 1 and len(subject) >= 2 and last in papers and last[-1] == "s":
            return " ".join(said[:-1]), kind
    return None


# "papers on X", "papers about X": what links the papers to their topic.
_ABOUT_TOPIC = frozenset("on about in for of".split())


def _trimmed(word: str, left: bool) -> str:
    """A word without the punctuation at the question's edge ("challenges?" -> "challenges")."""
    marks = "".join(c for c in word if not (c.isalnum() or c == "_"))
    return word.lstrip(marks) if left else word.rstrip(marks)


def _verb_ends(words: list[str], lexicon: Lexicon) -> list[tuple[int, AnswerType]]:
    """Where an aspect verb closes the question, with its kind: last, or before "to <word>",
    "for it", "in it" ("What problems do papers on X aim to address for it?")."""
    found = []
    for at in (len(words) - 1, len(words) - 3):
        tail = words[at + 1 :]
        if at < 1 or (tail and not (tail[0] == "to" or tail in (["for", "it"], ["in", "it"]))):
            continue
        for kind, asked in lexicon.aspect_words.items():
            if words[at] in asked.verbs:
                found.append((at, kind))
    return found  # type: ignore[return-value]


def _kind(noun: str | None, verb: str, lexicon: Lexicon) -> AnswerType:
    """A problem noun or verb asks the problem, else a finding one the findings, else the
    contribution ("What methods do papers on X address?": the problems)."""
    for kind in lexicon.aspect_words:
        if kind in (noun, verb):
            return kind  # type: ignore[return-value]
    return "contribution"


def _these_papers(words: list[str]) -> bool:
    """Whether the words say the papers listed last: "these papers", "all of the papers"."""
    if words[:1] == ["all"]:
        words = words[2:] if words[1:2] == ["of"] else words[1:]
        words = words[1:] if words[:1] and words[0] in ("the", "these", "those") else words
        return words == ["papers"]
    return len(words) == 2 and words[0] in ("these", "those", "the") and words[1] == "papers"


def _place(words: list[str], lexicon: Lexicon) -> int:
    """How many words the topic before where it is read takes ("X according to the papers":
    1); 0 when the words do not end so."""
    if len(words) < 4 or words[-2] not in ("the", "these", "those"):
        return 0
    if words[-1] not in ("papers", "abstracts", "works"):
        return 0
    for place in lexicon.aspect_places:
        n = len(words) - 2 - len(place.split())
        if n > 0 and " ".join(words[n:-2]) == place:
            return n
    return 0


# Question frame words: how the question is asked, not what it is about.
_FRAME = re.compile(
    # Not "the sample complexity of …": a noun after it makes it the topic's word. "in sample":
    # the article is often left out.
    r"(?<![\w-])((?:in\s+(?:the\s+|this\s+)?|(?:the|this)\s+)"
    r"(?:sample|index|collection|corpus)"
    r"(?!\s+(?!(?:papers?|abstracts?|are|is|was|were|about|on|that|which|have|has|hold|"
    r"holds|mention|mentions|with|do|does)\b)[a-z])|"
    # "Which sample papers …": before a word for its papers, the collection without article.
    r"sample(?=\s+(?:papers?|abstracts?|collection)\b)|how\s+many|"
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


def _without_lead_verbs(words: list[str], lexicon: Lexicon) -> list[str]:
    """The words without each leading verb of the ask ("propose reducing the KV cache" ->
    "the KV cache", "evaluated on ImageNet" -> "ImageNet") and an "of" after one ("the use of
    LLMs": what the verb's noun was of); something always stays."""
    lead = lexicon.lead_verbs
    while True:
        low = [w.lower() for w in words]
        drop = 0
        if low and low[0] in lead["before_preposition"]:
            # "evaluated on", "tested extensively on".
            drop = next(
                (
                    k + 1
                    for k in (2, 1)
                    if k + 1 < len(low)
                    and low[k] in lead["prepositions"]
                    and (k == 1 or low[1].replace("_", "a").isalnum())
                ),
                0,
            )
        if not drop and low[:1] and low[0] in lead["owners"]:
            # "their own method against GRPO".
            k = 2 if low[1:2] == ["own"] else 1
            if k + 2 < len(low) and low[k] in lead["owned"] and low[k + 1] == "against":
                drop = k + 2
        if not drop and len(low) > 1 and low[0] in lead["verbs"]:
            drop = 1
        if low[drop : drop + 1] == ["of"] and drop + 1 < len(low):
            drop += 1
        if not drop or drop >= len(low):
            return words
        words = words[drop:]


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


def _unmarked(word: str) -> str:
    """A word mark_relations protected, as written ("__in__" -> "in")."""
    marked = len(word) > 4 and word.startswith("__") and word.endswith("__")
    return word[2:-2] if marked else word


def rest_of(question: str, spans: list[tuple[int, int]], named: list[str]) -> str:
    """The question without its filter phrases and the names it writes."""
    rest = question
    for a, b in sorted(spans, reverse=True):
        rest = rest[:a] + " " + rest[b:]
    for name in named:
        # A quoted title goes with its quotes.
        quoted = rf"[\"“”'‘’«»「」]?{re.escape(name)}[\"“”'‘’«»「」]?"
        rest = re.sub(quoted, " ", rest, flags=re.IGNORECASE)
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


def topic_of(
    rest: str,
    lexicon: Lexicon,
    marking: frozenset[str] = frozenset(),
    catalog: Catalog | None = None,
    whole_quote: bool = False,
) -> str:
    """A list or count question's topic: its words without the question's frame, the numbers
    it says, the words that mark questions rather than topics (`marking`, learned from the
    labelled corpus by eval/question_marking.py) and, with a catalog, the words its papers
    write but do not name topics with (`named`); with `whole_quote`, the phrase it quotes
    when it quotes one (a title it quotes is a name, out of `rest` already)."""
    if whole_quote and (quoted := quoted_span(rest)):
        return quoted
    # "… hallucination in VLMs, and what do they propose?": the second question is about the
    # list, not its topic.
    rest = _FILLER.sub(" ", _without_examples(question_parts(rest, lexicon)[0], lexicon))
    for start, end, _n in reversed(lexicon.numbers_in(rest)):
        # "Give me 5 papers on GNNs": how many to show (asked_count), not part of the topic.
        rest = rest[:start] + " " + rest[end:]
    topic = _FRAME.sub(" ", mark_relations(rest))
    topic = " ".join(_unmarked(w) for w in topic.split())
    # "propose reducing the KV cache": each leading verb.
    words = _without_lead_verbs(topic.split(), lexicon)
    words = clean(" ".join(words)).split()
    if catalog is not None:
        words = named(words, catalog, lexicon, marking)
    made = lexicon.contribution_stems
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
    return _without_back_reference(topic, lexicon)


def named(
    words: list[str], catalog: Catalog, lexicon: Lexicon, marking: frozenset[str]
) -> list[str]:
    """The words that name the topic ("problem of hallucination in LLMs" -> "hallucination in
    LLMs", "concern membership inference attacks" -> "membership inference attacks").

    A word goes when the collection writes it but names topics with it (in titles and
    keywords) less than lexicon.topic_keyness.share as often as with the question's most key
    word, or when it marks questions; unless papers name it with a neighbour ("code
    generation"). A word few papers write stays (an absent topic, a slip: read later; a rare
    word's keyness is noise, and dropping it widens the topic most), and so does every word
    in a small collection or one without titles or keywords. Function words stay only between
    two kept words with none dropped between them."""
    learned = lexicon.topic_keyness
    if len(catalog) < learned.min_papers:
        return words
    terms = [catalog.terms(w) for w in words]
    flat = [t for ts in terms for t in ts]
    top = max((catalog.keyness(t) for t in flat), default=0.0)
    if not top:
        return words
    pairs = set(zip(flat, flat[1:], strict=False))
    paired = {t for p in pairs if catalog.named_pairs.get(p, 0) >= learned.pair_papers for t in p}
    # Beside a typing slip of a written word ("protien design"), a word may pair with the
    # slip's correction (respelled later): it stays.
    slips = {t for t in flat if not catalog.df(t) and len(t) > 3 and slip_of(t, catalog.postings)}
    paired |= {t for a, b in pairs for t, other in ((a, b), (b, a)) if other in slips}

    # "talking" marks a question as "talk" does: a word whose stems all mark questions marks too.
    marking_terms = set(catalog.terms(" ".join(marking)))

    def kept(word: str, ts: list[str]) -> bool:
        if word.lower() in marking or all(t in marking_terms for t in ts):
            return any(t in paired for t in ts)
        return any(
            catalog.df(t) < learned.min_df
            or catalog.keyness(t) >= learned.share * top
            or t in paired
            for t in ts
        )

    keep = [kept(w, ts) if ts else None for w, ts in zip(words, terms, strict=True)]
    out = []
    for i, word in enumerate(words):
        if keep[i] is None:
            # A function word relates the kept words around it ("mixture of experts").
            before = next((k for k in reversed(keep[:i]) if k is not None), False)
            after = next((k for k in keep[i + 1 :] if k is not None), False)
            if not (before and after):
                continue
        elif not keep[i]:
            continue
        out.append(word)
    return out


def defined_part(text: str, lexicon: Lexicon) -> str:
    """A definition question from its opener ("what is", "explain") when other words come
    first: "wait what is quality diversity optimization?" asks "what is quality diversity
    optimization?", as "ok dumb question but what is flow matching" asks "what is flow
    matching": a definition's term follows its question words."""
    spans = lexicon.phrase_spans(text, tuple(lexicon.end_references["about_openers"]))
    if not spans or not text[: spans[0][0]].strip() or not content_terms(text[spans[0][1] :]):
        # "…, please explain?": an opener with nothing after it asks nothing of its own.
        return text
    return text[spans[0][0] :]


def _without_back_reference(topic: str, lexicon: Lexicon) -> str:
    """ "What is GRPO and which papers improve on it?": "it" is the topic written before it,
    so "GRPO and improve on it" is "GRPO"."""
    at = lexicon.ends_referring(topic)
    words = topic.split()
    if at is None or at != len(words) - 1:
        return topic
    links = lexicon.end_references["verb_links"]
    verb = at - 2 if at >= 3 and words[at - 1].lower() in links else at - 1
    if verb < 1 or not words[verb].replace("_", "a").isalnum():
        return topic
    start = verb - 1 if verb >= 2 and words[verb - 1].lower() in ("or", "and", "but") else verb
    return " ".join(words[:start])


# A side of a comparison without "compare" before it is a short phrase: a longer one describes
# a paper being looked up ("Which is better for LLM quantization, GPTQ or AWQ?").
_SIDE_WORDS = 4


def compared_sides(question: str, lexicon: Lexicon) -> list[list[str]]:
    """The topics a question sets side by side, each as its wordings to try in turn: "compare
    X and Y (papers) on Z" -> [["X on Z", "X"], ["Y on Z", "Y"]]; "the difference between X
    and Y", "X vs Y", "Which is better, X or Y?", "How does X compare to Y?" -> [["X"], ["Y"]].

    One reader over lexicon.comparison_words: the sides follow an opener ("compare",
    "difference between"), the comma of a question choosing one (split at "or"), or make the
    whole question (split at "vs"); the first separator after the first side's first word
    divides them. Sides not after "compare" are short phrases: a longer one describes a paper.
    """
    comparing = lexicon.comparison_words
    text = question_parts(question.strip(), lexicon)[0].strip().rstrip("?.!？").strip()
    words = text.split()
    low = [w.lower() for w in words]
    for found in (
        _after_opener(text, words, low, lexicon),
        _after_choosing_comma(words, low, comparing["choosing"]),
        _around_versus(words, low),
    ):
        if found is None:
            continue
        first, second, shared, short = found
        sides = [_side(" ".join(side), lexicon) for side in (first, second)]
        if all(sides) and not (short and not all(_short(side) for side in sides)):
            break
    else:
        return []
    common = _side(" ".join(shared[1:]), lexicon) if shared else ""
    if not common:
        return [[side] for side in sides]
    # The preposition stays: the matcher reads "X on Z" as X with Z, not as one phrase.
    prep = "on" if shared[0].lower() in ("about", "regarding") else shared[0].lower()
    return [[f"{side} {prep} {common}", side] for side in sides]


# (first side, second side, the shared subject's words, whether the sides must be short)
_Sides = tuple[list[str], list[str], list[str], bool]


def _after_opener(text: str, words: list[str], low: list[str], lexicon: Lexicon) -> _Sides | None:
    """ "Compare X and Y on Z", "the difference between X and Y", "How does X compare to Y?"."""
    comparing = lexicon.comparison_words
    opener = next(iter(lexicon.phrase_spans(text, comparing["openers"])), None)
    if opener is None:
        return None
    before = text[: opener[0]].split()
    if any(w.lower() in lexicon.paper_nouns for w in before):
        # "Which papers compare their method against GRPO?": papers comparing, a list.
        return None
    start = len(before) + len(text[opener[0] : opener[1]].split())
    asked = [w for w in before if w.lower() not in lexicon.question_words]
    seps = comparing["separators"]
    if asked and start < len(words) and low[start] in seps:
        # "How does DPO compare to PPO?": the first side before the opener.
        return asked, _clause(words[start + 1 :], lexicon), [], True
    sides = _split_at(words[start:], low[start:], seps)
    if sides is None:
        return None
    first, second = sides[0], _clause(sides[1], lexicon)
    if "between" in text[opener[0] : opener[1]].lower():
        return first, second, [], True
    second, shared = _shared(second, comparing["shared"])
    return first, second, shared, False


def _after_choosing_comma(
    words: list[str], low: list[str], choosing: tuple[str, ...]
) -> _Sides | None:
    """ "Which is better for LLM quantization, GPTQ or AWQ?": the sides after the comma."""
    comma = next((i for i, w in enumerate(low) if w.endswith(",")), None)
    if comma is None or not any(w.strip(",") in choosing for w in low[: comma + 1]):
        return None
    sides = _split_at(words[comma + 1 :], low[comma + 1 :], ("or",))
    return None if sides is None else (*sides, [], True)


def _around_versus(words: list[str], low: list[str]) -> _Sides | None:
    """ "GPTQ vs AWQ": the whole question around its "vs"."""
    at = next((i for i, w in enumerate(low) if w in ("vs", "vs.", "versus")), None)
    return None if not at else (words[:at], words[at + 1 :], [], True)


def _short(side: str) -> bool:
    """A side of at most four plain words (letters, digits and . + / - only)."""
    words = side.split()
    return len(words) <= _SIDE_WORDS and all(c.isalnum() or c in "_.+/-" for w in words for c in w)


def _clause(words: list[str], lexicon: Lexicon) -> list[str]:
    """The words up to a comma before a question word ("Y, what is similar?" -> "Y")."""
    for i, word in enumerate(words[:-1]):
        if word.endswith(",") and words[i + 1].lower() in lexicon.question_words:
            return [*words[:i], word.rstrip(",")]
    return words


def _split_at(
    words: list[str], low: list[str], seps: tuple[str, ...]
) -> tuple[list[str], list[str]] | None:
    """The words before and after the first separator past the first word; None without."""
    at = next((i for i in range(1, len(low) - 1) if low[i] in seps), None)
    return None if at is None else (words[:at], words[at + 1 :])


def _shared(words: list[str], preps: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """A second side and the subject both share after it ("Y on Z": (["Y"], ["on", "Z"]))."""
    at = next((i for i in range(1, len(words) - 1) if words[i].lower() in preps), None)
    return (words, []) if at is None else (words[:at], words[at:])


def _side(text: str, lexicon: Lexicon) -> str:
    """A compared side as a topic: "papers on LoRA" -> "LoRA", "DPO according to the papers"
    -> "DPO"."""
    at = text.lower().find("according to")
    words = (text[:at] if at >= 0 else text).split()
    fillers = lexicon.comparison_words["fillers"]
    words = [w for w in words if w.lower() not in fillers]
    if words and words[0].lower() in (*lexicon.comparison_words["shared"], "of"):
        words = words[1:]
    return " ".join(words)
