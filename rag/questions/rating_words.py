"""Reviewer ratings in a question's words: whether it asks about them, and a least rating.

A question asks about ratings when it writes a word for the reviewers' judgement ("rated",
"ratings", "reviewer scores") near a word that orders papers by it ("best", "top", "well") or
asks for its spread ("distribution", "average"). The words are the lexicon's `ratings`
(rag/data/lexicon.json); a word of six letters or more also matches with one typing slip
("hihgest"), as people type.

The planner reads them here and writes what it found into the plan (kind RATING, `group_by`,
`aspect`, `filters.min_rating`); rag/answers/handlers/ratings.py answers from the plan alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rag.lexicon import RatingWords
from rag.text import one_edit, tokens

# Kinds whose words also match with one typing slip ("hihgest"): not the judgement words,
# whose near neighbours are other words ("rates" in "learning rates", "review").
SLIPS = frozenset({"best", "worst", "spread"})
NEAR = 3  # tokens between a judgement word and its ordering or spread word
# A judgement word this long matches with one slip ("ratigns", "reviwers"); shorter ones have
# neighbours that are other words ("rates", "review").
JUDGED_SLIP = 7


def _slip(a: str, b: str) -> bool:
    """One typing slip apart, for words of six letters or more."""
    return min(len(a), len(b)) >= 6 and one_edit(a, b)


@dataclass
class _Token:
    text: str
    start: int
    end: int


def _tokens(question: str) -> list[_Token]:
    return [_Token(*t) for t in tokens(question)]


def _find(tokens: list[_Token], kind: str, lexicon: RatingWords) -> list[tuple[int, int]]:
    """Token ranges [i, j) where a phrase of the lexicon kind is written."""
    found = []
    for phrase in (tuple(p.split()) for p in getattr(lexicon, kind)):
        for i in range(len(tokens) - len(phrase) + 1):
            words = [tokens[i + k].text for k in range(len(phrase))]
            if words == list(phrase) or (
                len(phrase) == 1
                and _slip(words[0], phrase[0])
                and (kind in SLIPS or min(len(words[0]), len(phrase[0])) >= JUDGED_SLIP)
            ):
                found.append((i, i + len(phrase)))
    return found


@dataclass
class RatingAsk:
    """What a question asks of the ratings, and where its words are (to leave the topic)."""

    order: str = ""  # "best", "worst" or "" (a spread only)
    spread: bool = False
    by_area: bool = False
    spans: list[tuple[int, int]] = field(default_factory=list)

    def fields(self) -> dict[str, Any]:
        """The plan's fields for it: by area (group_by), the spread (aspect 'distribution'),
        or the papers worst first (aspect 'lowest'); best first needs none."""
        if self.by_area:
            return {"group_by": "area"}
        if not self.order:
            return {"aspect": "distribution"}
        return {"aspect": "lowest"} if self.order == "worst" else {}


def read_rating(question: str, lexicon: RatingWords, routed: bool = False) -> RatingAsk | None:
    """The rating question a question asks, or None when it asks none; `routed`: the router
    read a rating question, so its score words stand for a judgement ("which orals got the
    best scores?"), a word that alone also scores benchmarks."""
    tokens = _tokens(question)
    judged = _find(tokens, "judged", lexicon)
    if not judged and routed:
        judged = _find(tokens, "scored", lexicon)
    if not judged:
        return None
    # "rated 7 or higher" filters (min_rating); its "higher" orders nothing.
    taken = [(a, b) for a, b in min_rating(question, lexicon)[1]]
    cues: dict[str, list[tuple[int, int]]] = {}
    for kind in ("best", "worst", "spread"):
        cues[kind] = [
            c
            for c in _find(tokens, kind, lexicon)
            if any(c[0] - j[1] < NEAR and j[0] - c[1] < NEAR for j in judged)
            and not any(a <= tokens[c[0]].start < b for a, b in taken)
        ]
    if not any(cues.values()):
        return None
    ask = RatingAsk(
        order="worst" if cues["worst"] and not cues["best"] else "best" if cues["best"] else "",
        spread=bool(cues["spread"]),
    )
    per = {i for i, _ in _find(tokens, "per", lexicon)}
    for i, _ in _find(tokens, "group", lexicon):
        # "which area", "which research area", "per area": one value per area.
        if per & {i - 1, i - 2}:
            ask.by_area = True
            ask.spans.append((tokens[i - 1].start, tokens[i].end))
    words = judged + [c for v in cues.values() for c in v]
    first, last = min(i for i, _ in words), max(j for _, j in words)
    ask.spans.append(_stretch(tokens, first, last, lexicon.linking))
    return ask


def _stretch(tokens: list[_Token], i: int, j: int, linking: frozenset[str]) -> tuple[int, int]:
    """The characters of tokens [i, j) with the linking words on either side ("papers [that
    were rated best] on X", "[the best reviewer scores]")."""
    while i > 0 and tokens[i - 1].text in linking:
        i -= 1
    while j < len(tokens) and tokens[j].text in linking:
        j += 1
    return tokens[i].start, tokens[j - 1].end


def _number(text: str) -> bool:
    """Whether a token is a number ('7', '6.5'; a token is never '7.' or '.5')."""
    return text.replace(".", "", 1).isdecimal() and text[0].isdecimal()


def min_rating(question: str, lexicon: RatingWords) -> tuple[float | None, list[tuple[int, int]]]:
    """The least rating a question asks for ("rated 7 or higher") and where it is written."""
    tokens = _tokens(question)
    above = dict(_find(tokens, "above", lexicon))
    or_more = dict(_find(tokens, "or_more", lexicon))
    least, most = lexicon.scale
    judged = [(i, j, True) for i, j in _find(tokens, "judged", lexicon)]
    scored = [(i, j, False) for i, j in _find(tokens, "scored", lexicon)]
    for i, j, rating in sorted(judged + scored):
        k, compared = j, False
        while k < len(tokens) and (k in above or tokens[k].text in lexicon.between):
            compared |= k in above
            k = above.get(k, k + 1)
        if k >= len(tokens) or not _number(tokens[k].text):
            continue
        tail = or_more.get(k + 1)
        if not compared and tail is None:
            continue  # "rated 7", "a rating of 7": no "at least" either way
        # "scored 7 or above" is a rating; "scored above 70% on MMLU" is not.
        if not rating and not (least <= float(tokens[k].text) <= most) or (
            not rating and k + 1 < len(tokens) and tokens[k + 1].text in ("%", "percent")
        ):
            continue
        return float(tokens[k].text), [_stretch(tokens, i, tail or k + 1, lexicon.linking)]
    return None, []
