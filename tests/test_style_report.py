"""The style-split report's metric code on known cases, and one small run on the sample index.

These check the measurement, not the system: answers are built by hand where the outcome must
be known, and the sample run only checks that every item is asked, scored and reported.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from eval.questions.schema import Item
from eval.style_metrics import aggregate, confusion, score_item, verdicts
from eval.style_report import CORPUS_FILES, main, read_items, select, split_report
from rag.models import Answer, Citation, Paper, PaperMatch, Plan, QuestionKind

KEYS = {name: f"{i:016x}" for i, name in enumerate("abcdefx", 1)}


def _paper(name: str, text: str) -> Paper:
    return Paper(id=f"p-{name}", key=KEYS[name], title=f"Paper {name}", abstract=text)


CATALOG = {
    p.id: p
    for p in (
        _paper("a", "We compress the KV cache for long context inference."),
        _paper("b", "A study of KV cache compression in large language models."),
        _paper("c", "Diffusion models for images."),
        _paper("d", "Graph neural networks."),
        _paper("e", "Reinforcement learning agents."),
        _paper("f", "Optimisation theory."),
        _paper("x", "An unrelated paper on KV stores."),
    )
}


def _item(**fields: Any) -> Item:
    base: dict[str, Any] = {"id": "qa0001", "style": "formal", "question": "q?"}
    return Item.model_validate({**base, **fields})


def _list_item(**fields: Any) -> Item:
    return _item(
        kind="list",
        topic="t",
        gold_rule={"patterns": ["t"]},
        gold_keys=[KEYS[n] for n in "abcd"],
        **fields,
    )


def _answer(text: str = "An answer.", kind: str = "lookup", **fields: Any) -> Answer:
    plan = fields.pop("plan", Plan(kind=QuestionKind(kind)))
    return Answer(question="q?", text=text, plan=plan, **fields)


def _matches(*names: str) -> list[PaperMatch]:
    return [PaperMatch(paper_id=f"p-{n}", title=n, score=1.0) for n in names]


def _cites(*names: str) -> list[Citation]:
    return [Citation(n=i, paper_id=f"p-{n}", title=n, quote="q") for i, n in enumerate(names, 1)]


def test_list_recall_and_precision_count_the_shown_papers() -> None:
    row = score_item(_list_item(), _answer(kind="list", papers=_matches("a", "b", "x")), CATALOG)
    assert row["kind_ok"] and row["list_recall"] == 0.5
    assert row["list_precision"] == pytest.approx(2 / 3)
    # A misrouted list answered from two cited papers: those are its list.
    row = score_item(_list_item(), _answer(citations=_cites("a", "x", "a")), CATALOG)
    assert not row["kind_ok"] and row["list_recall"] == 0.25 and row["list_precision"] == 0.5
    # "show me two": two gold papers are full recall.
    row = score_item(_list_item(shown=2), _answer(papers=_matches("c", "x")), CATALOG)
    assert row["list_recall"] == 0.5 and row["list_precision"] == 0.5
    row = score_item(_list_item(shown=2), _answer(papers=_matches("c", "d", "a")), CATALOG)
    assert row["list_recall"] == 1.0
    # Nothing shown: recall 0, precision undefined.
    row = score_item(_list_item(), _answer(kind="list"), CATALOG)
    assert row["list_recall"] == 0.0 and row["list_precision"] is None


def test_sample_items_are_judged_on_the_sample_papers_only() -> None:
    item = _list_item(corpus="sample")
    answer = _answer(kind="list", papers=_matches("a", "e", "f", "x"))
    row = score_item(item, answer, CATALOG, sample_keys=[KEYS[n] for n in "abcde"])
    assert row["list_recall"] == 0.25 and row["list_precision"] == 0.5  # a, e of the sample
    count = _item(kind="count", topic="t", gold_rule={"patterns": ["t"]}, count=2, corpus="sample")
    row = score_item(count, _answer(count=4000, papers=_matches("a", "x")), CATALOG, [KEYS["a"]])
    assert row["count_said"] == 1 and not row["count_within"]


def test_count_is_within_twenty_percent_of_the_label() -> None:
    item = _item(kind="count", topic="t", gold_rule={"patterns": ["t"]}, count=10)
    assert score_item(item, _answer(count=12), CATALOG)["count_within"]
    assert not score_item(item, _answer(count=13), CATALOG)["count_within"]
    # No typed count: the first number of the text.
    assert score_item(item, _answer("There are 1,1 or 11 papers."), CATALOG)["count_said"] == 1
    assert score_item(item, _answer("1,204 papers match."), CATALOG)["count_said"] == 1204
    said = score_item(item, _answer("Confidence 0.25, so 12, not 9."), CATALOG)["count_said"]
    assert said == 12
    assert score_item(item, _answer("11 papers match."), CATALOG)["count_within"]
    assert not score_item(item, _answer("Several papers."), CATALOG)["count_within"]


def _detail(**fields: Any) -> Item:
    base = {"kind": "detail", "answer_type": "entities", "named": ["X"], "gold_keys": [KEYS["a"]]}
    return _item(**{**base, "facts": ["eight mainstream bias mitigation techniques"], **fields})


def test_false_refusals_and_fact_recall() -> None:
    said = _answer("X compares Eight mainstream bias-mitigation techniques [1].", "detail")
    row = score_item(_detail(), said, CATALOG)
    assert row["false_refusal"] is False and row["fact_recall"] == 1.0
    denied = _answer("The abstract of X does not say which techniques it compares.", "detail")
    row = score_item(_detail(), denied, CATALOG)
    assert row["false_refusal"] is True and row["fact_recall"] == 0.0
    flagged = _answer("Eight mainstream bias mitigation techniques", refused=True)
    row = score_item(_detail(), flagged, CATALOG)
    assert row["false_refusal"] is True and row["fact_recall"] == 0.0
    # Near misses ("does not say" is right) are not false refusals; their refusal is counted.
    near = _detail(answerable=False, missing="languages", facts=[])
    row = score_item(near, denied, CATALOG)
    assert "false_refusal" not in row and row["refused"] and not row["off_topic"]


def test_refusal_recall_and_precision_on_off_topic_items() -> None:
    off = _item(kind="lookup", answer_type="general", topic="opera", answerable=False)
    ok = _detail()
    rows = [
        score_item(off, _answer("Nothing.", refused=True), CATALOG),
        score_item(off, _answer("Opera singers [1]."), CATALOG),
        score_item(ok, _answer("No paper in the index is about it."), CATALOG),
        score_item(ok, _answer("Eight mainstream bias mitigation techniques."), CATALOG),
    ]
    agg = aggregate(rows)
    assert agg["refusal_recall"] == 0.5 and agg["off_topic_items"] == 2
    assert agg["refusal_precision"] == 0.5 and agg["refusals"] == 2
    assert agg["false_refusals"] == 0.5 and agg["fact_recall"] == 0.5
    # "The index holds no citation counts" for a citations question is not a refusal of a topic.
    cit = _item(kind="citations", topic="t", gold_rule={"patterns": ["t"]})
    rows.append(score_item(cit, _answer("Holds none.", refused=True), CATALOG))
    assert aggregate(rows)["refusal_precision"] == 0.5


def test_search_box_no_match_heading_against_the_top_papers() -> None:
    item = _item(
        kind="search",
        style="search",
        question="kv cache compression",
        answer_type="general",
        gold_keys=[KEYS["b"]],
        facts=["KV cache compression"],
    )
    head = "No paper matches “kv cache compression” in its title; the closest papers: …"
    row = score_item(item, _answer(head, "search", citations=_cites("c", "b")), CATALOG)
    assert row["no_match_head"] and row["terms_in_top"] and row["false_no_match"]
    # The top papers lack a term ("compression"): the heading is honest.
    row = score_item(item, _answer(head, "search", citations=_cites("x", "c")), CATALOG)
    assert row["no_match_head"] and not row["false_no_match"]
    row = score_item(item, _answer("KV cache compression [1].", citations=_cites("b")), CATALOG)
    assert not row["no_match_head"] and not row["false_no_match"]


def test_other_language_detection_and_whole_question_topics() -> None:
    q = "WaterDrum 用的是什么评估指标？"
    item = _detail(style="other-language", language="zh", question=q, named=["WaterDrum"])
    plan = Plan(kind=QuestionKind.DETAIL, language="zh", named=["WaterDrum"], topic="WaterDrum")
    row = score_item(item, _answer(plan=plan), CATALOG)
    assert row["language_detected"] and not row["whole_question_topic"]
    # The question's Chinese words as the topic (the paper's name taken out or not).
    for topic in ("用的是什么评估指标", q):
        whole = Plan(kind=QuestionKind.LIST, topic=topic)
        row = score_item(item, _answer("Papers on it.", plan=whole), CATALOG)
        assert not row["language_detected"] and row["whole_question_topic"]
        assert not row["kind_ok"]
    row = score_item(item, _answer(f"4303 papers match “{q}”", plan=plan), CATALOG)
    assert row["whole_question_topic"]
    # An answer without a plan predicts no kind.
    row = score_item(item, Answer(question=q, text=""), CATALOG)
    assert row["pred"] is None and confusion([row]) == {"detail": {"none": 1}}


def test_split_verdicts_follow_the_targets() -> None:
    rows = [
        {
            **score_item(
                _detail(style=s),
                _answer("eight mainstream bias mitigation techniques", kind=k),
                CATALOG,
            )
        }
        for s, k in [("formal", "detail"), ("typos", "detail"), ("typos", "lookup")]
    ]
    report = split_report(rows, fit=["formal"])
    assert report["fit_styles"] == ["formal"] and report["unseen_styles"] == ["typos"]
    assert report["fit"]["kind_accuracy"] == 1.0 and report["unseen"]["kind_accuracy"] == 0.5
    got = report["unseen_verdicts"]
    assert got["kind_accuracy"] == "FAIL" and got["fact_recall"] == "PASS"
    assert got["false_refusals"] == "PASS" and got["list_recall"] == "n/a"
    assert verdicts({"false_refusals": 0.031})["false_refusals"] == "FAIL"


def _sample_items() -> list[Item]:
    """A handful of real corpus items over the sample: a list, a count, a detail, a follow-up,
    an off-topic question (first of each that the corpus files hold)."""
    present = [p for p in CORPUS_FILES if p.is_file()]
    sample = [i for i in read_items(present) if i.corpus.value == "sample"]
    picks = [
        lambda i: i.kind.value == "list",
        lambda i: i.kind.value == "count",
        lambda i: i.kind.value == "detail" and i.answerable and not i.turns,
        lambda i: bool(i.turns),
        lambda i: not i.answerable and i.missing is None,
    ]
    return [next(i for i in sample if pick(i)) for pick in picks if any(map(pick, sample))]


def test_report_runs_on_the_sample_index(
    sample_data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = _sample_items()
    if len(items) < 3:
        pytest.skip("the corpus files hold too few sample items")
    corpus = tmp_path / "items.jsonl"
    corpus.write_text("".join(i.model_dump_json() + "\n" for i in items), encoding="utf-8")
    out = tmp_path / "report.json"
    code = main(
        [
            "--index-dir",
            str(sample_data_dir),
            "--corpus",
            str(corpus),
            "--out",
            str(out),
            "--fit-styles",
            items[0].style.value,
        ]
    )
    assert code == 0
    printed = capsys.readouterr().out
    assert "| **unseen** |" in printed and "| kind_accuracy | >= 0.95 |" in printed
    result = json.loads(out.read_text(encoding="utf-8"))
    rows = {r["id"]: r for r in result["items"]}
    assert list(rows) == [i.id for i in items]
    for item in items:
        row = rows[item.id]
        assert row["pred"] in {k.value for k in QuestionKind} and "head" in row
        assert ("list_recall" in row) == (item.kind.value == "list")
        assert ("count_within" in row) == (item.kind.value == "count")
    assert result["meta"]["papers"] == 19
    assert sum(result["per_style"][s]["items"] for s in result["per_style"]) == len(items)
    # --limit and --kinds select before anything is asked.
    kind = items[0].kind.value
    assert [i.id for i in select(items, kinds=[kind])] == [i.id for i in items if i.kind == kind]
    assert len(select(items, limit=1)) == len({i.style for i in items})
