"""The language a question is written in: its script, else its function words (lexicon data)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from itertools import groupby
from typing import Any, Protocol

from rag.lexicon import Glossary, Lexicon
from rag.models import Plan, QuestionKind
from rag.store.catalog import Catalog
from rag.text import quoted_spans, slip_of, unquoted

K = QuestionKind

# Scripts by the first word of their Unicode character names, to the language they most likely
# write; kana decides Japanese over Chinese (both write Han characters).
_SCRIPTS = {
    "CJK": "zh",
    "HIRAGANA": "ja",
    "KATAKANA": "ja",
    "HANGUL": "ko",
    "CYRILLIC": "ru",
    "ARABIC": "ar",
    "DEVANAGARI": "hi",
    "GREEK": "el",
    "HEBREW": "he",
    "THAI": "th",
}
# Share of a question's words (quotes aside) in one non-Latin script that makes it that
# script's language: a name or two in Latin letters do not make a Chinese question English,
# nor a Greek letter an English question Greek.
MIN_SCRIPT_SHARE = 0.3
# Han and kana write no spaces: a run of them is read as a word every this many characters
# (a Chinese word is one to two characters), so "谁在研究 machine unlearning？" writes as many
# Chinese words as English ones.
CHARS_PER_WORD = 2
_UNSPACED = frozenset({"CJK", "HIRAGANA", "KATAKANA"})
# Function words of a language a Latin-script question must write (more than of English).
MIN_FUNCTION_WORDS = 2


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    return name.split(" ", 1)[0] if name else ""


def _words_by_script(text: str) -> dict[str, float]:
    """How many words the text writes in each script: a run of one script's letters is a
    word, a run of Han or kana one per CHARS_PER_WORD characters."""
    words: dict[str, float] = {}
    for script, run in groupby(text, key=lambda c: _script(c) if c.isalpha() else ""):
        if script:
            n = len(list(run)) / CHARS_PER_WORD if script in _UNSPACED else 1
            words[script] = words.get(script, 0) + n
    return words


def detect(text: str, function_words: Mapping[str, frozenset[str]]) -> str:
    """ISO code of the text's language when it is not English, else ''."""
    # A quoted span (a title) says nothing about the asker's language.
    bare = unquoted(text)
    by_script = _words_by_script(bare)
    if not by_script:
        return ""
    scripts: dict[str, float] = {}
    for script, n in by_script.items():
        if lang := _SCRIPTS.get(script):
            scripts[lang] = scripts.get(lang, 0) + n
    if scripts:
        if "ja" in scripts and "zh" in scripts:
            scripts["ja"] += scripts.pop("zh")
        lang, n = max(scripts.items(), key=lambda kv: kv[1])
        if n >= MIN_SCRIPT_SHARE * sum(by_script.values()):
            return lang
    words = re.findall(r"[^\W\d_]+", bare.lower())
    hits = {lang: sum(w in fw for w in words) for lang, fw in function_words.items()}
    english = hits.pop("en", 0)
    if not hits:
        return ""
    lang, n = max(hits.items(), key=lambda kv: kv[1])
    return lang if n >= MIN_FUNCTION_WORDS and n > english else ""


# Words a Latin-script question writes that no indexed paper writes, and that are neither
# English words nor one typing slip from a written word: two make a search box's fragment
# worth a language guess ("Zustandsentropie Maximierung POMDP", "Kontextattribution RAG ohne
# Feinabstimmung"); one is a name the question coins ("KANformer time series"). Chosen on a
# development set of 120 search-box queries (eval/dev/languages/search_box.jsonl): 52 of 60
# in another language detected, 0 of 60 English ones.
MIN_FOREIGN_WORDS = 2


class Words(Protocol):
    """The words a collection writes, a dictionary's English words, and whether the collection
    is large enough that a word none of its papers writes says something."""

    def __call__(self) -> frozenset[str]: ...

    def english(self) -> frozenset[str]: ...

    def large(self) -> bool: ...


class LanguageReader:
    """The language a question is written in ('' for English): its script, else its function
    words (the lexicon's), else, in a large collection, a guess from character n-grams
    (langdetect's profiles) when it writes MIN_FOREIGN_WORDS words that are not the papers'
    or English (`words`: the collection's and a dictionary's)."""

    def __init__(
        self, function_words: Mapping[str, frozenset[str]], words: Words | None = None
    ) -> None:
        self.function_words = function_words
        self.words = words
        self._profiles: Any = None
        # The pipeline and its planner both ask of one question: the slip check is read once.
        self._last = ("", "")

    def __call__(self, text: str) -> str:
        """ISO code of the text's language when it is not English, else ''."""
        asked, said = self._last  # one read: another thread may replace it
        if text == asked:
            return said
        language = detect(text, self.function_words)
        if not language and len(self.foreign_words(text)) >= MIN_FOREIGN_WORDS:
            guessed = self._guess(unquoted(text))
            language = "" if guessed == "en" else guessed
        self._last = (text, language)
        return language

    def foreign_words(self, text: str) -> list[str]:
        """The text's words (four letters or more, quotes aside) that no paper writes, that
        are no English word and no slip of a written one; none in a small collection."""
        if self.words is None or not self.words.large():
            return []
        written, english = self.words(), self.words.english()
        words = (w.lower() for w in re.findall(r"[^\W\d_]{4,}", unquoted(text)))
        return [
            w for w in words if w not in written and w not in english and not slip_of(w, written)
        ]

    def _guess(self, text: str) -> str:
        """The most likely language of the text by langdetect (seeded: the same text, the
        same answer), '' when it cannot tell."""
        from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
        from langdetect.lang_detect_exception import LangDetectException

        if self._profiles is None:
            profiles = DetectorFactory()
            profiles.load_profile(PROFILES_DIRECTORY)
            profiles.set_seed(0)
            self._profiles = profiles
        detector = self._profiles.create()
        detector.append(text)
        try:
            return str(detector.detect())
        except LangDetectException:
            return ""


def in_script(language: str) -> bool:
    """Whether the language is written in a script of its own (not Latin letters)."""
    return language in _SCRIPTS.values()


def latin_terms(text: str) -> str:
    """The text's runs of Latin-script words (names, terms): what retrieval can read of a
    question in another script."""
    return " ".join(re.findall(r"[A-Za-z][\w\-.:]*(?:\s+[A-Za-z][\w\-.:]*)*", text)).strip(" .:")


def glossed(text: str, glossary: Glossary) -> list[str]:
    """The English of the glossary's terms the text writes, in order and each once; the longest
    term at each place ("强化学习" is "reinforcement learning", not also "learning")."""
    lower = text.lower()
    keys = sorted(glossary.terms, key=len, reverse=True)
    found: list[str] = []
    i = 0
    while i < len(lower):
        starts = glossary.compounds or i == 0 or not lower[i - 1].isalnum()
        key = next((k for k in keys if lower.startswith(k, i)), None) if starts else None
        if key is not None and (glossary.compounds or _word_ends(lower, i + len(key))):
            found.append(glossary.terms[key])
            i += len(key)
        else:
            i += 1
    return list(dict.fromkeys(found))


def english_reading(
    text: str, glossary: Glossary, scripted: bool, own: frozenset[str] = frozenset()
) -> str:
    """The question in English words for the rules and the router: the English of each word
    and term of the glossary it writes, in order, and its Latin-script words and quoted
    titles as written, but for the language's own function words (`own`) ("哪些论文的评分
    最高？" -> "which papers rating highest")."""
    table = {**glossary.terms, **glossary.asks}
    keys = sorted(table, key=len, reverse=True)
    lower = text.lower()
    # Where each quoted title opens (its mark), to where it closes.
    titles = {a - 1: b + 1 for a, b in quoted_spans(text)}
    out: list[str] = []
    i = 0
    while i < len(text):
        if (end := titles.get(i)) is not None:
            out.append(text[i:end])  # a title, kept whole
            i = end
            continue
        starts = scripted or i == 0 or not lower[i - 1].isalnum()
        found = (
            k
            for k in keys
            if lower.startswith(k, i) and (scripted or _word_ends(lower, i + len(k)))
        )
        key = next(found, None) if starts else None
        if key is not None:
            out.append(table[key])
            i += len(key)
        elif starts and _script(text[i]) == "LATIN":
            j = i
            while (
                j < len(text)
                and (text[j].isalnum() or text[j] in "-_.'")
                and (_script(text[j]) in ("LATIN", "DIGIT"))
            ):
                j += 1
            word = text[i:j].rstrip(".'")
            # German joins nouns: a compound the glossary reads is its English terms.
            parts = glossed(word, glossary) if glossary.compounds and not scripted else []
            if parts or (len(word) > 1 and word.lower() not in own):
                out.extend(parts or [word])
            i = max(j, i + 1)
        else:
            i += 1
    return " ".join(out)


def _word_ends(text: str, end: int) -> bool:
    """Whether a word ends at `end`, a plural's "s" or "es" aside ("attaques", "ataques")."""
    for tail in ("", "s", "es"):
        after = end + len(tail)
        if text[end:after] == tail and (after >= len(text) or not text[after].isalnum()):
            return True
    return False


def reading(
    question: str, lexicon: Lexicon, language_of: Callable[[str], str] | None = None
) -> tuple[str, str]:
    """The question's language ('' for English; by `language_of`, else by its script and
    function words) and what the rules and the router read of it: its English reading
    (english_reading) when the lexicon has the language's glossary."""
    language = (language_of or LanguageReader(lexicon.language_function_words))(question)
    glossary = lexicon.glossary.get(language) if language else None
    if glossary is None:
        return language, question
    own = lexicon.language_function_words.get(language, frozenset())
    return language, english_reading(question, glossary, in_script(language), own)


def in_language(
    plan: Plan,
    question: str,
    language: str,
    lexicon: Lexicon,
    catalog: Catalog,
    dictionary: Callable[[], frozenset[str]] = frozenset,
) -> Plan:
    """The plan with the question's language set; a question in another script keeps only its
    Latin-script terms (names, English terms) as its topic, never its whole wording. `plan`
    was made from the question's English reading (`reading`) when its language has a
    glossary, which already holds the glossary's English."""
    if not language:
        return plan
    update: dict[str, object] = {"language": language}
    about_one = (K.DETAIL, K.LOOKUP, K.METADATA, K.SIMILAR, K.DEFINE)
    if len(plan.paper_ids) == 1 and plan.kind not in about_one:
        # Of a question in another language that names one paper, offline can only tell that
        # it asks about that paper ("这篇论文“Hubble…”的发现？"); "什么是 X？" asks what X is.
        update.update(kind=K.DETAIL, answer_type="general", topic="")
        return plan.model_copy(update=update)
    # The topic is what retrieval can read of it: its Latin-script words that the papers
    # write (names, English terms), and the English of the field's terms it writes (the
    # lexicon's glossary), never the other language's wording.
    own = lexicon.language_function_words.get(language, frozenset())
    glossary = lexicon.glossary.get(language)
    # Latin letters in another script are English on purpose ("芭蕾舞 (ballet)"), kept
    # though no paper writes them; in a Latin-script language only the papers' words and
    # English words are ("cerveza (brewing)": "brewing").
    scripted = in_script(language)
    # The glossary's English is English by construction, whether or not a paper writes it.
    terms = glossed(question, glossary) if glossary else []
    words = (
        frozenset()
        if scripted
        else dictionary() | {w.lower() for term in terms for w in term.split()}
    )

    # The English of the words it asks with ("mayor" -> "largest") is its frame, not a topic.
    frame = {w for ask in glossary.asks.values() for w in ask.split()} if glossary else set()

    def kept(topic: str) -> list[str]:
        return [
            w
            for w in latin_terms(topic).split()
            if w.lower() not in own
            and w.lower() not in frame
            and (t := catalog.terms(w))
            and (scripted or t[0] in catalog.postings or w.lower() in words)
        ]

    if plan.kind == K.MORE:
        # "DPO 和 GRPO 哪个论文更多？": each side of "A or B" read on its own.
        update["topic"] = " or ".join(" ".join(kept(side)) for side in plan.topic.split(" or "))
        return plan.model_copy(update=update)
    # The papers it names stay: offline retrieval reads this topic, not the question.
    topic = " ".join(dict.fromkeys([*plan.named, *kept(plan.topic)]))
    # The English it writes beyond "papers": the papers' words and the lexicon's own.
    asking = own | lexicon.question_marking | set(lexicon.paper_nouns)
    framing = lexicon.frame_words  # a property built on each read: read once
    english = [
        w
        for w in latin_terms(question).lower().split()
        if w not in asking
        and (w in framing or ((t := catalog.terms(w)) and t[0] in catalog.postings))
    ]
    if not topic and plan.kind.collection and not english:
        # "Gibt es Papers über Schiffbau?": a topic read in no English is still its topic, to
        # be found absent, not every paper listed. A question that writes the papers' words
        # ("… bei Jailbreaks?", "Welche Keywords …") put them in its plan: its other words
        # ("berichtet") are its language, not a topic.
        topic = " ".join(w for w in latin_terms(plan.topic).split() if w.lower() not in own)
    update["topic"] = topic
    return plan.model_copy(update=update)
