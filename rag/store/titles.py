"""Names an abstract coins and the display title of an untitled abstract, read from its text."""

from __future__ import annotations

import re
from collections.abc import Iterator

from rag.cues import Cues
from rag.models import normalize_text
from rag.store.chunking import split_sentences
from rag.store.markup import plain
from rag.text import ENUMERATOR

MAX_TITLE_CHARS = 100
FALLBACK_TITLE_CHARS = 80


def derive_title(abstract: str, cues: Cues) -> str:
    """Display title for an untitled abstract: the name it introduces, else its first sentence."""
    text = normalize_text(plain(abstract))
    return (
        _introduced_name(text, cues)
        or _named_name(text, cues)
        or _appositive_name(text)
        or _contribution_title(text, cues)
        or _first_sentence_title(text)
    )


_TOKEN = r"[A-Z][\w+]*(?:[-.][\w+]+)*"
_NAME = rf"{_TOKEN}(?:\s+{_TOKEN}){{0,5}}"
# What may follow a name: punctuation, an em dash written as '---', or the sentence end.
_AFTER_NAME = r"""(?=["”'’`]*\s*(?:[,:;(—–]|-{2,3}|\.(?:\s|$)|$))"""
# A name where one starts, after "we propose" or, opened by "as" or quotes, after "called";
# then what it may spell out in parentheses ("TRACE (Truncated Reasoning AUC Evaluation)").
_NAME_AT = re.compile(rf"(?:as\s+)?[\"“'`]*({_NAME}){_AFTER_NAME}(?:\s*\(([^()]{{3,100}})\))?")
# "(SSPO)", "(MCP-Bench)": two capitals at least, hyphenated parts allowed.
# "(SSPO)", "(ARC-JSD)", and one led by a small letter: "(qTTT)".
_ACRONYM = r"\(([A-Za-z][\w]*[A-Z][\w]*(?:-[\w]+)*)\)"
_INTRO_ACRONYM = re.compile(rf"([^()\[\].,;:!?]{{3,100}}?)\s*{_ACRONYM}")
_ACRONYM_IN_PARENS = re.compile(_ACRONYM)
_APPOSITIVE = re.compile(
    rf"(?<![^\s\"“'`(])({_TOKEN}),\s+(?:the\s+first|a\s+novel|a\s+new|an?\s+(?:[\w-]+\s+){{0,4}}?"
    r"(?:framework|benchmark|dataset|method|model|algorithm|system|approach|suite|library"
    r"|toolkit|agent|architecture|pipeline|technique)\b)"
)
_NOT_NAMES = frozenset(
    "A An The This These That Our In To For On We It Its Here However Moreover Finally".split()
)
_LEADING_FILLER = frozenset("a an the our novel new simple first".split())


def _is_name(name: str) -> bool:
    """Whether a capitalised phrase can be a proper name rather than an ordinary word."""
    return name.split()[0] not in _NOT_NAMES and len(name) >= 2


def _looks_coined(name: str) -> bool:
    """Whether a word looks invented (CamelCase, acronym, digits) rather than English."""
    return sum(c.isupper() for c in name) >= 2 or any(c.isdigit() for c in name)


def _past_space(text: str, pos: int) -> int:
    """Where the text goes on after the whitespace at pos."""
    return len(text) - len(text[pos:].lstrip())


def _introductions(text: str, cues: Cues) -> list[int]:
    """Where what each 'we propose', 'this paper introduces' introduces starts."""
    return [
        pos
        for m in cues.pattern("introducing").finditer(text)
        if (pos := _past_space(text, m.end())) > m.end()
    ]


def _named(text: str, cues: Cues) -> Iterator[re.Match[str]]:
    """Each name after 'named', 'called', 'coined', 'dubbed' or 'termed' (not 'so-called')."""
    for m in cues.pattern("naming").finditer(text):
        pos = _past_space(text, m.end())
        if m.group().islower() and text[m.start() - 1 : m.start()] != "-" and pos > m.end():
            if name := _NAME_AT.match(text, pos):
                yield name


def _introduced_name(text: str, cues: Cues) -> str:
    """Name after 'we introduce/propose/present ...', as 'ACRONYM: Expansion' when spelled out."""
    for pos in _introductions(text, cues):
        if acronym := _INTRO_ACRONYM.match(text, pos):
            short = acronym.group(2)
            words = acronym.group(1).split()
            while words and words[0].lower() in _LEADING_FILLER:
                words.pop(0)
            expansion = long_form(short, " ".join(words))
            if expansion is None:
                # Letters that do not spell the phrase out: the acronym is a coined name.
                return short
            # An expansion of only the phrase's tail ('a framework for differential privacy
            # (DP)') names a topic, not the contribution; one leading adjective is allowed.
            # Before a noun, as in 'a reinforcement learning (RL) framework', only a
            # capitalised expansion is the contribution's name.
            before_noun = text[acronym.end() : acronym.end() + 2].strip()[:1].islower()
            if len(words) - len(expansion.split()) <= 1 and (
                expansion[0].isupper() or not before_noun
            ):
                return _with_expansion(short, expansion)
        if (name := _NAME_AT.match(text, pos)) and _is_name(name.group(1)):
            spelled = name.group(2)
            if spelled and long_form(name.group(1), spelled) == spelled:
                return _with_expansion(name.group(1), spelled)
            return name.group(1)[:MAX_TITLE_CHARS]
    return ""


def _with_expansion(short: str, expansion: str) -> str:
    """'SHORT: Long form', or just the short name when that would be too long for a title."""
    title = f"{short}: {expansion}"
    return title if len(title) <= MAX_TITLE_CHARS else short[:MAX_TITLE_CHARS]


def long_form(short: str, phrase: str) -> str | None:
    """Shortest tail of phrase that spells out the acronym (Schwartz & Hearst, 2003), or None."""
    s, p = len(short) - 1, len(phrase) - 1
    while s >= 0:
        char = short[s].lower()
        if not char.isalnum():
            s -= 1
            continue
        # The acronym's first letter must start a word; the others may sit anywhere.
        while p >= 0 and (
            phrase[p].lower() != char or (s == 0 and p > 0 and phrase[p - 1].isalnum())
        ):
            p -= 1
        if p < 0:
            return None
        s, p = s - 1, p - 1
    start = phrase.rfind(" ", 0, p + 1) + 1
    return phrase[start:].lstrip("$({[\"“'`").rstrip("$\"”'’`")


def _named_name(text: str, cues: Cues) -> str:
    """Name after 'named', 'called', 'coined', 'dubbed' or 'termed'."""
    for match in _named(text, cues):
        if _is_name(match.group(1)):
            return match.group(1)[:MAX_TITLE_CHARS]
    return ""


def _appositive_name(text: str) -> str:
    """Coined name followed by ', the first ...' or ', a novel ...' or ', a <kind of system>'."""
    for match in _APPOSITIVE.finditer(text):
        if _is_name(match.group(1)) and _looks_coined(match.group(1)):
            return match.group(1)[:MAX_TITLE_CHARS]
    return ""


def introduced_names(abstract: str, cues: Cues) -> list[str]:
    """Every short name an abstract coins, as written: "we propose X", "called X", "X, a new …",
    and "Long Phrase (LP)" in a sentence that says what the authors made."""
    text = normalize_text(plain(abstract))
    found: list[str] = []
    for sentence in split_sentences(text):
        intros = _introductions(sentence, cues)
        for pos in intros:
            if name := _NAME_AT.match(sentence, pos):
                found.append(name.group(1))
            # "we introduce (i) PairFS-4K, …, (ii) HumanRob-300, … and (iii) …": each item.
            # Each item's name is one word: "(i) PairFS-4K,", not "(ii) Joint Training,".
            for item in ENUMERATOR.finditer(sentence, pos):
                if (name := _NAME_AT.match(sentence, item.end())) and len(name[1].split()) == 1:
                    found.append(name[1])
        if intros:
            # An acronym spelled out in the contribution sentence is the contribution's; one
            # spelled out elsewhere is usually the field's ("reinforcement learning (RL)").
            # So is one the abstract goes on to use, however loosely it spells the phrase:
            # "a Reweighting-based Iterative DEcoding (OverRIDE) approach … OverRIDE increases".
            for m in _ACRONYM_IN_PARENS.finditer(sentence):
                phrase = re.split(r"[()\[\].,;:!?]", sentence[max(0, m.start() - 100) : m.start()])
                reused = len(re.findall(rf"(?<![\w-]){re.escape(m.group(1))}(?![\w-])", text)) > 1
                # "… Attribute Response to Context (ARC-JSD)": the part before a hyphen may
                # be all the phrase spells, the rest naming the variant.
                heads = {m.group(1), m.group(1).split("-")[0]}
                if reused or any(long_form(h, phrase[-1].strip()) for h in heads if len(h) > 1):
                    found.append(m.group(1))
    found += [m.group(1) for m in _named(text, cues)]
    found += [m.group(1) for m in _APPOSITIVE.finditer(text)]
    return [n for n in dict.fromkeys(found) if _is_name(n)]


# What the authors say they did, strongest first: a made thing beats a studied question.
_CONTRIBUTION_VERBS = (
    r"introduc(?:e|es|ing)|propos(?:e|es|ing)|present(?:s|ing)?|develop(?:s|ing)?",
    r"study|studies|studying|investigat(?:e|es|ing)|address(?:es|ing)?|analy[sz](?:e|es|ing)",
    r"evaluat(?:e|es|ing)|prove|show|demonstrate",
)
_CONTRIBUTION_OBJECT = r"\s+(?:(?:here|also|first|further|comprehensively|systematically)\s+)?"


def _unframed(phrase: str, cues: Cues) -> str:
    """The phrase without its article and frame: "the concept of X" -> "X"."""
    for frame in ("title_articles", "title_frame"):
        m = cues.pattern(frame).match(phrase)
        if m and (pos := _past_space(phrase, m.end())) > m.end():
            phrase = phrase[pos:]
    return phrase


def _contribution_title(text: str, cues: Cues) -> str:
    """What the abstract says it contributes, as a short phrase ('Temporal superposition')."""
    for verbs in _CONTRIBUTION_VERBS:
        pattern = re.compile(
            rf"(?:\b(?:we|this\s+(?:paper|work|study)|and)|,)\s*(?:\w+ly\s+)?(?:{verbs})"
            rf"{_CONTRIBUTION_OBJECT}(?P<how>how\s+)?(?:that\s+|whether\s+)?"
            r"([^.;:!?]{8,}?)(?=[.;:!?,]|$)",
            re.IGNORECASE,
        )
        for m in pattern.finditer(text):
            phrase = _unframed(m.group(2).strip(), cues)
            if m.group("how"):
                phrase = "How " + phrase
            # Where the phrase may be cut short and still read as a title: before "using".
            cuts = [
                len(phrase[: c.start()].rstrip())
                for c in cues.pattern("title_cut").finditer(phrase)
                if c.group().islower() and phrase[c.start() - 1 : c.start()].isspace()
            ]
            while len(phrase) > FALLBACK_TITLE_CHARS and cuts:
                phrase = phrase[: cuts.pop()]
            if len(phrase) > FALLBACK_TITLE_CHARS or len(phrase.split()) < 2:
                continue
            return phrase[0].upper() + phrase[1:]
    return ""


def _first_sentence_title(text: str) -> str:
    """First sentence, cut at a word boundary with '…' when longer than FALLBACK_TITLE_CHARS."""
    sentence = next(iter(split_sentences(text)), text).rstrip(".!? ")
    if len(sentence) <= FALLBACK_TITLE_CHARS:
        return sentence
    cut = sentence[: FALLBACK_TITLE_CHARS - 1]
    if " " in cut:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,;:-–—(") + "…"
