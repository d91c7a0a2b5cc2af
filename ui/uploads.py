"""Accept uploaded corpus files: safe names, a size limit, and copies only inside the data dir."""

from __future__ import annotations

import re
import unicodedata
import uuid
from pathlib import Path

from rag.store.loaders import SUPPORTED_SUFFIXES

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
MAX_FILES = 20
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


class UploadRejected(ValueError):
    """A file refused before loading; the message is shown to the user."""


def uploads_dir(data_dir: Path) -> Path:
    """Where accepted uploads are kept: `<data_dir>/uploads`."""
    return data_dir / "uploads"


def safe_filename(name: str) -> str:
    """A file name with no directories, no leading dots and only [A-Za-z0-9._-]; keeps the
    suffix (lower-cased) so the loader picks the right parser."""
    # Both separators: a Windows browser may send "C:\\x\\y.csv", and "../" must not survive.
    base = re.split(r"[\\/]", name)[-1]
    base = unicodedata.normalize("NFKC", base)
    stem, dot, suffix = base.rpartition(".")
    if not dot:
        stem, suffix = base, ""
    stem = _UNSAFE.sub("_", stem).strip("._-")[:80] or "upload"
    suffix = _UNSAFE.sub("", suffix).lower()[:10]
    return f"{stem}.{suffix}" if suffix else stem


def store_upload(
    source: Path, original_name: str, data_dir: Path, max_bytes: int = MAX_UPLOAD_BYTES
) -> Path:
    """Copy one uploaded file into the uploads directory under a fresh sanitised name."""
    name = safe_filename(original_name)
    suffix = Path(name).suffix
    if suffix not in SUPPORTED_SUFFIXES:
        allowed = ", ".join(s.lstrip(".").upper() for s in SUPPORTED_SUFFIXES)
        raise UploadRejected(f"unsupported file type {suffix or '(none)'}; use {allowed}")
    try:
        size = source.stat().st_size
    except OSError as exc:
        raise UploadRejected("the upload could not be read") from exc
    if size > max_bytes:
        raise UploadRejected(
            f"too large ({size / 1e6:.1f} MB); the limit is {max_bytes / 1e6:.0f} MB"
        )
    if size == 0:
        raise UploadRejected("the file is empty")
    target_dir = uploads_dir(data_dir).resolve()
    target_dir.mkdir(parents=True, exist_ok=True)
    # A random prefix: two users uploading "papers.csv" never overwrite each other.
    target = (target_dir / f"{uuid.uuid4().hex[:12]}-{name}").resolve()
    if target.parent != target_dir:
        raise UploadRejected("invalid file name")
    with source.open("rb") as src, target.open("xb") as dst:
        copied = 0
        while chunk := src.read(1 << 20):
            copied += len(chunk)
            if copied > max_bytes:
                # The file grew after stat(): stop and remove the partial copy.
                dst.close()
                target.unlink(missing_ok=True)
                raise UploadRejected(f"too large; the limit is {max_bytes / 1e6:.0f} MB")
            dst.write(chunk)
    return target


def discard(path: Path, data_dir: Path) -> None:
    """Delete an upload that yielded nothing, only if it lies inside the uploads directory."""
    root = uploads_dir(data_dir).resolve()
    resolved = path.resolve()
    if resolved.parent == root and resolved.is_file():
        resolved.unlink()
