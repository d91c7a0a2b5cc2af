"""Runs evaluation configurations over a dataset: per-item records, aggregates, provenance."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.models import Answer, Conversation, Paper
from rag.protocols import Embedder, Mode, Progress
from rag.retrieval.support import SUPPORT_THRESHOLD
from rag.settings import Settings
from rag.store.chroma import chroma_client
from rag.store.chunking import split_sentences
from rag.store.embeddings import CachedEmbedder, make_embedder
from rag.store.index import PaperIndex

from . import metrics as M
from .datasets import REPO, Dataset, Item, file_sha256
from .judge import Judge, JudgeRecord
from .textbook import TextbookRetriever

Answerer = Literal["extractive", "model"]
# Papers listed per question for the retrieval metrics (recall@10 and nDCG@10 need ten).
RETRIEVAL_DEPTH = 10
TEXTBOOK = "llamaindex-baseline"

# Aggregated per item; "higher is better" for each, which --min and the baseline rely on.
ITEM_METRICS = (
    "recall@1",
    "recall@5",
    "recall@10",
    "mrr",
    "ndcg@10",
    "fact_recall",
    "citation_precision",
    "citation_recall",
    "quote_verbatim",
    "quote_sentences_verbatim",
    "quote_support",
    "faithfulness",
    "faithfulness_rescored",
    "answered_correctly",
)
QUALITY_METRICS = (*ITEM_METRICS, "refusal_precision", "refusal_recall")


class EvalError(RuntimeError):
    """The evaluation cannot run (an unusable corpus, a missing model, …)."""


@dataclass(frozen=True)
class Config:
    """One system under test: a retriever and an answerer (or the textbook baseline)."""

    name: str
    retriever: Mode
    answerer: Answerer
    textbook: bool = False

    @property
    def label(self) -> str:
        """How tables and charts name this configuration."""
        if self.textbook:
            return f"{self.name} (dense, whole abstracts)"
        return f"{self.retriever} + {self.answerer}"


def primary_config(retriever: Mode, answerer: Answerer) -> Config:
    """The configuration chosen by --retriever/--answerer; thresholds apply to it."""
    return Config(retriever, retriever, answerer)


def compare_configs(primary: Config) -> list[Config]:
    """hybrid, dense, bm25 (with the primary's answerer) and the textbook baseline."""
    configs = [primary]
    for mode in ("hybrid", "dense", "bm25"):
        if mode != primary.retriever:
            configs.append(Config(mode, mode, primary.answerer))  # type: ignore[arg-type]
    configs.append(Config(TEXTBOOK, "dense", "extractive", textbook=True))
    return configs


class PerQuestionEmbedder:
    """The embedding model with a cache that the evaluator empties before every user turn.

    Within one ask the question is embedded once and reused, as the app's memory cache does;
    across questions nothing carries over (unlike the on-disk cache, which would make a
    configuration's latency depend on which ones ran before it).
    """

    def __init__(self, model: Embedder, cache_key: str | None = None) -> None:
        self.model = model
        self.name = model.name
        if cache_key:
            # The index checks this against the collection it opens (see rag.store.embeddings).
            self.cache_key = cache_key
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str], progress: Progress | None = None) -> np.ndarray:
        """Vectors of the texts, computed once per turn."""
        if not texts:
            return self.model.embed([], progress)
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            self._memo.update(zip(missing, self.model.embed(missing, progress), strict=True))
        return np.stack([self._memo[t] for t in texts]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        """The query's vector, computed once per turn."""
        key = "\0query\0" + text  # apart from passages: a query prefix changes the vector
        if key not in self._memo:
            self._memo[key] = self.model.embed_query(text)
        return self._memo[key]

    def clear(self) -> None:
        """Forget every vector: the next question pays for its own embedding."""
        self._memo.clear()


@dataclass
class ConfigResult:
    """Per-item records and aggregates of one configuration."""

    config: Config
    items: list[dict[str, Any]] = field(default_factory=list)
    aggregate: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "config": {**asdict(self.config), "label": self.config.label},
            **self.aggregate,
            "items": self.items,
        }


class Evaluator:
    """Asks a dataset's questions through one configuration at a time and scores the answers."""

    def __init__(
        self,
        pipeline: Pipeline,
        judge: Judge | None = None,
        documents: Embedder | None = None,
        queries: PerQuestionEmbedder | None = None,
    ) -> None:
        self.pipeline = pipeline
        self.judge = judge
        # Embeds whole abstracts for the textbook baseline (cached on disk when possible).
        self.documents = documents or pipeline.embedder
        # The pipeline's question embedder, emptied before every user turn (when it is one).
        self.queries = queries
        catalog = pipeline.catalog()
        self.papers = {p.key: p for p in catalog.values()}
        self.key_of = {pid: p.key for pid, p in catalog.items()}
        self.abstracts = {p.key: p.abstract for p in catalog.values()}
        self._textbook: Pipeline | None = None
        self.progress = False

    # -- support scores through the offline scorer ---------------------------------------------

    def quote_support(self, claim: str, quote: str, key: str) -> float:
        """How well a citation's quote supports a claim (the Scorer over the quote alone)."""
        paper = self.papers.get(key)
        if paper is None or not quote.strip():
            return 0.0
        # A separate id: the quote is scored on its own, not via the paper's stored chunks.
        alone = Paper(id=f"quote:{paper.id}", key=key, title=paper.title, abstract=quote)
        return self.pipeline.scorer.support(claim, [alone])[0]

    def claim_support(self, claim: str, keys: Sequence[str]) -> float:
        """Best support for a claim among the cited papers' sentences."""
        papers = [self.papers[k] for k in keys if k in self.papers]
        return self.pipeline.scorer.support(claim, papers)[0] if papers else 0.0

    # -- answering -----------------------------------------------------------------------------

    def textbook(self) -> Pipeline:
        """The pipeline with the textbook baseline as its retriever, built on first use."""
        if self._textbook is None:
            queries = self.pipeline.embedder
            baseline = TextbookRetriever(
                list(self.pipeline.catalog().values()),
                self.documents,
                queries if queries is not self.documents else None,
                progress=self.progress,
            )
            self._textbook = self.pipeline.using(retriever=baseline)
        return self._textbook

    def _pipeline_for(self, config: Config) -> Pipeline:
        return self.textbook() if config.textbook else self.pipeline

    def turn(
        self, question: str, conversation: Conversation, config: Config
    ) -> tuple[Answer, list[str]]:
        """Answer one user turn (recorded in the conversation) and the ranked paper keys."""
        if self.queries is not None:
            self.queries.clear()
        opts = AskOptions(
            retrieval=config.retriever, answerer=config.answerer, depth=RETRIEVAL_DEPTH
        )
        answer = self._pipeline_for(config).ask(question, conversation, opts)
        # The answer names the papers it ranked for its standalone question: no second search.
        return answer, [self.key_of[pid] for pid in answer.retrieved if pid in self.key_of]

    def warm_up(self, config: Config) -> None:
        """Load models and build indexes before the clock runs, so item 1 is not slower."""
        question = "Which paper studies reinforcement learning?"
        self._pipeline_for(config).search(question, k=RETRIEVAL_DEPTH, mode=config.retriever)
        self.claim_support(question, list(self.papers)[:1])

    # -- scoring -------------------------------------------------------------------------------

    def evaluate_item(
        self, item: Item, config: Config
    ) -> tuple[dict[str, Any], JudgeRecord | None]:
        """Replay the item's turns through one conversation and score the last."""
        conversation = Conversation()
        prompt_tokens = completion_tokens = 0
        answer: Answer | None = None
        ranked: list[str] = []
        for question in item.all_turns:
            answer, ranked = self.turn(question, conversation, config)
            if answer.usage:
                prompt_tokens += answer.usage.prompt_tokens
                completion_tokens += answer.usage.completion_tokens
        assert answer is not None
        gold = set(item.gold_keys)
        cited = [] if answer.refused else M.cited_keys(answer, self.key_of)
        values: dict[str, float | None] = dict(M.retrieval_metrics(ranked, gold))
        values["fact_recall"] = M.fact_recall(item.facts, answer.text, answer.refused)
        values["citation_precision"] = M.citation_precision(cited, gold) if gold else None
        values["citation_recall"] = M.citation_recall(cited, gold)
        values.update(
            M.quote_metrics(
                answer,
                self.abstracts,
                self.key_of,
                self.quote_support,
                SUPPORT_THRESHOLD,
                split_sentences,
            )
        )
        values["faithfulness"] = M.faithfulness(answer)
        values["faithfulness_rescored"] = M.faithfulness_rescored(
            answer, self.key_of, self.claim_support, SUPPORT_THRESHOLD
        )
        correct = M.answered_correctly(answer.refused, cited, gold)
        values["answered_correctly"] = None if correct is None else float(correct)
        record: dict[str, Any] = {
            "id": item.id,
            "type": item.group,
            "question": item.question,
            "standalone_question": answer.standalone_question,
            "answerable": item.answerable,
            "gold_keys": list(item.gold_keys),
            "retrieved": ranked,
            "cited": cited,
            "refused": answer.refused,
            "error": answer.error,
            "answer": answer.text,
            "metrics": {k: _round(v) for k, v in values.items()},
            "latency_ms": {
                "answer": round(answer.timings.get("total", 0.0) * 1000, 2),
                "retrieve": round(answer.timings.get("retrieve", 0.0) * 1000, 2),
            },
        }
        if answer.mode == "model" or prompt_tokens or completion_tokens:
            record["usage"] = {
                "model": answer.model,
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
            }
        judged: JudgeRecord | None = None
        if self.judge is not None and config.answerer == "model" and not config.textbook:
            judged = self.judge.grade(item.question, item.facts, answer)
            record["judge"] = judged.to_json()
        return record, judged

    def run(self, config: Config, items: Sequence[Item], progress: bool = False) -> ConfigResult:
        """Evaluate every item under one configuration."""
        from tqdm import tqdm

        result = ConfigResult(config)
        judges: list[JudgeRecord] = []
        self.warm_up(config)
        bar = tqdm(items, desc=config.name, unit="q", file=sys.stderr, disable=not progress)
        for item in bar:
            record, judged = self.evaluate_item(item, config)
            result.items.append(record)
            if judged is not None:
                judges.append(judged)
        result.aggregate = aggregate(result.items, judges)
        return result


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), 4)


def aggregate(records: Sequence[dict[str, Any]], judges: Sequence[JudgeRecord] = ()) -> dict:
    """Means of the per-item metrics, refusal precision/recall, latency, tokens and judge."""
    out: dict[str, Any] = {"metrics": {}, "n": {}}
    for name in ITEM_METRICS:
        value, n = M.mean(r["metrics"].get(name) for r in records)
        out["metrics"][name] = _round(value)
        out["n"][name] = n
    counts = M.refusal_counts((not r["answerable"], r["refused"]) for r in records)
    out["metrics"]["refusal_precision"] = _round(counts.precision)
    out["metrics"]["refusal_recall"] = _round(counts.recall)
    out["refusals"] = asdict(counts)
    out["items"] = len(records)
    out["errors"] = sum(1 for r in records if r.get("error"))
    answer_ms = [r["latency_ms"]["answer"] for r in records]
    retrieve_ms = [r["latency_ms"]["retrieve"] for r in records]
    out["latency_ms"] = {
        "answer_p50": _round(M.percentile(answer_ms, 50)),
        "answer_p95": _round(M.percentile(answer_ms, 95)),
        "retrieve_p50": _round(M.percentile(retrieve_ms, 50)),
        "retrieve_p95": _round(M.percentile(retrieve_ms, 95)),
    }
    out["usage"] = _usage(records, judges)
    if judges:
        out["judge"] = _judge_summary(judges)
    out["by_type"] = _by_type(records)
    return out


def _usage(records: Sequence[dict[str, Any]], judges: Sequence[JudgeRecord]) -> dict | None:
    used = [r["usage"] for r in records if "usage" in r]
    if not used:
        return None
    model = next((u["model"] for u in used if u["model"]), "")
    prompt = sum(u["prompt_tokens"] for u in used)
    completion = sum(u["completion_tokens"] for u in used)
    verdicts = [v for j in judges for v in j.verdicts]
    judge_prompt = sum(v.prompt_tokens for v in verdicts)
    judge_completion = sum(v.completion_tokens for v in verdicts)
    return {
        "model": model,
        "priced": M.price_of(model) is not None,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cost_usd": round(M.cost_usd(model, prompt, completion), 6),
        "judge_prompt_tokens": judge_prompt,
        "judge_completion_tokens": judge_completion,
        "judge_cost_usd": round(M.cost_usd(model, judge_prompt, judge_completion), 6),
    }


def _judge_summary(judges: Sequence[JudgeRecord]) -> dict[str, Any]:
    faith = [j.faithfulness for j in judges if j.faithfulness is not None]
    correct = [j.correctness for j in judges if j.correctness is not None]
    verdicts = [*faith, *correct]
    return {
        "judge_faithfulness": _round(M.mean(v.value for v in faith if v.status == "ok")[0]),
        "judge_correctness": _round(M.mean(v.value for v in correct if v.status == "ok")[0]),
        "judged": len(verdicts),
        "judge_parse_failures": sum(1 for v in verdicts if v.status == "parse_failure"),
        "judge_errors": sum(1 for v in verdicts if v.status == "error"),
    }


BY_TYPE_METRICS = ("recall@5", "mrr", "fact_recall", "citation_precision", "citation_recall")


def _by_type(records: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    types = sorted({r["type"] for r in records})
    out: dict[str, dict[str, Any]] = {}
    for t in types:
        rows = [r for r in records if r["type"] == t]
        entry: dict[str, Any] = {"n": len(rows)}
        for name in BY_TYPE_METRICS:
            entry[name] = _round(M.mean(r["metrics"].get(name) for r in rows)[0])
        entry["refused"] = _round(sum(r["refused"] for r in rows) / len(rows))
        out[t] = entry
    return out


def flat_metrics(aggregate_: dict[str, Any]) -> dict[str, float | None]:
    """Every aggregate number a --min/--max gate can name, in one flat mapping."""
    flat: dict[str, float | None] = dict(aggregate_["metrics"])
    for name, value in aggregate_["latency_ms"].items():
        flat[f"{name}_ms"] = value
    usage = aggregate_.get("usage") or {}
    for name in ("prompt_tokens", "completion_tokens", "cost_usd"):
        flat[name] = usage.get(name)
    judge = aggregate_.get("judge") or {}
    for name in ("judge_faithfulness", "judge_correctness", "judge_parse_failures"):
        flat[name] = judge.get(name)
    return flat


GATE_NAMES = (
    *QUALITY_METRICS,
    "answer_p50_ms",
    "answer_p95_ms",
    "retrieve_p50_ms",
    "retrieve_p95_ms",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "judge_faithfulness",
    "judge_correctness",
    "judge_parse_failures",
)


def check_gates(
    flat: dict[str, float | None],
    minimums: dict[str, float],
    maximums: dict[str, float] | None = None,
) -> list[str]:
    """Messages for every metric below its minimum or above its maximum (or not measured)."""
    failures: list[str] = []
    for name, floor in minimums.items():
        value = flat.get(name)
        if value is None:
            failures.append(f"{name} was not measured in this run (needed ≥ {floor})")
        elif value < floor:
            failures.append(f"{name} = {value:.4f} is below the minimum {floor}")
    for name, ceiling in (maximums or {}).items():
        value = flat.get(name)
        if value is None:
            failures.append(f"{name} was not measured in this run (needed ≤ {ceiling})")
        elif value > ceiling:
            failures.append(f"{name} = {value:.4f} is above the maximum {ceiling}")
    return failures


# -- provenance ----------------------------------------------------------------------------------


def git_info(repo: Path = REPO) -> dict[str, Any]:
    """Commit of the code and whether the working tree differs from it."""

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    status = git("status", "--porcelain")
    return {
        "commit": commit,
        "dirty": None if status is None else bool(status),
        "changed_files": None if status is None else len(status.splitlines()),
    }


def safe_settings(settings: Settings) -> dict[str, Any]:
    """The settings tree without secrets: the key is reduced to whether one is set."""
    data = settings.model_dump(mode="json", exclude={"openai_api_key"})
    data["openai_api_key_set"] = settings.openai_api_key is not None
    url = settings.openai_base_url
    if url:
        parts = urlsplit(url)
        # user:password@ and query strings can carry credentials.
        host = parts.hostname or ""
        netloc = host + (f":{parts.port}" if parts.port else "")
        data["openai_base_url"] = urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    return data


def _rel(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path.resolve())


def _versions(names: Iterable[str]) -> dict[str, str | None]:
    out: dict[str, str | None] = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def provenance(dataset: Dataset, pipeline: Pipeline, items: Sequence[Item]) -> dict[str, Any]:
    """What produced a run: dataset, corpus, index, code version, settings, environment."""
    stats = pipeline.stats()
    return {
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "code": git_info(),
        "dataset": {
            "name": dataset.name,
            "path": _rel(dataset.path),
            "sha256": dataset.sha256,
            "items": len(items),
            "items_in_file": len(dataset.items),
            "types": dict(sorted(Counter(i.type for i in items).items())),
        },
        "corpus": {
            "files": [
                {"path": _rel(p), "sha256": file_sha256(p), "bytes": p.stat().st_size}
                for p in dataset.corpus
            ],
            "papers": stats["papers"],
            "chunks": stats["chunks"],
            "collection": stats["collection"],
            "index_dir": str(pipeline.settings.data_dir),
        },
        "settings": safe_settings(pipeline.settings),
        "environment": {
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "packages": _versions(
                ["paperchat", "llama-index-core", "chromadb", "onnxruntime", "bm25s", "numpy"]
            ),
        },
    }


# -- building the index and running ------------------------------------------------------------


def index_settings(settings: Settings, dataset: Dataset) -> Settings:
    """The settings with data_dir moved to the dataset's own evaluation index."""
    return settings.model_copy(update={"data_dir": settings.data_dir / f"eval-{dataset.name}"})


def _ingest_bar() -> Callable[[str, int, int], None]:
    from tqdm import tqdm

    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage not in bars:
            bars[stage] = tqdm(total=total, desc=f"index {stage}", file=sys.stderr)
        bars[stage].update(done - bars[stage].n)
        if done >= total:
            bars[stage].close()

    return progress


@dataclass
class Workspace:
    """An evaluation pipeline over a dataset's index, and the embedders it was built with."""

    pipeline: Pipeline
    documents: Embedder
    queries: PerQuestionEmbedder | None = None


def open_pipeline(
    settings: Settings,
    dataset: Dataset,
    embedder: CachedEmbedder | None = None,
    progress: bool = False,
    say: Callable[[str], None] | None = None,
) -> Workspace:
    """A pipeline over the dataset's index, brought in step with its corpus files first.

    Ingest is incremental (unchanged papers are skipped) and prunes papers that are no longer
    in the corpus, so the index holds exactly the corpus and re-runs are cheap. The returned
    pipeline embeds questions with a PerQuestionEmbedder, so latencies include query embedding.
    """
    isettings = index_settings(settings, dataset)
    cached = embedder or make_embedder(isettings)
    client = chroma_client(isettings)
    builder = Pipeline(isettings, cached, PaperIndex(isettings, cached, client))
    if say and not builder.catalog():
        say(f"building the {dataset.name} index in {isettings.data_dir} (first run)…")
    loaded, report = builder.ingest(
        dataset.corpus, prune=True, progress=_ingest_bar() if progress else None
    )
    if loaded.fatal:
        raise EvalError("cannot load the corpus: " + "; ".join(str(e) for e in loaded.errors[:3]))
    if say and (report.added or report.updated or report.removed):
        say(
            f"index {dataset.name}: added {report.added}, updated {report.updated}, "
            f"removed {report.removed}, unchanged {report.unchanged}"
        )
    fresh = PerQuestionEmbedder(cached.inner, getattr(cached, "cache_key", None))
    index = PaperIndex(isettings, fresh, client)
    return Workspace(Pipeline(isettings, fresh, index, llm=builder.llm), cached, fresh)


def make_judge(pipeline: Pipeline) -> Judge | None:
    """A judge over the pipeline's model, or None when no model is configured."""
    return Judge(pipeline.llm, pipeline.prompts) if pipeline.llm is not None else None


def run_dataset(
    workspace: Workspace,
    dataset: Dataset,
    configs: Sequence[Config],
    items: Sequence[Item] | None = None,
    judge: bool = True,
    progress: bool = False,
) -> dict[str, Any]:
    """Evaluate the configurations on the dataset's items: the content of results.json."""
    pipeline = workspace.pipeline
    chosen = list(items if items is not None else dataset.items)
    if any(c.answerer == "model" for c in configs) and pipeline.llm is None:
        raise EvalError(
            "--answerer model needs a model: set PAPERCHAT_LLM__PROVIDER=openai and "
            "OPENAI_API_KEY (or OPENAI_BASE_URL)"
        )
    evaluator = Evaluator(
        pipeline, make_judge(pipeline) if judge else None, workspace.documents, workspace.queries
    )
    evaluator.progress = progress
    results = [evaluator.run(c, chosen, progress=progress) for c in configs]
    return {
        "provenance": provenance(dataset, pipeline, chosen),
        "configurations": [r.to_json() for r in results],
    }


def load_results(path: Path) -> dict[str, Any]:
    """Read a results.json written by a run."""
    return json.loads(path.read_text(encoding="utf-8"))
