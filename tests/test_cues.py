"""Sentence cues: word lists in the lexicon, matched as the data declares (rag/cues.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rag.cues import Cues
from rag.lexicon import LEXICON, Cue, Lexicon, LexiconError, load_lexicon


def _cues(lexicon: Lexicon, **cues: Cue) -> Cues:
    return Cues(lexicon.model_copy(update={"sentence_cues": cues}))


def test_stems_match_at_a_word_start_and_words_only_whole(lexicon: Lexicon) -> None:
    cues = _cues(lexicon, c=Cue(stems=("improv",), words=("fold",)))
    assert cues.says("c", "It improves accuracy.")
    assert cues.says("c", "a ten-FOLD gain")
    assert not cues.says("c", "unimproved")
    assert not cues.says("c", "folding proteins")


def test_phrases_allow_any_whitespace_and_the_longest_form_is_matched(lexicon: Lexicon) -> None:
    cues = _cues(lexicon, c=Cue(stems=("speed up", "speedup", "speedups")))
    assert cues.says("c", "we speed\nup decoding")
    assert [m.group() for m in cues.pattern("c").finditer("two speedups")] == ["speedups"]


def test_unless_excludes_longer_forms_only(lexicon: Lexicon) -> None:
    cues = _cues(
        lexicon,
        c=Cue(stems=("problem",), words=("a new",), unless=("problem-solving", "a new record")),
    )
    assert not cues.says("c", "strong problem-solving skills")
    assert cues.says("c", "the problem of drift")
    assert not cues.says("c", "sets a new record")
    assert cues.says("c", "a new recording setup")
    assert cues.says("c", "a new benchmark")


def test_problem_solving_states_no_problem(cues: Cues) -> None:
    # "excel at mathematical problem solving" names a skill, not the gap a paper addresses.
    assert not cues.says("problem", "LRMs excel at mathematical problem solving and coding.")
    assert cues.says("problem", "Leveraging it remains an open problem.")


def test_numbers_symbols_verbs_and_openings(lexicon: Lexicon) -> None:
    cues = _cues(
        lexicon,
        n=Cue(before_number=("by",), after_number=("x", "%")),
        s=Cue(symbols=("×",)),
        d=Cue(digit=True),
        we=Cue(we_verbs=("propose",), and_verbs=("present",)),
        o=Cue(opening=True, stems=("however",)),
    )
    assert cues.says("n", "improves by 4 points") and not cues.says("n", "by far")
    assert cues.says("n", "a 5x speedup") and not cues.says("n", "5xl")
    assert cues.says("n", "gains 3 %")
    assert cues.says("s", "3.5× faster") and cues.says("d", "GPT-4")
    assert cues.says("we", "We carefully propose X.")
    assert cues.says("we", "We address this gap and present X.")
    assert not cues.says("we", "They propose X.")
    assert cues.says("o", "However, it fails.") and not cues.says("o", "It fails, however.")


def test_words_after_a_word_in_the_first_words(lexicon: Lexicon) -> None:
    cues = _cues(
        lexicon,
        a=Cue(opening=True, opening_words=2, after=("this", "such"), plural=True, words=("gap",)),
    )
    assert cues.says("a", "This gap matters.") and cues.says("a", "We argue such gaps remain.")
    assert not cues.says("a", "We argue that this gap remains.")  # three words before
    assert not cues.says("a", "This gapped tooth.") and not cues.says("a", "The gap.")


def test_a_cue_includes_another_and_lists_its_words(lexicon: Lexicon) -> None:
    cues = _cues(lexicon, a=Cue(words=("two",)), b=Cue(words=("hundred",), includes=("a",)))
    assert cues.says("b", "two tasks") and cues.words("b") == {"two", "hundred"}
    with pytest.raises(KeyError, match="no sentence cue 'c'"):
        cues.says("c", "anything")


def test_subject_verbs_take_another_cues_verbs_its_subjects_and_adverbs(lexicon: Lexicon) -> None:
    made = Cue(and_verbs=("propose",))
    intro = Cue(
        verbs_of="made", subjects=("we", "this paper"), adverbs=("first",), verb_s=True
    )
    cues = _cues(lexicon, made=made, intro=intro)
    assert cues.says("intro", "This paper first proposes X")
    assert cues.says("intro", "we briefly propose X")
    assert not cues.says("intro", "we proposed X")
    assert not cues.says("intro", "they propose X")


def test_an_unknown_include_fails_naming_the_field(tmp_path: Path) -> None:
    data = json.loads(LEXICON.read_text(encoding="utf-8"))
    data["sentence_cues"]["number"]["includes"] = ["no_such_cue"]
    bad = tmp_path / "lexicon.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LexiconError, match=r"lexicon\.json: sentence_cues: .*no_such_cue"):
        load_lexicon(bad)
    data["sentence_cues"]["number"]["includes"] = []
    data["sentence_cues"]["introducing"]["verbs_of"] = "no_such_verbs"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(LexiconError, match=r"lexicon\.json: sentence_cues: .*no_such_verbs"):
        load_lexicon(bad)


def test_a_measure_reads_its_words_and_how_its_number_reads(cues: Cues) -> None:
    speed, factor = cues.measure("speedup")
    assert factor and speed.search("up to 13.8× faster")
    accuracy, factor = cues.measure("accuracy")
    assert not factor and accuracy.search("top-1 accuracy of 81%")
    # A measure the lexicon does not name: the one its word starts like, else an improvement.
    assert cues.measure("speed")[0] is speed
    assert cues.measure("fidelity")[0] is cues.measure("improvement")[0]


def test_the_sentence_kinds(cues: Cues) -> None:
    assert cues.reports_result("It improves accuracy by 4%.")
    assert not cues.reports_result("It improves accuracy.")
    assert cues.states_amount("twice as fast") and not cues.states_amount("a two-stage plan")
    assert cues.has_cue("problem", "Existing methods struggle with long inputs.")
    assert cues.has_cue("entities", "We evaluate on GSM8K and MATH.")
    assert cues.contributes("We address this gap with DanceTogether, the first such model.")
    assert cues.framing("Recent work has explored agents.", 3)
    assert not cues.framing("We propose Foo, a planner.", 0)
    # What the field is sets the scene; what the paper proves of a method does not.
    assert cues.framing("Multimodal Dataset Distillation (MDD) has emerged as a remedy.", 2)
    assert not cues.framing("We prove that privacy in Noisy-FedAvg has a tight bound.", 2)
