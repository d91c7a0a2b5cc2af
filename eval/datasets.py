"""Evaluation datasets: reading the JSONL items and resolving which corpus each set runs on."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EVAL_DIR = REPO / "eval"
SEED = REPO / "data" / "iclr2026_seed_abstracts.txt"
SHARED_CORPUS = REPO.parent / "shared" / "data" / "iclr2026_accepted.jsonl"

TYPES = ("lookup", "detail", "multi", "conversation", "unanswerable")


class DatasetError(ValueError):
    """A dataset file is missing or malformed."""


class CorpusMissing(FileNotFoundError):
    """A corpus file the dataset needs is not on this machine (the run is skipped)."""


@dataclass(frozen=True)
class Item:
    """One evaluation question, with its gold papers (by content key) and required facts."""

    id: str
    type: str
    question: str
    gold_keys: tuple[str, ...]
    facts: tuple[str, ...]
    turns: tuple[str, ...] | None = None
    area: str | None = None
    style: str | None = None

    @property
    def group(self) -> str:
        """Report row: the type, with paraphrased questions apart from near-verbatim ones."""
        return f"{self.type} ({self.style})" if self.style else self.type

    @property
    def answerable(self) -> bool:
        """False for items the collection cannot answer (a refusal is expected)."""
        return bool(self.gold_keys)

    @property
    def split(self) -> str:
        """'fit' or 'heldout': which half of the items the refusal model may be fitted on.

        Decided by the item id's hash, so adding items never moves an old one across.
        """
        return split_of(self.id)

    @property
    def all_turns(self) -> tuple[str, ...]:
        """The user turns in order; a single-turn item has just its question."""
        return self.turns or (self.question,)


@dataclass
class Dataset:
    """A named question set and the corpus files its index is built from."""

    name: str
    path: Path
    corpus: list[Path]
    items: list[Item] = field(default_factory=list)

    @property
    def sha256(self) -> str:
        """Digest of the dataset file, recorded with every result."""
        return file_sha256(self.path)


def split_of(item_id: str) -> str:
    """'fit' or 'heldout' for an item id (its sha256 parity); see Item.split."""
    return "heldout" if int(hashlib.sha256(item_id.encode()).hexdigest(), 16) % 2 else "fit"


def file_sha256(path: Path) -> str:
    """Hex sha256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_items(path: Path) -> list[Item]:
    """Parse a dataset JSONL file; raises DatasetError naming the line on bad input."""
    if not path.is_file():
        raise DatasetError(f"dataset {path} not found")
    items: list[Item] = []
    seen: set[str] = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            turns = rec.get("turns")
            item = Item(
                id=str(rec["id"]),
                type=str(rec["type"]),
                question=str(rec["question"]),
                gold_keys=tuple(rec["gold_keys"]),
                facts=tuple(rec["facts"]),
                turns=tuple(turns) if turns else None,
                area=rec.get("area"),
                style=rec.get("style"),
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise DatasetError(f"{path}:{n}: not a valid item ({exc})") from exc
        if item.type not in TYPES:
            raise DatasetError(f"{path}:{n}: unknown type {item.type!r}")
        if item.id in seen:
            raise DatasetError(f"{path}:{n}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    if not items:
        raise DatasetError(f"{path} holds no items")
    return items


def resolve(
    name: str,
    corpus: list[Path] | None = None,
    shared_corpus: Path = SHARED_CORPUS,
) -> Dataset:
    """`golden`, `scale` or a path to a JSONL file; `corpus` overrides the default corpus files.

    Raises CorpusMissing when a corpus file is absent, so callers can skip the run cleanly.
    """
    if name == "golden":
        ds = Dataset("golden", EVAL_DIR / "golden.jsonl", corpus or [SEED])
    elif name == "scale":
        ds = Dataset("scale", EVAL_DIR / "scale.jsonl", corpus or [shared_corpus, SEED])
    else:
        path = Path(name)
        if not path.is_file():
            raise DatasetError(f"dataset {name!r} is neither golden, scale nor an existing file")
        ds = Dataset(path.stem, path, corpus or [SEED])
    missing = [p for p in ds.corpus if not p.exists()]
    if missing:
        raise CorpusMissing(
            f"corpus file {missing[0]} for the {ds.name!r} set is not available; "
            "the run is skipped (set --corpus to point at it)"
        )
    ds.items = read_items(ds.path)
    return ds
