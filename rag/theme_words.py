"""Whether a question asks about the conference's themes, and about which topic's theme.

One small lexicon (rag/theme_words.json) says it, not a pattern per phrasing: a theme word
(or a weak one, "clusters", beside a collection or size word) makes a themes question, and the
words left once frame words are gone are the topic of "how big is the theme on X?".
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from .text import STOPWORDS, one_edit, words

LEXICON = Path(__file__).with_name("theme_words.json")


@lru_cache(maxsize=1)
def _lexicon() -> dict[str, frozenset[str]]:
    raw = json.loads(LEXICON.read_text(encoding="utf-8"))
    return {k: frozenset(v) for k, v in raw.items() if not k.startswith("_")}


def _near(word: str, vocabulary: frozenset[str]) -> str | None:
    """The vocabulary word this word is, allowing one wrong letter in words of four or more."""
    if word in vocabulary:
        return word
    # Function words are never typos ("there" is not "theme"), nor is a plural its singular:
    # the lexicon lists the forms it means ("paper" is not "papers").
    if len(word) < 4 or word in STOPWORDS:
        return None
    for v in vocabulary:
        plural = v == word + "s" or word == v + "s"
        if not plural and abs(len(v) - len(word)) <= 1 and one_edit(word, v):
            return v
    return None


def theme_topic(question: str) -> str | None:
    """None when the question does not ask about themes; else the topic whose theme it asks
    about ("" for the main themes)."""
    lex = _lexicon()
    tokens = words(question)
    text = " ".join(tokens)
    strong = any(_near(w, lex["theme_words"]) for w in tokens) or any(
        f" {p} " in f" {text} " for p in lex["theme_phrases"]
    )
    weak = any(w in lex["weak_words"] for w in tokens) and any(
        _near(w, lex["companions"]) for w in tokens
    )
    if not (strong or weak):
        return None
    rest = [
        w
        for w in tokens
        if w not in STOPWORDS and not w.isdigit() and not _near(w, lex["frame_words"])
    ]
    return " ".join(rest)
