"""Derived indexes stored beside Chroma: built once when ingest changes the collection.

Everything computed from the whole collection (the paper records, the catalog view and its name
index, BM25, the latent factors, ...) is an `Artifact`: a name, `build(papers, previous)`,
`save(value, writer)` and `load(reader, papers)`. `DerivedStore.get` returns an artifact of
the collection's current revision: loaded (memory-mapped where the format allows) when the
stored copy was written at that revision, else built, written and returned. A stored copy of
another revision, another format, with a missing, truncated or unreadable file is never
answered from: it is rebuilt and rewritten.

Layout: `<data_dir>/derived/<collection>/<artifact>/manifest.json` names the revision and the
directory `<token>/` holding that version's files. A writer fills `.tmp-<token>/`, renames it
to `<token>/`, then replaces the manifest (both renames are atomic), so a reader sees the old
version or the new one, never half of one; a process killed in between leaves the previous
manifest, whose revision no longer matches, and the next reader rebuilds.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from rag.models import Paper

# Raised when the layout or the meaning of any artifact's files changes: older copies rebuild.
FORMAT = 2
_STALE_TMP_S = 3600.0  # a writer's leftover staging directory older than this is removed

T = TypeVar("T")


class DerivedMissing(Exception):
    """No usable stored copy: absent, of another revision or format, or unreadable."""


class Writer:
    """Files of one artifact version being written (a staging directory)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        """A path for a file or directory the artifact writes itself (e.g. bm25s.save)."""
        return self.root / key

    def json(self, key: str, value: Any) -> None:
        """Write a JSON document."""
        (self.root / f"{key}.json").write_text(
            json.dumps(value, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
        )

    def array(self, key: str, value: np.ndarray) -> None:
        """Write a numpy array (loaded memory-mapped)."""
        np.save(self.root / f"{key}.npy", np.ascontiguousarray(value), allow_pickle=False)

    def rows(self, key: str, rows: Iterator[str] | Sequence[str]) -> None:
        """Write one JSON text per row, read back one row at a time (`Reader.rows`)."""
        offsets = [0]
        with open(self.root / f"{key}.rows", "wb") as fh:
            for row in rows:
                data = row.encode("utf-8")
                fh.write(data)
                offsets.append(offsets[-1] + len(data))
        self.array(f"{key}.offsets", np.asarray(offsets, dtype=np.int64))


class Reader:
    """Files of one stored artifact version."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        """A file or directory the artifact wrote with `Writer.path`."""
        return self.root / key

    def json(self, key: str) -> Any:
        """A JSON document."""
        return json.loads((self.root / f"{key}.json").read_text(encoding="utf-8"))

    def array(self, key: str) -> np.ndarray:
        """A numpy array, memory-mapped read-only."""
        return np.load(self.root / f"{key}.npy", mmap_mode="r", allow_pickle=False)

    def rows(self, key: str) -> Rows:
        """Rows written with `Writer.rows`, decoded on access."""
        return Rows(self.root / f"{key}.rows", self.array(f"{key}.offsets"))


class Rows(Sequence[Any]):
    """A memory-mapped file of JSON rows: row i is decoded when read (and then kept)."""

    def __init__(self, path: Path, offsets: np.ndarray) -> None:
        self._offsets = offsets
        size = int(offsets[-1])
        if path.stat().st_size != size:
            raise DerivedMissing(f"{path} is {path.stat().st_size} bytes, expected {size}")
        self._data = np.memmap(path, dtype=np.uint8, mode="r") if size else np.zeros(0, np.uint8)
        self._cache: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(i)
        row = self._cache.get(i)
        if row is None:
            start, end = int(self._offsets[i]), int(self._offsets[i + 1])
            row = self._cache[i] = json.loads(self._data[start:end].tobytes())
        return row


class LazyList(Sequence[T]):
    """A sequence whose items are made from rows when first read (`make(row)`)."""

    def __init__(self, rows: Sequence[Any], make: Callable[[Any], T]) -> None:
        self._rows, self._make = rows, make
        self._items: dict[int, T] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        item = self._items.get(i)
        if item is None:
            item = self._items[i] = self._make(self._rows[i])
        return item


@dataclass(frozen=True)
class Artifact(Generic[T]):
    """A derived index: how to build it from the papers and store and load its files.

    `build(papers, previous)` gets the collection's papers (id -> Paper, in the collection's
    order) and the previous revision's value when one was stored, to reuse what has not
    changed; `load(reader, papers)` must raise (any exception) on a file it cannot read.
    `version` is raised when what `build` computes changes: copies of another version
    rebuild, and the other artifacts stay (FORMAT rebuilds them all).
    """

    name: str
    build: Callable[[Mapping[str, Paper], T | None], T]
    save: Callable[[T, Writer], None]
    load: Callable[[Reader, Mapping[str, Paper]], T]
    version: int = 1


class DerivedStore:
    """The derived indexes of one collection, in `<data_dir>/derived/<collection>/`."""

    def __init__(self, root: Path, collection: str) -> None:
        self.root = root / "derived" / collection
        self.collection = collection
        self.registry: dict[str, Artifact[Any]] = {}
        # Build and load times of this process, by artifact (for benchmarks and `stats`).
        self.timings: dict[str, float] = {}

    def register(self, artifact: Artifact[Any]) -> None:
        """Add a named artifact; `refresh` builds every registered one at ingest."""
        self.registry[artifact.name] = artifact

    def _manifest(self, name: str) -> dict[str, Any] | None:
        try:
            return json.loads((self.root / name / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def stored_revision(self, name: str) -> str | None:
        """Revision of the stored copy of an artifact, if any."""
        manifest = self._manifest(name)
        return None if manifest is None else manifest.get("revision")

    def load(self, artifact: Artifact[T], revision: str, papers: Mapping[str, Paper]) -> T:
        """The stored copy at this revision; DerivedMissing when there is no usable one."""
        start = time.perf_counter()
        manifest = self._manifest(artifact.name)
        if (
            manifest is None
            or manifest.get("format") != FORMAT
            or manifest.get("version", 1) != artifact.version
            or manifest.get("collection") != self.collection
            or manifest.get("revision") != revision
        ):
            raise DerivedMissing(f"{artifact.name}: no copy at revision {revision}")
        folder = self.root / artifact.name / str(manifest.get("token"))
        for rel, size in (manifest.get("sizes") or {}).items():
            try:
                if (folder / rel).stat().st_size != size:
                    raise DerivedMissing(f"{artifact.name}: {rel} is truncated or changed")
            except OSError as exc:
                raise DerivedMissing(f"{artifact.name}: {rel} is missing") from exc
        try:
            value = artifact.load(Reader(folder), papers)
        except DerivedMissing:
            raise
        except Exception as exc:  # any unreadable file means: rebuild
            raise DerivedMissing(f"{artifact.name}: unreadable ({exc})") from exc
        self.timings[f"load {artifact.name}"] = time.perf_counter() - start
        return value

    def save(self, artifact: Artifact[T], revision: str, value: T) -> bool:
        """Write a version atomically (files, then the manifest); False when not writable."""
        token = uuid.uuid4().hex[:16]
        home = self.root / artifact.name
        staging = home / f".tmp-{token}"
        try:
            staging.mkdir(parents=True)
            artifact.save(value, Writer(staging))
            sizes = {
                str(f.relative_to(staging)): f.stat().st_size
                for f in sorted(staging.rglob("*"))
                if f.is_file()
            }
            for f in staging.rglob("*"):
                if f.is_file():
                    _fsync(f)
            os.rename(staging, home / token)
            previous = self._manifest(artifact.name)
            manifest = {
                "format": FORMAT,
                "version": artifact.version,
                "collection": self.collection,
                "revision": revision,
                "token": token,
                "written": time.time(),
                "sizes": sizes,
            }
            tmp = home / f".manifest-{token}.json"
            tmp.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
            _fsync(tmp)
            os.replace(tmp, home / "manifest.json")
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
            return False
        if previous and previous.get("token") and previous["token"] != token:
            # Readers that memory-mapped the old files keep them until they close them.
            shutil.rmtree(home / str(previous["token"]), ignore_errors=True)
        self._sweep(home)
        return True

    def _sweep(self, home: Path) -> None:
        """Remove staging left by killed writers, and versions no manifest names."""
        current = str((self._manifest(home.name) or {}).get("token"))
        now = time.time()
        for entry in home.iterdir():
            if entry.name in ("manifest.json", current):
                continue
            try:
                old = now - entry.stat().st_mtime > _STALE_TMP_S
            except OSError:
                continue
            if old:
                if entry.is_dir():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)

    def get(
        self,
        artifact: Artifact[T],
        revision: str | None,
        papers: Mapping[str, Paper],
        previous: T | None = None,
    ) -> T:
        """The artifact at this revision: loaded when stored, else built (reusing `previous`,
        or the stored older copy) and written."""
        if revision is not None:
            try:
                return self.load(artifact, revision, papers)
            except DerivedMissing:
                pass
            if previous is None:
                previous = self._previous(artifact)
        start = time.perf_counter()
        value = artifact.build(papers, previous)
        self.timings[f"build {artifact.name}"] = time.perf_counter() - start
        if revision is not None:
            self.save(artifact, revision, value)
        return value

    def _previous(self, artifact: Artifact[T]) -> T | None:
        """The stored copy of an older revision, for an incremental build (or None)."""
        old = self.stored_revision(artifact.name)
        if old is None:
            return None
        try:
            # Without the papers: that revision's differ; `build` reads only what it stored.
            return self.load(artifact, old, {})
        except DerivedMissing:
            return None

    def size(self) -> int:
        """Bytes the stored copies take on disk."""
        if not self.root.exists():
            return 0
        return sum(f.stat().st_size for f in self.root.rglob("*") if f.is_file())


def _fsync(path: Path) -> None:
    with open(path, "rb") as fh:
        os.fsync(fh.fileno())


class PaperTable(Mapping[str, Paper]):
    """Paper records by id, in the collection's order, each parsed when first read."""

    def __init__(self, ids: Sequence[str], records: Sequence[Any]) -> None:
        self.ids = list(ids)
        self._at = {pid: i for i, pid in enumerate(self.ids)}
        self._papers: LazyList[Paper] = LazyList(records, Paper.model_validate)

    @classmethod
    def of(cls, papers: Mapping[str, Paper]) -> PaperTable:
        """A table of papers already parsed."""
        table = cls(list(papers), list(papers.values()))
        return table

    def __getitem__(self, pid: str) -> Paper:
        return self._papers[self._at[pid]]

    def __contains__(self, pid: object) -> bool:
        return pid in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self.ids)

    def __len__(self) -> int:
        return len(self.ids)

    def values_list(self) -> Sequence[Paper]:
        """The papers in order, parsed lazily."""
        return self._papers


def _save_papers(table: Mapping[str, Paper], out: Writer) -> None:
    out.json("ids", list(table))
    out.rows("papers", (table[pid].model_dump_json() for pid in table))


def _load_papers(src: Reader, _papers: Mapping[str, Paper]) -> PaperTable:
    ids = src.json("ids")
    records = src.rows("papers")
    if len(ids) != len(records):
        raise DerivedMissing("papers: ids and records differ in length")
    return PaperTable(ids, records)


# The paper records of the collection, read from Chroma once per revision (index.snapshot).
PAPERS: Artifact[Mapping[str, Paper]] = Artifact(
    "papers", lambda papers, _old: papers, _save_papers, _load_papers
)


def in_order(papers: Mapping[str, Paper]) -> Sequence[Paper]:
    """The papers in the collection's order (parsed lazily when they come from the store)."""
    if isinstance(papers, PaperTable):
        return papers.values_list()
    return list(papers.values())


class Current(Generic[T]):
    """One artifact at the index's current revision, kept for this process: loaded from the
    store (or built and stored) when the revision changes."""

    def __init__(self, artifact: Artifact[T], store: DerivedStore | None = None) -> None:
        self.artifact, self.store = artifact, store
        self.value: T | None = None
        self.revision: str | None = None
        self._lock = threading.Lock()

    def get(self, papers: Mapping[str, Paper], revision: str | None) -> T:
        """The value at `revision`, built from `papers` when neither kept nor stored."""
        with self._lock:
            if self.value is None or revision != self.revision:
                if self.store is not None:
                    value = self.store.get(self.artifact, revision, papers, self.value)
                else:
                    value = self.artifact.build(papers, self.value)
                self.value, self.revision = value, revision
            return self.value
