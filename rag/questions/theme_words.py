"""Whether a question asks about the conference's themes, and about which topic's theme.

The lexicon's `themes` words (rag/data/lexicon.json) say it, not a pattern per phrasing: a theme
word (or a weak one, "clusters", beside a collection or size word) makes a themes question, and
the words left once frame words are gone are the topic of "how big is the theme on X?".
"""

from __future__ import annotations

from rag.lexicon import ThemeWords
from rag.text import STOPWORDS, one_edit, words


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


def theme_topic(question: str, lex: ThemeWords, routed: bool = False) -> str | None:
    """None when the question does not ask about themes; else the topic whose theme it asks
    about ("" for the main themes). `routed`: the router read a themes question, so a
    companion word alone says it ("what are people mostly working on in RL?")."""
    tokens = words(question)
    text = " ".join(tokens)
    strong = any(_near(w, lex.theme_words) for w in tokens) or any(
        f" {p} " in f" {text} " for p in lex.theme_phrases
    )
    weak = (routed or any(w in lex.weak_words for w in tokens)) and any(
        _near(w, lex.companions) for w in tokens
    )
    if not (strong or weak):
        return None
    rest = [
        w
        for w in tokens
        if w not in STOPWORDS and len(w) > 1 and not w.isdigit() and not _near(w, lex.frame_words)
    ]
    return " ".join(rest)
