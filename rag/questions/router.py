"""The learned question router: a question's kind and answer type from its embedding.

A small linear head (multinomial logistic regression) over the bundled MiniLM's question
vector plus a few structural features (a coined name, a quoted span, the length, a question
mark) predicts the `QuestionKind` and the `AnswerType` with a probability. It is trained by
`eval/train_router.py` from the labelled question corpus (eval/questions/*.jsonl) and ships as
package data (`rag/data/router.npz` + `router.json`); like the index, it refuses weights made
for another embedder.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rag.lexicon import Lexicon
from rag.models import AnswerType, QuestionKind
from rag.protocols import Embedder
from rag.store.embeddings import embedder_key
from rag.store.names import looks_coined

DATA_DIR = Path(__file__).parents[1] / "data"
WEIGHTS = DATA_DIR / "router.npz"
MANIFEST = DATA_DIR / "router.json"
# Quote characters that mark a title or phrase written verbatim.
_QUOTES = "\"“”'‘’「」《》"


class RouterError(RuntimeError):
    """The router's weights are missing, damaged or were made for another embedder."""


@dataclass(frozen=True)
class Route:
    """What the router read: the kind and answer type, each with its probability."""

    kind: QuestionKind
    kind_p: float
    answer_type: AnswerType  # a Literal of rag.models
    answer_type_p: float


def routed_text(question: str, turns: Sequence[str] | None = None) -> str:
    """The text the router embeds: the question itself (follow-ups are routed on their own
    words; the planner resolves what they refer to)."""
    del turns  # the kind is the last turn's; earlier turns only name what "it" is
    return " ".join(question.split())


def structure(question: str) -> np.ndarray:
    """Features of a question's shape that an embedding blurs: whether it writes a coined
    name (FRABench, GPT-4), quotes something or is written in a CJK script. Not its length or
    question mark: those say how a person types (a search box, lowercase without punctuation),
    not what they ask, and learning them did not carry over to styles the fit never saw
    (eval/router_report.py: 0.691/0.672 with them, 0.697/0.701 without)."""
    tokens = question.replace("?", " ").split()
    coined = any(looks_coined(t.strip(".,;:!()[]")) for t in tokens[1:] or tokens)
    quoted = sum(question.count(q) for q in _QUOTES) >= 2
    return np.array(
        [float(coined), float(quoted), float(any(ord(c) > 0x2E80 for c in question))],
        dtype=np.float32,
    )


BUCKETS = 2048
_TOKEN = re.compile(r"\w+|[^\w\s]")


def bag(text: str, buckets: int = BUCKETS) -> np.ndarray:
    """Hashed words, word pairs and character trigrams of a text (sublinear counts, unit
    length): the question's wording, which the sentence embedding blurs into its topic."""
    words = _TOKEN.findall(text.lower())
    grams = [f"w:{w}" for w in words] + [
        f"b:{a} {b}" for a, b in zip(words, words[1:], strict=False)
    ]
    padded = f" {' '.join(words)} "
    grams += [f"c:{padded[i : i + 3]}" for i in range(len(padded) - 2)]
    v = np.zeros(2 * buckets, dtype=np.float32)
    for g in grams:
        # Words and pairs hash into the first half, character trigrams into the second.
        half = buckets if g.startswith("c:") else 0
        v[half + zlib.crc32(g.encode("utf-8")) % buckets] += 1.0
    v = np.log1p(v)
    for half in (slice(0, buckets), slice(buckets, None)):
        norm = np.linalg.norm(v[half])
        if norm:
            v[half] /= norm
    return v


def names_read(named: int, question: str, follow_up: bool, lexicon: Lexicon) -> int:
    """How many papers the router is told a question names: those it writes, else one when a
    follow-up points back at a paper ("how was it trained?", "what does the method add?");
    the kind of such a question is the kind of one that names the paper."""
    if named or not follow_up:
        return named
    return int(lexicon.says(question, "singular"))


def features(embedder: Embedder, texts: Sequence[str], names: Sequence[int]) -> np.ndarray:
    """The router's input rows: each text's embedding, its hashed wording, its structure and
    how many catalog papers it names (0, 1, 2 or more; the catalog's exact lookup)."""
    if not texts:
        return np.zeros((0, 0), np.float32)
    vectors = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    rows = [
        np.concatenate([bag(t), structure(t), np.eye(3, dtype=np.float32)[min(n, 2)]])
        for t, n in zip(texts, names, strict=True)
    ]
    return np.hstack([vectors, np.stack(rows)])


def fit_softmax(
    x: np.ndarray, y: np.ndarray, classes: int, l2: float = 1e-3, steps: int = 600
) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent with momentum:
    deterministic (zero start, fixed steps), so the same data gives the same weights."""
    n, d = x.shape
    w = np.zeros((d, classes), dtype=np.float64)
    b = np.zeros(classes, dtype=np.float64)
    vw, vb = np.zeros_like(w), np.zeros_like(b)
    onehot = np.eye(classes)[y]
    xd = x.astype(np.float64)
    rate, momentum = 2.0, 0.9
    for _ in range(steps):
        p = _softmax(xd @ w + b)
        gw = xd.T @ (p - onehot) / n + l2 * w
        gb = (p - onehot).mean(axis=0)
        vw = momentum * vw - rate * gw
        vb = momentum * vb - rate * gb
        w += vw
        b += vb
    return w.astype(np.float32), b.astype(np.float32)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Head:
    """One linear head: weights, bias and the label of each column."""

    w: np.ndarray
    b: np.ndarray
    labels: tuple[str, ...]

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities for each row of x."""
        return _softmax(x @ self.w + self.b)


def corpus_hash(rows: Sequence[dict]) -> str:
    """A digest of what the router learns from: each item's id, words and labels."""
    keep = ("id", "question", "turns", "kind", "answer_type")
    text = json.dumps(
        sorted(([r.get(k) for k in keep] for r in rows), key=lambda r: str(r[0])),
        ensure_ascii=False,
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def save(
    path: Path, kind: Head, answer: Head, embedder: str, digest: str, extra: dict | None = None
) -> None:
    """Write the weights (npz) and their manifest (json, beside it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, kind_w=kind.w, kind_b=kind.b, type_w=answer.w, type_b=answer.b)
    manifest = {
        "embedder": embedder,
        "corpus_hash": digest,
        "kinds": list(kind.labels),
        "answer_types": list(answer.labels),
        **(extra or {}),
    }
    path.with_suffix(".json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def load_manifest(path: Path = WEIGHTS) -> dict:
    """The manifest of a weights file: embedder, corpus hash, labels."""
    try:
        return json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise RouterError(
            f"{path.with_suffix('.json')}: no readable router manifest ({exc})"
        ) from exc


class Router:
    """Routes a question to its kind and answer type with the trained linear heads."""

    def __init__(self, embedder: Embedder, path: Path = WEIGHTS) -> None:
        manifest = load_manifest(path)
        key = embedder_key(embedder)
        if manifest.get("embedder") != key:
            raise RouterError(
                f"{path}: router weights were trained on embedder {manifest.get('embedder')!r}, "
                f"not {key!r}; retrain with `python eval/train_router.py`"
            )
        try:
            data = np.load(path)
            self.kind = Head(data["kind_w"], data["kind_b"], tuple(manifest["kinds"]))
            self.answer = Head(data["type_w"], data["type_b"], tuple(manifest["answer_types"]))
        except (OSError, KeyError, ValueError) as exc:
            raise RouterError(f"{path}: damaged router weights ({exc})") from exc
        self.embedder = embedder
        self.manifest = manifest

    def route(self, question: str, names: int = 0, turns: Sequence[str] | None = None) -> Route:
        """The kind and answer type of one question naming `names` catalog papers."""
        return self.route_many([routed_text(question, turns)], [names])[0]

    def route_many(self, texts: Sequence[str], names: Sequence[int]) -> list[Route]:
        """Route several texts in one embedding batch."""
        x = features(self.embedder, texts, names)
        pk, pa = self.kind.probabilities(x), self.answer.probabilities(x)
        out = []
        for rk, ra in zip(pk, pa, strict=True):
            k, a = int(rk.argmax()), int(ra.argmax())
            out.append(
                Route(
                    QuestionKind(self.kind.labels[k]),
                    float(rk[k]),
                    self.answer.labels[a],  # type: ignore[arg-type]
                    float(ra[a]),
                )
            )
        return out


def router_for(embedder: Embedder, path: Path = WEIGHTS) -> Router:
    """The router on the pipeline's embedder when its weights were made for it; else on the
    bundled model the weights were made for (a configured OpenAI or custom embedder)."""
    try:
        return Router(embedder, path)
    except RouterError:
        from rag.store.embeddings import LocalEmbedder

        fallback = LocalEmbedder()
        if load_manifest(path).get("embedder") != embedder_key(fallback):
            raise
        return Router(fallback, path)
