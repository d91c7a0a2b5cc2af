"""Export a set of matched papers as CSV, BibTeX or JSONL (pure functions over PaperMatch)."""

from __future__ import annotations

import csv
import io
import json
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from rag.models import Answer, PaperMatch
from rag.text import ALNUM

EXPORT_FIELDS = [
    "paper_id",
    "title",
    "score",
    "primary_area",
    "decision",
    "url",
    "keywords",
    "avg_rating",
    "n_ratings",
]
# A cell starting with one of these is a formula in Excel/LibreOffice/Sheets (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
_KEY_STOP = {"a", "an", "the", "of", "on", "for", "and", "in", "to", "with", "via", "is"}
# Characters that are special in BibTeX/LaTeX field values.
_BIB_SPECIAL = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "$": r"\$",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


class ExportError(ValueError):
    """An export was asked for in a format this module does not write."""


def safe_cell(value: str) -> str:
    """A CSV cell that spreadsheets show as text: formula-like starts get a leading quote."""
    return "'" + value if value.startswith(_FORMULA_START) else value


def to_csv(papers: Sequence[PaperMatch]) -> str:
    """Papers as CSV with a header row; keywords joined by '; '."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORT_FIELDS)
    for p in papers:
        row = [
            p.paper_id,
            p.title,
            f"{p.score:.4f}",
            p.primary_area,
            p.decision,
            p.url,
            "; ".join(p.keywords),
            # An unrated paper's cells stay empty: 0 would read as a rating.
            "" if p.avg_rating is None else f"{p.avg_rating:.4g}",
            "" if p.n_ratings is None else str(p.n_ratings),
        ]
        writer.writerow([safe_cell(cell) for cell in row])
    return out.getvalue()


def to_jsonl(papers: Sequence[PaperMatch]) -> str:
    """Papers as JSON lines, one object per paper, every PaperMatch field."""
    return "".join(json.dumps(p.model_dump(), ensure_ascii=False) + "\n" for p in papers)


def bib_escape(text: str) -> str:
    """A BibTeX field value with LaTeX specials escaped and whitespace collapsed."""
    flat = " ".join(text.split())
    return "".join(_BIB_SPECIAL.get(ch, ch) for ch in flat)


def _ascii(text: str) -> str:
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def bib_key(paper: PaperMatch) -> str:
    """A stable citation key from the title's first content word and the paper id."""
    words = [w for w in ALNUM.findall(_ascii(paper.title)) if w not in _KEY_STOP]
    head = words[0][:20] if words else "paper"
    tail = "".join(ALNUM.findall(_ascii(paper.paper_id)))[:16] or "x"
    return f"{head}_{tail}"


def to_bibtex(papers: Sequence[PaperMatch], venue: str = "") -> str:
    """Papers as @misc BibTeX entries; keys are unique within the export."""
    entries: list[str] = []
    seen: dict[str, int] = {}
    for p in papers:
        key = bib_key(p)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key = f"{key}_{seen[key]}"
        fields = [("title", "{" + bib_escape(p.title) + "}")]
        if venue:
            fields.append(("howpublished", bib_escape(venue)))
        if p.decision:
            fields.append(("note", bib_escape(p.decision)))
        if p.primary_area:
            fields.append(("primaryarea", bib_escape(p.primary_area)))
        if p.keywords:
            fields.append(("keywords", bib_escape(", ".join(p.keywords))))
        if p.url:
            # url is verbatim in BibTeX (url package): only braces would break the entry.
            fields.append(("url", p.url.replace("{", "%7B").replace("}", "%7D")))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        entries.append(f"@misc{{{key},\n{body}\n}}\n")
    return "\n".join(entries)


WRITERS: dict[str, Callable[[Sequence[PaperMatch]], str]] = {
    ".csv": to_csv,
    ".bib": to_bibtex,
    ".jsonl": to_jsonl,
}


def export_format(path: str | Path) -> str:
    """The export format of a file name by its suffix (.csv, .bib, .jsonl)."""
    suffix = Path(path).suffix.lower()
    if suffix not in WRITERS:
        known = ", ".join(WRITERS)
        raise ExportError(f"{path}: unknown export format {suffix or '(none)'}; use {known}")
    return suffix


def render_export(papers: Sequence[PaperMatch], path: str | Path) -> str:
    """The export text for a file name (format from its suffix)."""
    return WRITERS[export_format(path)](papers)


def answer_matches(answer: Answer) -> list[PaperMatch]:
    """The papers an answer is about: its matched set, else its retrieved sources."""
    if answer.papers:
        return list(answer.papers)
    return [PaperMatch.of(h.paper, h.score) for h in answer.sources]
