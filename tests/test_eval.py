"""Evaluation: metrics on hand-built answers, the runner, gates, baseline and calibration."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO_ROOT, build_settings
from openai_server import FakeOpenAIServer

from eval import metrics as M
from eval.baseline import BASELINE_PATH, read_baseline, regressions, write_baseline
from eval.calibrate import Row, format_table, suggest, sweep
from eval.datasets import CorpusMissing, Item, read_items, resolve
from eval.judge import Judge
from eval.runner import (
    TEXTBOOK,
    Config,
    Evaluator,
    Workspace,
    aggregate,
    check_gates,
    compare_configs,
    flat_metrics,
    open_pipeline,
    primary_config,
    run_dataset,
    safe_settings,
)
from eval.textbook import TextbookRetriever
from rag.app.cli import main as cli_main
from rag.app.llm import OpenAICompatible
from rag.models import Answer, AnswerSentence, Citation, Paper, SearchHit
from rag.prompts import load_prompts
from rag.settings import LLMSettings, Settings
from rag.store.embeddings import CachedEmbedder

GOLDEN = REPO_ROOT / "eval" / "golden.jsonl"
ABSTRACT_A = (
    "We propose Qronos, a post-training quantization method. It corrects error propagated from "
    "earlier layers. Qronos improves perplexity on Llama models by 3.5 points."
)
ABSTRACT_B = "We study temporal superposition in recurrent neural networks. Memory demands matter."


# -- helpers -----------------------------------------------------------------------------------


def paper(pid: str, abstract: str, title: str = "") -> Paper:
    """A paper whose key is its id, so tests can name keys directly."""
    return Paper(id=pid, key=pid, title=title or pid, abstract=abstract)


def answer(
    citations: Sequence[tuple[int, str, str]] = (),
    sentences: Sequence[tuple[str, list[int], bool]] = (),
    text: str = "",
    refused: bool = False,
) -> Answer:
    """An Answer from (n, paper_id, quote) citations and (text, cited ns, supported) sentences."""
    return Answer(
        question="q",
        text=text or " ".join(s for s, _, _ in sentences),
        refused=refused,
        citations=[Citation(n=n, paper_id=p, title=p, quote=q) for n, p, q in citations],
        sentences=[AnswerSentence(text=t, citations=c, supported=ok) for t, c, ok in sentences],
    )


def words_support(claim: str, quote: str, key: str = "") -> float:
    """A fake support score: share of the claim's words found in the quote."""
    claim_words = set(M.normalize_for_match(claim).split())
    quote_words = set(M.normalize_for_match(quote).split())
    return len(claim_words & quote_words) / len(claim_words) if claim_words else 0.0


def split_on_periods(text: str) -> list[str]:
    """Sentence splitter for tests: cut after '. '."""
    return [s if s.endswith(".") else s + "." for s in text.split(". ") if s]


# -- retrieval metrics -------------------------------------------------------------------------


def test_recall_at_k_is_paper_level_and_ignores_repeats() -> None:
    ranked = ["x", "a", "x", "y", "b", "z"]
    assert M.recall_at(ranked, {"a", "b"}, 1) == 0.0
    assert M.recall_at(ranked, {"a", "b"}, 2) == 0.5
    # The repeated "x" is one paper: b is the 4th distinct paper, so it is inside the top 4.
    assert M.recall_at(ranked, {"a", "b"}, 4) == 1.0
    assert M.recall_at(ranked, set(), 5) is None


def test_mrr_and_ndcg_by_hand() -> None:
    assert M.reciprocal_rank(["x", "y", "a"], {"a"}) == pytest.approx(1 / 3)
    assert M.reciprocal_rank(["x", "y"], {"a"}) == 0.0
    assert M.reciprocal_rank(["x"], set()) is None
    # Gold at ranks 1 and 3: DCG = 1 + 1/log2(4); ideal = 1 + 1/log2(3).
    expected = (1 + 1 / math.log2(4)) / (1 + 1 / math.log2(3))
    assert M.ndcg_at(["a", "x", "b"], {"a", "b"}, 10) == pytest.approx(expected)
    assert M.ndcg_at(["a", "b"], {"a", "b"}, 10) == pytest.approx(1.0)
    # Only the top k count: a gold paper at rank 3 adds nothing to nDCG@2.
    assert M.ndcg_at(["x", "y", "a"], {"a"}, 2) == 0.0


def test_retrieval_metrics_bundle_names() -> None:
    got = M.retrieval_metrics(["a"], {"a"})
    assert set(got) == {"recall@1", "recall@5", "recall@10", "mrr", "ndcg@10"}
    assert all(v == 1.0 for v in got.values())


# -- fact recall -------------------------------------------------------------------------------


def test_fact_found_normalises_case_and_punctuation() -> None:
    assert M.fact_found("ARC-JSD", "The method (arc jsd) attributes context.")
    assert M.fact_found("3.5 points", "It gains 3.5 points.")
    assert M.fact_found("Schrödinger bridge", "a schrodinger-bridge model")


def test_fact_found_reads_the_fact_as_answers_show_the_abstracts_markup() -> None:
    # The label copies the abstract's LaTeX; the answer shows it rendered.
    assert M.fact_found("design variable $\\alpha$", "a design variable α")
    assert M.fact_found("up to 10\\%", "It is faster by up to 10%.")


def test_fact_found_respects_word_boundaries() -> None:
    assert not M.fact_found("5", "trained for 15 epochs")
    assert not M.fact_found("RL", "we study URLs")


def test_fact_found_by_token_share() -> None:
    fact = "tight convergent privacy bound rounds"  # five content tokens
    assert M.fact_found(fact, "a bound on privacy that is tight and convergent")  # 4 of 5
    assert not M.fact_found(fact, "a bound on privacy that is tight")  # 3 of 5
    # Function words do not count: "the" and "of" are not needed.
    assert M.fact_found("the number of rounds", "rounds: their number grows")


def test_fact_recall_refusal_and_empty() -> None:
    assert M.fact_recall(["Qronos", "SHAPO"], "Qronos quantizes weights", refused=False) == 0.5
    # A refusal that happens to name a paper states no facts.
    assert M.fact_recall(["Qronos"], "Nearest papers: Qronos", refused=True) == 0.0
    assert M.fact_recall([], "anything", refused=False) is None


# -- citations and quotes ----------------------------------------------------------------------


def test_citation_precision_and_recall() -> None:
    a = answer(citations=[(1, "p1", ""), (2, "p2", ""), (3, "p1", "")])
    key_of = {"p1": "A", "p2": "B"}
    cited = M.cited_keys(a, key_of)
    assert cited == ["A", "B"]
    assert M.citation_precision(cited, {"A"}) == 0.5
    assert M.citation_recall(cited, {"A", "C"}) == 0.5
    assert M.citation_precision([], {"A"}) is None
    assert M.citation_recall([], {"A"}) == 0.0
    assert M.citation_recall(["A"], set()) is None


def test_quote_verbatim_whole_passage_ellipsis_and_joins() -> None:
    first, _, third = split_on_periods(ABSTRACT_A)
    assert M.quote_is_verbatim(first, ABSTRACT_A)
    assert M.quote_is_verbatim("We  propose\nQronos, a post-training", ABSTRACT_A)
    assert M.quote_is_verbatim(f"{first} … {third}", ABSTRACT_A)
    # Two sentences from different places joined by a space are not one passage of the text.
    assert not M.quote_is_verbatim(f"{first} {third}", ABSTRACT_A)
    assert M.quote_sentences_verbatim(f"{first} {third}", ABSTRACT_A, split_on_periods)
    invented = "Qronos is the best method."
    assert not M.quote_sentences_verbatim(invented, ABSTRACT_A, split_on_periods)
    # Ellipsis parts must appear in order.
    assert not M.quote_is_verbatim(f"{third} … {first}", ABSTRACT_A)


def test_quote_metrics_count_citations_and_pairs() -> None:
    first, _, third = split_on_periods(ABSTRACT_A)
    a = answer(
        citations=[(1, "p1", f"{first} {third}"), (2, "p2", "Invented memory result.")],
        sentences=[
            (f"- {first} [1]", [1], True),
            ("Qronos improves perplexity by 3.5 points [1].", [1], True),
            ("RNNs pack features [2].", [2], True),
        ],
    )
    got = M.quote_metrics(
        a, {"p1": ABSTRACT_A, "p2": ABSTRACT_B}, {}, words_support, 0.5, split_on_periods
    )
    assert got["quote_verbatim"] == 0.0  # neither quote is one verbatim passage
    assert got["quote_sentences_verbatim"] == 0.5  # p1's sentences are; p2's are invented
    # Pairs: (s1, 1) supported, (s2, 1) supported, (s3, 2) fails on the invented quote.
    assert got["quote_support"] == pytest.approx(2 / 3)


def test_claim_text_strips_markers_and_markup() -> None:
    assert M.claim_text("- **Qronos** [1]: quantizes [1, 2].") == "Qronos: quantizes."


# -- faithfulness ------------------------------------------------------------------------------


def test_faithfulness_uses_the_supported_flags() -> None:
    a = answer(sentences=[("a [1]", [1], True), ("b [1]", [1], False), ("c", [], True)])
    assert M.faithfulness(a) == pytest.approx(2 / 3)
    assert M.faithfulness(answer(refused=True, text="no")) is None


def test_faithfulness_rescored_checks_claims_against_cited_papers() -> None:
    abstracts = {"A": ABSTRACT_A, "B": ABSTRACT_B}

    def support(claim: str, keys: Sequence[str]) -> float:
        return max(words_support(claim, abstracts[k]) for k in keys)

    a = answer(
        citations=[(1, "p1", ""), (2, "p2", "")],
        sentences=[
            ("Qronos is a post-training quantization method [1].", [1], True),
            # Marked supported by the answerer, but cites the wrong paper: rescoring disagrees.
            ("Qronos is a post-training quantization method [2].", [2], True),
            ("An uncited opinion that the answerer flagged.", [], False),
        ],
    )
    key_of = {"p1": "A", "p2": "B"}
    assert M.faithfulness(a) == pytest.approx(2 / 3)
    assert M.faithfulness_rescored(a, key_of, support, 0.5) == pytest.approx(1 / 3)


# -- refusals, latency, cost -------------------------------------------------------------------


def test_refusal_precision_recall() -> None:
    # (unanswerable, refused)
    counts = M.refusal_counts([(True, True), (True, False), (False, True), (False, False)] * 2)
    assert counts.refused_unanswerable == 2 and counts.refused_answerable == 2
    assert counts.precision == 0.5 and counts.recall == 0.5
    assert M.refusal_counts([(False, False)]).precision is None
    assert M.refusal_counts([(False, True)]).recall is None


def test_answered_correctly() -> None:
    assert M.answered_correctly(False, ["A", "X"], {"A"}) is True
    assert M.answered_correctly(True, ["A"], {"A"}) is False
    assert M.answered_correctly(False, ["X"], {"A"}) is False
    assert M.answered_correctly(False, ["X"], set()) is None


def test_percentile_interpolates() -> None:
    values = [float(v) for v in range(10, 0, -1)]  # unsorted on purpose
    assert M.percentile(values, 50) == pytest.approx(5.5)
    assert M.percentile(values, 95) == pytest.approx(9.55)
    assert M.percentile([7.0], 95) == 7.0
    assert M.percentile([], 50) is None


def test_cost_from_price_table() -> None:
    assert M.cost_usd("gpt-4o-mini", 1_000_000, 0) == pytest.approx(0.15)
    assert M.cost_usd("gpt-4o-mini-2024-07-18", 0, 1_000_000) == pytest.approx(0.60)
    assert M.cost_usd("GPT-4o", 500_000, 100_000) == pytest.approx(1.25 + 1.0)
    assert M.price_of("smollm2-local") is None
    assert M.cost_usd("smollm2-local", 10**6, 10**6) == 0.0


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"supported": true, "reason": "ok"}', True),
        ('Sure!\n```json\n{"supported": false, "reason": "x"}\n```', False),
        ('{"supported": "True"}', True),
        ("Yes, it is supported.", None),
        ('{"supported": "maybe"}', None),
        ("{not json}", None),
    ],
)
def test_parse_faithfulness_judge(reply: str, expected: bool | None) -> None:
    assert M.parse_faithfulness_judge(reply) is expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"score": 4, "reason": "ok"}', 4),
        ('{"score": "5"}', 5),
        ('{"score": 3.0}', 3),
        ('{"score": 0}', None),
        ('{"score": 9}', None),
        ('{"score": true}', None),
        ("four out of five", None),
    ],
)
def test_parse_correctness_judge(reply: str, expected: int | None) -> None:
    assert M.parse_correctness_judge(reply) == expected


# -- gates, baseline, calibration rules --------------------------------------------------------


def test_check_gates_reports_low_high_and_unmeasured() -> None:
    flat = {"recall@5": 0.8, "answer_p95_ms": 250.0, "judge_correctness": None}
    assert check_gates(flat, {"recall@5": 0.8}, {"answer_p95_ms": 300}) == []
    failures = check_gates(flat, {"recall@5": 0.9, "judge_correctness": 3}, {"answer_p95_ms": 200})
    assert len(failures) == 3
    assert "recall@5 = 0.8000 is below the minimum 0.9" in failures[0]
    assert "not measured" in failures[1]
    assert "above the maximum 200" in failures[2]


def test_regressions_against_baseline_use_tolerance() -> None:
    base = {"tolerance": 0.02, "metrics": {"recall@5": 0.9, "mrr": 0.8, "faithfulness": None}}
    assert regressions({"recall@5": 0.885, "mrr": 0.95}, base) == []
    found = regressions({"recall@5": 0.87, "mrr": None}, base)
    assert len(found) == 2 and "recall@5 dropped" in found[0] and "mrr" in found[1]


def _row(t: float, correct: int, refused_unanswerable: int) -> Row:
    return Row(t, 10, correct, 0, 10 - correct, 4, refused_unanswerable)


def test_suggest_picks_best_balanced_and_middle_of_ties() -> None:
    golden = [_row(0.3, 10, 0), _row(0.4, 9, 3), _row(0.5, 8, 4), _row(0.6, 7, 4)]
    # balanced: 0.5, 0.825, 0.9, 0.85 → 0.5 wins.
    assert suggest({"golden": golden}) == 0.5
    flat = [_row(0.3, 9, 3), _row(0.4, 9, 3), _row(0.5, 9, 3), _row(0.6, 5, 3)]
    assert suggest({"golden": flat}) == 0.4  # the middle of 0.3, 0.4, 0.5
    lines = format_table(golden, current=0.4, suggested=0.5)
    assert "0.400 (current)" in lines[3] and "0.500 (suggested)" in lines[4]
    assert "8/10" in lines[4] and "4/4" in lines[4]


def test_safe_settings_hide_secrets(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        data_dir=tmp_path,
        openai_api_key="sk-very-secret",
        openai_base_url="http://user:pw@127.0.0.1:8080/v1?token=abc",
    )
    dumped = json.dumps(safe_settings(settings))
    assert "sk-very-secret" not in dumped and "pw" not in dumped and "abc" not in dumped
    assert safe_settings(settings)["openai_base_url"] == "http://127.0.0.1:8080/v1"
    assert safe_settings(settings)["openai_api_key_set"] is True


# -- datasets ----------------------------------------------------------------------------------


def test_golden_dataset_reads_and_scale_skips_without_corpus(tmp_path: Path) -> None:
    items = read_items(GOLDEN)
    assert len(items) >= 60
    conv = next(i for i in items if i.type == "conversation")
    assert conv.all_turns[-1] == conv.question and len(conv.all_turns) >= 2
    with pytest.raises(CorpusMissing, match="skipped"):
        resolve("scale", shared_corpus=tmp_path / "absent.jsonl")


# -- judge against a real loopback server ------------------------------------------------------


@pytest.fixture
def model_settings(tmp_path: Path, openai_server: FakeOpenAIServer) -> Settings:
    """Settings that talk to the fake server, without retries (errors surface at once)."""
    return build_settings(
        tmp_path / "data",
        openai_base_url=openai_server.base_url,
        llm=LLMSettings(provider="openai", model="gpt-4o-mini", max_retries=0, timeout=5),
    )


def test_judge_counts_parse_failures_and_errors(
    model_settings: Settings, openai_server: FakeOpenAIServer
) -> None:
    judge = Judge(OpenAICompatible(model_settings), load_prompts())
    a = Answer(
        question="q",
        text="Qronos is a quantization method [1].",
        mode="model",
        sources=[SearchHit(paper=paper("p1", ABSTRACT_A, "Qronos"), score=1.0)],
    )
    openai_server.queue_reply('{"supported": true, "reason": "stated"}')
    openai_server.queue_reply('```json\n{"score": 4, "reason": "close"}\n```')
    good = judge.grade("What is Qronos?", ["Qronos"], a)
    assert good.faithfulness is not None and good.faithfulness.value == 1.0
    assert good.correctness is not None and good.correctness.value == 4.0
    assert good.faithfulness.prompt_tokens > 0

    openai_server.queue_reply("The answer looks fine to me.")
    openai_server.queue_error(500)
    bad = judge.grade("What is Qronos?", ["Qronos"], a)
    assert bad.faithfulness is not None and bad.faithfulness.status == "parse_failure"
    assert bad.faithfulness.value is None
    assert bad.correctness is not None and bad.correctness.status == "error"

    # The judge prompt carries the sources and the answer.
    sent = openai_server.requests[0].body["messages"][0]["content"]
    assert "Qronos is a quantization method" in sent and "post-training quantization" in sent

    summary = aggregate([_record()] * 2, [good, bad])["judge"]
    assert summary["judge_faithfulness"] == 1.0  # the failure is not averaged in as 0
    assert summary["judge_correctness"] == 4.0
    assert summary["judge_parse_failures"] == 1 and summary["judge_errors"] == 1
    assert summary["judged"] == 4
    assert judge.grade("q", ["f"], answer(refused=True, text="no")).verdicts == []


def _record(**metrics: float | None) -> dict[str, Any]:
    return {
        "type": "lookup",
        "answerable": True,
        "refused": False,
        "metrics": metrics,
        "latency_ms": {"answer": 1.0, "retrieve": 0.5},
    }


# -- the runner on the sample corpus -----------------------------------------------------------


@pytest.fixture(scope="module")
def eval_base(tmp_path_factory: pytest.TempPathFactory, sample_index_dir: Path) -> Path:
    """A data dir whose eval-golden index already holds the sample (copied, not re-embedded)."""
    base = tmp_path_factory.mktemp("eval-base")
    shutil.copytree(sample_index_dir, base / "eval-golden")
    return base


@pytest.fixture(scope="module")
def workspace(eval_base: Path, embedder: CachedEmbedder) -> Workspace:
    """The golden set's evaluation pipeline over the sample index."""
    return open_pipeline(build_settings(eval_base), resolve("golden"), embedder=embedder)


@pytest.fixture(scope="module")
def golden_results(workspace: Workspace) -> dict[str, Any]:
    """The full offline golden evaluation, hybrid retrieval + extractive answers."""
    dataset = resolve("golden")
    return run_dataset(workspace, dataset, [primary_config("hybrid", "extractive")])


@pytest.mark.slow
def test_golden_eval_meets_committed_baseline(golden_results: dict[str, Any]) -> None:
    baseline = read_baseline()
    config = golden_results["configurations"][0]
    assert baseline["dataset"] == "golden"
    assert (config["config"]["retriever"], config["config"]["answerer"]) == (
        baseline["config"]["retriever"],
        baseline["config"]["answerer"],
    )
    assert (
        config["items"] and len(config["items"]) == golden_results["provenance"]["dataset"]["items"]
    )
    drops = regressions(config["metrics"], baseline)
    assert not drops, (
        "golden-set metrics fell below eval/baseline.json; if intended, update it with "
        "`python -m eval --dataset golden --write-baseline`:\n" + "\n".join(drops)
    )


@pytest.mark.slow
def test_write_baseline_records_the_primary_run_in_the_committed_schema(
    golden_results: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "baseline.json"
    written = write_baseline(golden_results, path)
    doc = read_baseline(path)
    assert doc == written
    committed = read_baseline()
    assert set(doc) == set(committed) and set(doc["metrics"]) == set(committed["metrics"])
    metrics = golden_results["configurations"][0]["metrics"]
    assert doc["metrics"] == {k: metrics.get(k) for k in committed["metrics"]}
    assert doc["provenance"]["papers"] == 19 and doc["dataset"] == "golden"
    assert regressions(metrics, doc) == []
    name = next(k for k, v in doc["metrics"].items() if v)
    worse = {**metrics, name: doc["metrics"][name] - 2 * doc["tolerance"]}
    assert [m.split()[0] for m in regressions(worse, doc)] == [name]


@pytest.mark.slow
def test_golden_results_record_provenance(golden_results: dict[str, Any]) -> None:
    prov = golden_results["provenance"]
    assert prov["corpus"]["papers"] == 19
    assert prov["corpus"]["files"][0]["path"] == "data/iclr2026_seed_abstracts.txt"
    assert len(prov["corpus"]["files"][0]["sha256"]) == 64
    assert len(prov["dataset"]["sha256"]) == 64
    assert prov["code"]["commit"] is None or len(prov["code"]["commit"]) == 40
    assert "openai_api_key" not in prov["settings"]
    config = golden_results["configurations"][0]
    # Every item was scored; unanswerable items have no retrieval metrics, the others do.
    for record in config["items"]:
        assert (record["metrics"]["recall@5"] is None) == (not record["answerable"])
    refusals = config["refusals"]
    assert sum(refusals.values()) == len(config["items"])


@pytest.mark.slow
def test_offline_eval_is_deterministic(
    workspace: Workspace, golden_results: dict[str, Any]
) -> None:
    dataset = resolve("golden")
    # A second run over a slice with every item type, conversations included.
    by_type: dict[str, list[Item]] = {}
    for item in dataset.items:
        by_type.setdefault(item.type, []).append(item)
    chosen = [i for items in by_type.values() for i in items[:3]]
    again = run_dataset(workspace, dataset, [primary_config("hybrid", "extractive")], chosen)
    first = {r["id"]: r for r in golden_results["configurations"][0]["items"]}
    for record in again["configurations"][0]["items"]:
        before = first[record["id"]]
        for field in ("metrics", "retrieved", "cited", "answer", "refused"):
            assert record[field] == before[field], (record["id"], field)


@pytest.mark.slow
def test_conversation_items_are_replayed_through_one_conversation(
    golden_results: dict[str, Any],
) -> None:
    items = {i.id: i for i in resolve("golden").items}
    convs = [r for r in golden_results["configurations"][0]["items"] if r["type"] == "conversation"]
    assert convs
    for record in convs:
        # The follow-up was condensed with the earlier turn's papers ("… (about: title)").
        item = items[record["id"]]
        assert record["question"] == item.turns[-1]
        if record["standalone_question"] != record["question"]:
            assert "(about:" in record["standalone_question"]
    assert any(r["standalone_question"] != r["question"] for r in convs)


@pytest.mark.slow
def test_textbook_baseline_finds_papers(workspace: Workspace) -> None:
    catalog = workspace.pipeline.catalog()
    baseline = TextbookRetriever(list(catalog.values()), workspace.documents)
    hits = baseline.search("post-training quantization of LLM weights and activations", k=10)
    assert len(hits) == 10 and len({h.paper.id for h in hits}) == 10
    assert "Qronos" in hits[0].paper.title
    assert hits[0].score >= hits[-1].score


def test_compare_configs_always_include_the_textbook_baseline() -> None:
    configs = compare_configs(primary_config("dense", "extractive"))
    assert [c.name for c in configs] == ["dense", "hybrid", "bm25", TEXTBOOK]
    assert configs[-1].textbook and configs[-1].retriever == "dense"
    assert configs[0].label == "dense + extractive"


def test_quote_support_uses_the_quote_not_the_whole_abstract(workspace: Workspace) -> None:
    evaluator = Evaluator(workspace.pipeline)
    qronos = next(p for p in evaluator.papers.values() if "Qronos" in p.title)
    sentence = next(s for s in qronos.abstract.split(". ") if "Qronos" in s)
    assert evaluator.quote_support(sentence, sentence, qronos.key) >= 0.5
    unrelated = "Safe exploration is a prerequisite for deploying reinforcement learning agents."
    assert evaluator.quote_support(sentence, unrelated, qronos.key) < 0.5


def test_calibration_sweep_moves_the_refusal_threshold(workspace: Workspace) -> None:
    items = resolve("golden").items
    # Paraphrase lookups name no paper: those the refusal model alone decides.
    chosen = [i for i in items if i.style == "paraphrase"][:2] + [
        i for i in items if i.type == "unanswerable" and "?" in i.question
    ][:2]
    before = workspace.pipeline.refusal.threshold
    rows = sweep(workspace.pipeline, chosen, [0.0, 1.0])
    # The threshold travels as an option: the pipeline's refusal model is untouched.
    assert workspace.pipeline.refusal.threshold == before
    never, always = rows
    assert never.refused_wrongly == 0 and never.unanswerable_refused == 0
    assert always.refused_wrongly == 2 and always.unanswerable_refused == 2
    assert never.answerable == always.answerable == 2


# -- the command line --------------------------------------------------------------------------


def _tiny_dataset(tmp_path: Path, n: int = 3) -> Path:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    picked = [lines[0], lines[20], next(line for line in lines if '"unanswerable"' in line)][:n]
    path = tmp_path / "tiny.jsonl"
    path.write_text("\n".join(picked) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def cli_base(tmp_path: Path, sample_index_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A data dir with the sample index under eval-tiny; cwd moved away from any .env."""
    base = tmp_path / "data"
    shutil.copytree(sample_index_dir, base / "eval-tiny")
    monkeypatch.chdir(tmp_path)
    return base


@pytest.mark.slow
def test_cli_writes_outputs_and_gates_exit_status(
    tmp_path: Path, cli_base: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = _tiny_dataset(tmp_path)
    out = tmp_path / "out"
    common = ["eval", "--dataset", str(dataset), "--data-dir", str(cli_base), "-q"]
    code = cli_main([*common, "--out", str(out), "--compare", "--min", "recall@10=0.0"])
    assert code == 0, capsys.readouterr().err
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    names = [c["config"]["name"] for c in results["configurations"]]
    assert names == ["hybrid", "dense", "bm25", TEXTBOOK]
    assert all(len(c["items"]) == 3 for c in results["configurations"])
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "| llamaindex-baseline (dense, whole abstracts) |" in report
    for png in ("metrics.png", "latency.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    printed = capsys.readouterr().out
    assert "### Retrieval (paper level)" in printed

    code = cli_main(
        [*common, "--out", str(tmp_path / "o2"), "--no-charts", "--min", "recall@5=1.01"]
    )
    err = capsys.readouterr().err
    assert code == 1
    assert "recall@5" in err and "below the minimum 1.01" in err
    assert not (tmp_path / "o2" / "metrics.png").exists()


def test_cli_rejects_unknown_metric_and_skips_missing_corpus(
    tmp_path: Path, cli_base: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli_main(["eval", "--min", "recal@5=0.9", "--data-dir", str(cli_base)]) == 2
    assert "unknown metric" in capsys.readouterr().err
    missing = tmp_path / "absent.jsonl"
    code = cli_main(
        ["eval", "--dataset", "golden", "--corpus", str(missing), "--data-dir", str(cli_base)]
    )
    assert code == 0
    assert "skipped" in capsys.readouterr().err
    assert cli_main(["eval", "--dataset", "scale", "--write-baseline"]) == 2


@pytest.mark.slow
def test_python_m_eval_help() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "eval", "--help"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for flag in ("--dataset", "--retriever", "--answerer", "--compare", "--min", "--calibrate"):
        assert flag in done.stdout


def test_committed_baseline_is_well_formed() -> None:
    baseline = read_baseline(BASELINE_PATH)
    assert baseline["dataset"] == "golden" and 0 < baseline["tolerance"] <= 0.05
    for name in ("recall@5", "mrr", "fact_recall", "citation_precision", "refusal_recall"):
        assert 0.0 <= baseline["metrics"][name] <= 1.0


# -- the model answerer path, through a loopback server ----------------------------------------


@pytest.mark.slow
def test_model_run_counts_tokens_cost_and_judge_failures(
    eval_base: Path, embedder: CachedEmbedder, openai_server: FakeOpenAIServer, tmp_path: Path
) -> None:
    base = tmp_path / "model-data"
    shutil.copytree(eval_base / "eval-golden", base / "eval-golden")
    settings = build_settings(
        base,
        openai_base_url=openai_server.base_url,
        llm=LLMSettings(provider="openai", model="gpt-4o-mini", max_retries=0, timeout=5),
    )
    dataset = resolve("golden")
    items = [i for i in dataset.items if i.type == "lookup"][:2]
    ws = open_pipeline(settings, dataset, embedder=embedder)
    # Every reply (answers and judge calls alike) is the server's echo: not JSON for the judge.
    results = run_dataset(ws, dataset, [primary_config("hybrid", "model")], items)
    config = results["configurations"][0]
    usage = config["usage"]
    assert usage["model"] == "gpt-4o-mini" and usage["priced"]
    assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] > 0
    expected = M.cost_usd("gpt-4o-mini", usage["prompt_tokens"], usage["completion_tokens"])
    assert usage["cost_usd"] == pytest.approx(expected, abs=1e-6)
    judge = config["judge"]
    answered = sum(1 for r in config["items"] if not r["refused"] and not r["error"])
    assert answered > 0
    assert judge["judge_parse_failures"] == judge["judged"] == 2 * answered
    assert judge["judge_faithfulness"] is None and judge["judge_correctness"] is None
    assert flat_metrics(config)["judge_parse_failures"] == 2 * answered


def test_model_run_without_model_is_a_clear_error(workspace: Workspace) -> None:
    from eval.runner import EvalError

    with pytest.raises(EvalError, match="needs a model"):
        run_dataset(workspace, resolve("golden"), [Config("hybrid", "hybrid", "model")], [])
