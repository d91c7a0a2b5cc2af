"""Read paper abstracts from .txt, .jsonl, .json and .csv files into deduplicated Paper records."""

from __future__ import annotations

import codecs
import csv
import io
import json
import math
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from rag.cues import Cues, bundled_cues
from rag.models import LoadError, Paper, content_key, normalize_text
from rag.store.titles import derive_title

MIN_ABSTRACT_CHARS = 50
MAX_ABSTRACT_CHARS = 20_000
MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_ID_CHARS = 200
MAX_FIELD_CHARS = 2_000
HEADING_MAX_CHARS = 120
SUPPORTED_SUFFIXES = (".txt", ".jsonl", ".json", ".csv")

_ECHO_CHARS = 80
_DECODER = json.JSONDecoder()
# C0/C1 control characters other than tab and line breaks: they carry no meaning in an abstract
# and could drive a terminal when titles are printed.
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f-\x9f]")
_URL = re.compile(r"https?://\S", re.IGNORECASE)


class LoadResult(BaseModel):
    """Papers loaded from a set of paths, the records rejected, and whether the input was usable."""

    papers: list[Paper] = Field(default_factory=list, description="Deduplicated, in input order.")
    errors: list[LoadError] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list, description="Files opened and parsed.")
    duplicates: int = Field(default=0, description="Records merged into an identical abstract.")
    fatal: bool = Field(
        default=False, description="Input unusable: a path does not exist or nothing loaded."
    )

    @property
    def exit_code(self) -> int:
        """CLI exit status: 2 unusable input, 1 some records rejected, 0 everything loaded."""
        if self.fatal:
            return 2
        return 1 if self.errors else 0


class _FieldError(ValueError):
    """A record field with a value that cannot be used."""


# ---------------------------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------------------------


def load_paths(paths: Iterable[str | Path], cues: Cues | None = None) -> LoadResult:
    """Load files and folders (recursively), deduplicate by abstract and report every rejection;
    `cues` read an untitled abstract's title (the bundled lexicon's when not given)."""
    cues = cues or bundled_cues()
    result = LoadResult()
    papers: list[Paper] = []
    seen: set[Path] = set()
    given = 0
    for path in paths:
        given += 1
        root = Path(path)
        if root.is_dir():
            files = _discover(root, result.errors)
            if not files:
                result.errors.append(
                    LoadError(file=str(root), message="no .txt, .jsonl, .json or .csv files found")
                )
        elif root.is_file():
            files = [root]
        else:
            message = "not a regular file" if root.exists() else "no such file or directory"
            result.errors.append(LoadError(file=str(root), message=message))
            result.fatal = True
            continue
        for file in files:
            real = file.resolve()
            if real in seen:
                continue
            seen.add(real)
            file_papers, file_errors, read = _load(file, cues)
            papers.extend(file_papers)
            result.errors.extend(file_errors)
            if read:
                result.files.append(str(file))
    if not given:
        result.errors.append(LoadError(file="<input>", message="no input paths given"))
    result.papers, dup_errors, result.duplicates = _dedupe(papers)
    result.errors.extend(dup_errors)
    if not result.papers:
        result.fatal = True
    return result


def load_file(path: str | Path, cues: Cues | None = None) -> tuple[list[Paper], list[LoadError]]:
    """Read one file into papers (not deduplicated) and the errors of the records it rejected."""
    papers, errors, _ = _load(Path(path), cues or bundled_cues())
    return papers, errors


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------


def _discover(root: Path, errors: list[LoadError]) -> list[Path]:
    """Supported, non-hidden files under root, sorted by relative path."""

    def on_error(exc: OSError) -> None:
        errors.append(LoadError(file=str(exc.filename or root), message=_os_message(exc)))

    found: list[tuple[tuple[str, ...], Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=on_error):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.startswith(".") or not name.lower().endswith(SUPPORTED_SUFFIXES):
                continue
            file = Path(dirpath) / name
            if file.is_file():
                found.append((file.relative_to(root).parts, file))
    return [file for _, file in sorted(found)]


def _load(path: Path, cues: Cues) -> tuple[list[Paper], list[LoadError], bool]:
    """Papers and errors of one file, and whether its contents were read at all."""
    name = str(path)
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        kind = _clip(suffix or path.name)
        message = f"unsupported file type {kind!r} (expected .txt, .jsonl, .json or .csv)"
        return [], [LoadError(file=name, message=message)], False
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            message = f"file too large ({size} bytes, maximum {MAX_FILE_BYTES} bytes)"
            return [], [LoadError(file=name, message=message)], False
        data = path.read_bytes()
    except OSError as exc:
        return [], [LoadError(file=name, message=_os_message(exc))], False

    papers: list[Paper] = []
    errors: list[LoadError] = []
    for item in _parse(data, suffix, name):
        if isinstance(item, LoadError):
            errors.append(item)
        elif item.title_is_derived:
            papers.append(item.model_copy(update={"title": derive_title(item.abstract, cues)}))
        else:
            papers.append(item)
    if not papers and not errors:
        errors.append(LoadError(file=name, message="no records found"))
    return papers, errors, True


def _parse(data: bytes, suffix: str, file: str) -> Iterator[Paper | LoadError]:
    """Records of one file's bytes, by format."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        yield LoadError(file=file, message="not a text file (UTF-16; save it as UTF-8)")
        return
    if b"\x00" in data:
        yield LoadError(file=file, message="not a text file (contains NUL bytes)")
        return
    if not data.removeprefix(codecs.BOM_UTF8).strip():
        yield LoadError(file=file, message="file is empty")
        return
    if suffix == ".txt":
        yield from _parse_txt(data, file)
    elif suffix == ".jsonl":
        yield from _parse_jsonl(data, file)
    else:
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            yield LoadError(file=file, line=line, message=f"not valid UTF-8 at byte {exc.start}")
            return
        yield from (_parse_json if suffix == ".json" else _parse_csv)(text, file)


def _split_lines(data: bytes) -> tuple[list[str | None], dict[int, str]]:
    """Lines of a file (None where undecodable) and the UTF-8 error of each bad line, by index."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    else:
        # str.splitlines would also split on U+2028 and friends, which JSON strings may contain.
        return [line.removesuffix("\r") for line in text.split("\n")], {}
    lines: list[str | None] = []
    bad: dict[int, str] = {}
    offset = 0
    for index, raw in enumerate(data.split(b"\n")):
        skip = len(codecs.BOM_UTF8) if index == 0 and raw.startswith(codecs.BOM_UTF8) else 0
        try:
            lines.append(raw[skip:].decode("utf-8").removesuffix("\r"))
        except UnicodeDecodeError as exc:
            lines.append(None)
            bad[index] = f"not valid UTF-8 at byte {offset + skip + exc.start}"
        offset += len(raw) + 1
    return lines, bad


# ---------------------------------------------------------------------------------------------
# Formats
# ---------------------------------------------------------------------------------------------


def _parse_txt(data: bytes, file: str) -> Iterator[Paper | LoadError]:
    """Abstracts separated by blank lines, after an optional heading block."""
    lines, bad = _split_lines(data)
    blocks: list[tuple[int, list[str | None]]] = []
    current: list[str | None] = []
    start = 0
    for number, line in enumerate(lines, 1):
        if line is not None and not line.strip():
            if current:
                blocks.append((start, current))
                current = []
            continue
        if not current:
            start = number
        current.append(line)
    if current:
        blocks.append((start, current))

    if blocks and _is_heading(blocks[0][1]):
        blocks = blocks[1:]
    for start, block in blocks:
        undecodable = [start + i for i, line in enumerate(block) if line is None]
        if undecodable:
            yield LoadError(file=file, line=undecodable[0], message=bad[undecodable[0] - 1])
            continue
        text = " ".join(line for line in block if line is not None)
        yield _paper_from_record({"abstract": text}, file, start)


def _is_heading(block: list[str | None]) -> bool:
    """Whether a leading block is a heading such as 'ICLR 2026 papers' rather than an abstract."""
    if len(block) > 3 or any(line is None for line in block):
        return False
    text = normalize_text(" ".join(line for line in block if line is not None))
    if len(text) >= HEADING_MAX_CHARS:
        return False
    return len(text) < MIN_ABSTRACT_CHARS or not text.endswith((".", "!", "?", "。"))


def _parse_jsonl(data: bytes, file: str) -> Iterator[Paper | LoadError]:
    """One JSON object per line; blank lines are skipped and bad lines rejected one by one."""
    lines, bad = _split_lines(data)
    for number, line in enumerate(lines, 1):
        if line is None:
            yield LoadError(file=file, line=number, message=bad[number - 1])
            continue
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            yield LoadError(
                file=file, line=number, message=f"invalid JSON: {exc.msg} (column {exc.colno})"
            )
            continue
        except (ValueError, RecursionError) as exc:
            yield LoadError(file=file, line=number, message=f"invalid JSON: {_clip(str(exc))}")
            continue
        if not isinstance(obj, dict):
            yield LoadError(file=file, line=number, message=f"expected an object, got {_kind(obj)}")
            continue
        yield _paper_from_record(obj, file, number)


def _parse_json(text: str, file: str) -> Iterator[Paper | LoadError]:
    """An array of objects, or an object holding them in a 'papers' array (or a single paper)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg} (column {exc.colno})"
        yield LoadError(file=file, line=exc.lineno, message=message)
        return
    except (ValueError, RecursionError) as exc:
        yield LoadError(file=file, message=f"invalid JSON: {_clip(str(exc))}")
        return

    start = _skip_ws(text, 0)
    if isinstance(doc, dict) and "papers" in doc:
        if not isinstance(doc["papers"], list):
            kind = _kind(doc["papers"])
            yield LoadError(file=file, message=f"'papers' must be an array, got {kind}")
            return
        records: list[Any] = doc["papers"]
        member = _member_offset(text, start, "papers")
        offsets = _element_offsets(text, member) if member is not None else []
    elif isinstance(doc, list):
        records, offsets = doc, _element_offsets(text, start)
    elif isinstance(doc, dict) and "abstract" in {str(k).lower() for k in doc}:
        records, offsets = [doc], [start]
    else:
        expected = "an array of objects or an object with a 'papers' array"
        message = f"expected {expected}, got {_kind(doc)}"
        yield LoadError(file=file, message=message)
        return

    lines = _line_numbers(text, offsets) if len(offsets) == len(records) else []
    for index, record in enumerate(records):
        line = lines[index] if lines else index + 1
        if not isinstance(record, dict):
            yield LoadError(
                file=file, line=line, message=f"expected an object, got {_kind(record)}"
            )
            continue
        yield _paper_from_record(record, file, line)


def _skip_ws(text: str, pos: int) -> int:
    """Index of the first non-whitespace character at or after pos."""
    while pos < len(text) and text[pos] in " \t\n\r":
        pos += 1
    return pos


def _element_offsets(text: str, pos: int) -> list[int]:
    """Offsets of the elements of the (already validated) JSON array that opens at text[pos]."""
    offsets: list[int] = []
    pos = _skip_ws(text, pos + 1)
    while text[pos] != "]":
        offsets.append(pos)
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return offsets


def _member_offset(text: str, pos: int, key: str) -> int | None:
    """Offset of the value of key in the (already validated) JSON object that opens at text[pos]."""
    found = None
    pos = _skip_ws(text, pos + 1)
    while text[pos] != "}":
        name, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, _skip_ws(text, pos) + 1)
        if name == key:
            found = pos  # json.loads keeps the last of repeated keys, so do the same
        _, pos = _DECODER.raw_decode(text, pos)
        pos = _skip_ws(text, pos)
        if text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
    return found


def _line_numbers(text: str, offsets: list[int]) -> list[int]:
    """1-based line of each (ascending) character offset."""
    lines: list[int] = []
    line, last = 1, 0
    for offset in offsets:
        line += text.count("\n", last, offset)
        last = offset
        lines.append(line)
    return lines


def _parse_csv(text: str, file: str) -> Iterator[Paper | LoadError]:
    """A header row (column names case-insensitive) and one paper per row."""
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except (StopIteration, csv.Error) as exc:
        yield LoadError(file=file, line=1, message=f"malformed CSV header: {_clip(str(exc))}")
        return
    columns = [name.strip().lower() for name in header]
    if "abstract" not in columns:
        found = ", ".join(name.strip() for name in header)
        yield LoadError(file=file, line=1, message=f"no 'abstract' column (found: {_clip(found)})")
        return
    while True:
        line = reader.line_num + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            # The reader cannot resynchronise after a malformed row, so the rest is unreadable.
            yield LoadError(file=file, line=line, message=f"malformed CSV: {_clip(str(exc))}")
            return
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            message = f"expected {len(columns)} fields as in the header, found {len(row)}"
            yield LoadError(file=file, line=line, message=message)
            continue
        record: dict[str, str] = {}
        for column, cell in zip(columns, row, strict=True):
            record.setdefault(column, cell)
        yield _paper_from_record(record, file, line)


# ---------------------------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------------------------


def _paper_from_record(record: dict[Any, Any], file: str, line: int) -> Paper | LoadError:
    """A Paper from one source record, or the reason it was rejected."""
    fields: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(key, str):
            fields.setdefault(key.strip().lower(), value)

    def reject(message: str) -> LoadError:
        return LoadError(file=file, line=line, message=message)

    raw = fields.get("abstract")
    if raw is None:
        return reject("missing field 'abstract'")
    if not isinstance(raw, str):
        return reject(f"field 'abstract' must be text, got {_kind(raw)}")
    abstract = _clean(raw)
    if not abstract:
        return reject("empty field 'abstract'")
    if len(abstract) < MIN_ABSTRACT_CHARS:
        return reject(f"abstract too short ({len(abstract)} chars, minimum {MIN_ABSTRACT_CHARS})")
    if len(abstract) > MAX_ABSTRACT_CHARS:
        return reject(f"abstract too long ({len(abstract)} chars, maximum {MAX_ABSTRACT_CHARS})")

    try:
        key = content_key(abstract)
        paper_id = _source_id(fields) or f"h-{key}"
        title = _text(fields, "title")
        url = _text(fields, "url")
        return Paper(
            id=paper_id,
            key=key,
            # An untitled record's display title is derived from its abstract by _load.
            title=title,
            title_is_derived=not title,
            abstract=abstract,
            authors=_list(fields, "authors"),
            keywords=_list(fields, "keywords"),
            primary_area=_text(fields, "primary_area"),
            venue=_text(fields, "venue"),
            decision=_text(fields, "decision"),
            # Only web links are kept: the UI renders this as a link.
            url=url if _URL.match(url) else "",
            avg_rating=_number(fields, ("avg_rating", "rating")),
            n_ratings=_count(fields, "n_ratings"),
            source=f"{file}:{line}",
        )
    except _FieldError as exc:
        return reject(str(exc))


def _source_id(fields: dict[str, Any]) -> str:
    """The record's own id ('id' first, then 'openreview_id'), or '' when it has none."""
    for name in ("id", "openreview_id"):
        value = fields.get(name)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise _FieldError(f"field '{name}' must be a string or integer, got {_kind(value)}")
        text = _CONTROL.sub("", str(value)).strip()
        if len(text) > MAX_ID_CHARS:
            limit = f"{len(text)} chars, maximum {MAX_ID_CHARS}"
            raise _FieldError(f"field '{name}' too long ({limit}): {_clip(text)}")
        if text:
            return text
    return ""


def _text(fields: dict[str, Any], name: str) -> str:
    """A scalar text field, numbers coerced to text; '' when absent or null."""
    value = fields.get(name)
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise _FieldError(f"field '{name}' must be text, got {_kind(value)}")
    text = _clean(str(value))
    if name != "abstract" and len(text) > MAX_FIELD_CHARS:
        # Titles, ids and areas are shown in every answer: a megabyte of one is an attack
        # or a broken export, not metadata.
        raise _FieldError(f"{name} too long ({len(text)} chars, maximum {MAX_FIELD_CHARS})")
    return text


def _number(fields: dict[str, Any], names: tuple[str, ...]) -> float | None:
    """The first of the named number fields present (numbers written as text too, as CSV
    has them); None when absent, null or empty, never 0."""
    for name in names:
        value = fields.get(name)
        if isinstance(value, str):
            value = value.strip()
            if not value:
                continue
            try:
                value = float(value)
            except ValueError:
                shown = _clip(value)
                raise _FieldError(f"field '{name}' must be a number, got {shown!r}") from None
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _FieldError(f"field '{name}' must be a number, got {_kind(value)}")
        if not math.isfinite(value) or value < 0:
            raise _FieldError(f"field '{name}' must be a finite number ≥ 0, got {value}")
        return float(value)
    return None


def _count(fields: dict[str, Any], name: str) -> int | None:
    """A whole non-negative number field ("4" and 4.0 read as 4); None when absent."""
    value = _number(fields, (name,))
    if value is None:
        return None
    if not value.is_integer():
        raise _FieldError(f"field '{name}' must be a whole number, got {value}")
    return int(value)


def _list(fields: dict[str, Any], name: str) -> list[str]:
    """A list-of-text field given as a list or a ';'-separated string."""
    value = fields.get(name)
    if value is None:
        return []
    if isinstance(value, str):
        items: list[Any] = value.split(";")
    elif isinstance(value, list):
        items = value
    else:
        raise _FieldError(
            f"field '{name}' must be a list or a ';'-separated string, got {_kind(value)}"
        )
    out: list[str] = []
    for item in items:
        if item is None:
            continue
        if isinstance(item, bool) or not isinstance(item, str | int | float):
            raise _FieldError(f"field '{name}' must hold text items, found {_kind(item)}")
        text = _clean(str(item))
        if text:
            out.append(text)
    size = sum(map(len, out))
    if size > MAX_ABSTRACT_CHARS:
        raise _FieldError(f"{name} too long ({size} chars, maximum {MAX_ABSTRACT_CHARS})")
    return out


def _clean(text: str) -> str:
    """Text without control characters, normalised like every stored string."""
    return normalize_text(_CONTROL.sub("", text))


def _kind(value: Any) -> str:
    """JSON name of a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def _clip(text: str, limit: int = _ECHO_CHARS) -> str:
    """Text shortened for an error message, so huge input is never echoed."""
    text = _CONTROL.sub("", text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _os_message(exc: OSError) -> str:
    """Short description of a filesystem error."""
    return f"cannot read: {exc.strerror or exc.__class__.__name__}"


# ---------------------------------------------------------------------------------------------
# Deduplication
# ---------------------------------------------------------------------------------------------


def _dedupe(papers: Iterable[Paper]) -> tuple[list[Paper], list[LoadError], int]:
    """One paper per abstract (the richest; the first on ties), first wins on a repeated id."""
    by_key: dict[str, Paper] = {}
    by_id: dict[str, Paper] = {}
    errors: list[LoadError] = []
    merged = 0
    for paper in papers:
        existing = by_key.get(paper.key)
        owner = by_id.get(paper.id)
        if owner is not None and owner.key != paper.key:
            file, _, line = paper.source.rpartition(":")
            message = f"duplicate id {_clip(paper.id)!r}, first seen at {owner.source}"
            errors.append(LoadError(file=file, line=int(line), message=message))
            continue
        if existing is None:
            by_key[paper.key] = by_id[paper.id] = paper
            continue
        merged += 1
        if paper.richness() > existing.richness():
            del by_id[existing.id]
            by_key[paper.key] = by_id[paper.id] = paper
    return list(by_key.values()), errors, merged
