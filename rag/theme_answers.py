"""Questions about the conference's themes: the main themes with their sizes, or how big the
theme on a topic is, answered from the conference map's clusters (rag/conference_map.py).

Which questions these are is read with one small lexicon (rag/themes_lexicon.json), not a
pattern per phrasing.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from functools import lru_cache
from pathlib import Path

import numpy as np

from .chunking import split_sentences
from .conference_map import ConferenceMap
from .markup import bold
from .models import Answer, Citation, Paper, PaperMatch, Plan
from .protocols import Embedder
from .text import STOPWORDS, words
from .themes import Theme

THEMES = "the conference's themes, or the size of the theme on a topic"
LEXICON = Path(__file__).with_name("themes_lexicon.json")
CENTRAL = 3  # central papers cited for the theme asked about
NEXT = 2  # closest other themes named beside it


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
        if not plural and abs(len(v) - len(word)) <= 1 and _one_edit(word, v):
            return v
    return None


def _one_edit(a: str, b: str) -> bool:
    """Whether a and b differ by one inserted, deleted or replaced letter, or two swapped."""
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]]:
            return a[diff[1]] == b[diff[0]]
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    return a[i + (len(a) == len(b)) :] == b[i + 1 :]


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


def _ordinal(n: int) -> str:
    """'the largest', 'the 2nd largest', ... ."""
    if n == 1:
        return "the largest"
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"the {n}{suffix} largest"


def _quote(paper: Paper) -> str:
    sentences = split_sentences(paper.abstract)
    return sentences[0] if sentences else paper.abstract[:300]


def _share(theme: Theme, total: int) -> str:
    return f"{theme.size:,} papers ({100 * theme.size / total:.1f}%)"


class ThemeAnswerer:
    """Answers theme questions from the conference map."""

    def __init__(
        self,
        conference_map: Callable[[], ConferenceMap],
        catalog: Callable[[], Mapping[str, Paper]],
        embedder: Embedder,
    ) -> None:
        self.conference_map = conference_map
        self.catalog = catalog
        self.embedder = embedder

    def answer(
        self, question: str, plan: Plan, matching: Callable[[str], list[str]] | None = None
    ) -> Answer:
        """The main themes, or the theme of the plan's topic, with sizes and a chart.

        `matching` gives the ids of the papers a topic matches (the collection's rule): the
        topic's theme is the one holding most of them; without any, the nearest by meaning.
        """
        cmap = self.conference_map()
        papers = self.catalog()
        if not cmap.themes:
            return Answer(
                question=question, text="The index holds no papers yet.", refused=True, plan=plan
            )
        ranked = sorted(cmap.themes, key=lambda t: (-t.size, t.id))
        chart = {t.label: t.size for t in ranked}
        cited: list[tuple[Paper, Theme]] = []

        def cite(theme: Theme, count: int) -> str:
            marks = []
            for pid in theme.paper_ids[:count]:
                if pid in papers:
                    cited.append((papers[pid], theme))
                    marks.append(f"[{len(cited)}]")
            return " ".join(marks)

        total = len(cmap)
        if not plan.topic:
            lines = [
                f"The {total:,} papers fall into {len(ranked)} themes: papers clustered by "
                "their vectors (k-means), each theme named by its most distinctive keywords "
                "(c-TF-IDF). Largest first, each with its most central paper:"
            ]
            lines += [f"- {bold(t.label)}: {_share(t, total)} {cite(t, 1)}" for t in ranked]
        else:
            on_topic = set(matching(plan.topic)) if matching else set()
            lines, spread = self._size(plan.topic, cmap, ranked, on_topic, cite)
            chart = spread or chart
        citations = [
            Citation(n=n, paper_id=p.id, title=p.title, url=p.url, quote=_quote(p))
            for n, (p, _) in enumerate(cited, 1)
        ]
        matches = [
            PaperMatch(
                paper_id=p.id,
                title=p.title,
                score=float(t.size),
                quote=_quote(p),
                primary_area=p.primary_area,
                decision=p.decision,
                url=p.url,
                keywords=p.keywords,
            )
            for p, t in cited
        ]
        return Answer(
            question=question,
            text="\n".join(lines),
            citations=citations,
            plan=plan,
            papers=matches,
            count=len(ranked) if not plan.topic else None,
            rule="themes: k-means clusters of the papers' vectors, named by c-TF-IDF keywords",
            chart=chart,
        )

    def _size(
        self,
        topic: str,
        cmap: ConferenceMap,
        ranked: list[Theme],
        on_topic: set[str],
        cite: Callable[[Theme, int], str],
    ) -> tuple[list[str], dict[str, int]]:
        """Lines answering "how big is the theme on <topic>", and the topic's papers per theme
        (label -> count, most first)."""
        total = len(cmap)
        counts = np.bincount(
            [t for pid, t in zip(cmap.ids, cmap.theme, strict=True) if pid in on_topic],
            minlength=len(cmap.themes),
        )
        by_id = {t.id: t for t in cmap.themes}
        if counts.sum():
            order = [by_id[int(i)] for i in np.argsort(-counts, kind="stable") if counts[i]]
            best = order[0]
            lead = (
                f"{int(counts.sum()):,} papers match “{topic}” in their title, keywords or "
                f"abstract; most of them ({counts[best.id]:,}) are in the theme {bold(best.label)}"
            )
            others = "The others are in:"
        else:
            vector = np.asarray(self.embedder.embed_query(topic), dtype=np.float32)
            sims = np.asarray(cmap.centroids, dtype=np.float32) @ vector
            order = [by_id[int(i)] for i in np.argsort(-sims)]
            best = order[0]
            lead = (
                f"No paper writes “{topic}”; the theme closest to it by meaning is "
                f"{bold(best.label)}"
            )
            others = "Next closest themes:"
        lines = [
            f"{lead}: {best.size:,} of the {total:,} papers ({100 * best.size / total:.1f}%), "
            f"{_ordinal(ranked.index(best) + 1)} of {len(ranked)} themes. Its most central "
            f"papers: {cite(best, CENTRAL)}."
        ]
        rest = order[1 : 1 + NEXT]
        if rest:
            lines.append(others)
            lines += [
                f"- {bold(t.label)}: "
                + (f"{counts[t.id]:,} of its " if counts.sum() else "")
                + f"{_share(t, total)} {cite(t, 1)}"
                for t in rest
            ]
        spread = {by_id[int(i)].label: int(counts[i]) for i in np.argsort(-counts) if counts[i]}
        return lines, spread
