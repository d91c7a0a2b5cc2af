"""Which papers an offline answer treats as named, which sentences it quotes, how its lead reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import build_settings, pipeline_over

from rag.answers.detail import counts, detail_sentences, read_asked
from rag.answers.extractive import (
    asks_one_work,
    extractive_answer,
    naming_first,
    pick_sentences,
    with_best,
    with_name,
)
from rag.answers.lead import restate
from rag.answers.refusal import UNUSED_MIN_PAPERS, signals
from rag.answers.wording import unstated
from rag.app.options import AskOptions
from rag.app.pipeline import Pipeline
from rag.cues import Cues, bundled_cues
from rag.lexicon import Lexicon, load_lexicon
from rag.models import (
    Answer,
    Conversation,
    Paper,
    Plan,
    QuestionKind,
    QuestionPart,
    SearchHit,
)
from rag.questions.parts import asked_parts, question_parts
from rag.questions.planner import Planner
from rag.questions.router import Router
from rag.questions.topic import compared_sides
from rag.retrieval.support import Evidence, SentenceScore
from rag.store.catalog import Catalog
from rag.store.chunking import split_sentences
from rag.store.embeddings import CachedEmbedder
from rag.store.names import NameIndex, introduces, spelled_out
from rag.store.titles import introduced_names
from rag.text import content_terms


class NamingPlanner(Planner):
    """The rule planner, plus a fixed 'named' paper: a stand-in for a loose name match."""

    def __init__(self, pipeline: Pipeline, title_word: str) -> None:
        super().__init__(pipeline.catalog_view, pipeline.planner.router, pipeline.lexicon)
        self.ids = [p.id for p in pipeline.catalog().values() if title_word in p.title]

    def plan(
        self, question: str, conversation: Conversation | None = None, use_model: bool = True
    ) -> Plan:
        plan = super().plan(question, conversation, use_model)
        plan.paper_ids = list(self.ids)
        plan.named = ["loose name"]
        return plan


def lead(answer: Answer) -> str:
    """The answer's first line: the sentence that answers the question."""
    return answer.text.splitlines()[0]


def quotes_sentence(answer: Answer, abstract: str, holding: str) -> bool:
    """Whether the first citation's quote opens with the abstract's sentence holding a phrase."""
    (sentence,) = [s for s in split_sentences(abstract) if holding in s]
    return answer.citations[0].quote.startswith(sentence)


def lacks(text: str, answer_type: str) -> bool:
    """Whether an answer says a named paper's abstract does not state what was asked."""
    return unstated(answer_type).removeprefix("The abstract") in text


@pytest.fixture(scope="module")
def base(sample_index_dir: Path, embedder: CachedEmbedder) -> Pipeline:
    return Pipeline(build_settings(sample_index_dir), embedder=embedder)


def _with_planner(base: Pipeline, title_word: str) -> Pipeline:
    pipe = Pipeline(base.settings, embedder=base.embedder, index=base.index)
    pipe.planner = NamingPlanner(pipe, title_word)
    return pipe


QUESTION = "Which paper proposes a post-training quantization algorithm?"


def test_a_planner_name_retrieval_does_not_back_is_not_a_named_paper(base: Pipeline) -> None:
    # "When …" read as the name of a paper titled "… WHEN …": the question is about
    # quantization, so the answer must not be forced onto that paper.
    pipe = _with_planner(base, "WebDS")
    answer = pipe.ask(QUESTION, options=AskOptions(answerer="extractive"))
    assert answer.named == []
    assert not answer.refused
    assert "Qronos" in answer.citations[0].title
    assert all("WebDS" not in c.title for c in answer.citations)


def test_a_planner_name_retrieval_agrees_with_is_named(base: Pipeline) -> None:
    pipe = _with_planner(base, "Qronos")
    answer = pipe.ask(QUESTION, options=AskOptions(answerer="extractive"))
    assert answer.named == pipe.planner.ids  # type: ignore[attr-defined]
    assert [c.paper_id for c in answer.citations] == answer.named


def test_a_coined_acronym_spelled_out_names_its_paper() -> None:
    abstract = (
        "Model-based RL struggles with spurious variations. Motivated by this, we propose the "
        "Event-Aware World Model (EAWM), a general framework. Experiments on Atari 100K show "
        "gains over large language models (LLMs)."
    )
    assert spelled_out(abstract, "EAWM") == "Event-Aware World Model"
    assert spelled_out(abstract, "XYZ") == ""
    paper = Paper(key="k", id="p1", title="From Observations to Events", abstract=abstract)
    other = Paper(key="o", id="p2", title="World Models at Scale", abstract="We scale models.")
    names = NameIndex([paper, other])
    # Without the spelled-out form the question named nothing, and runners-up were cited.
    assert names.find("On which benchmarks is the Event-Aware World Model evaluated?") == ["p1"]
    assert names.find("Which world model is event aware?") == []


def test_a_name_lists_the_paper_its_title_names_before_one_whose_abstract_coins_it() -> None:
    owl = Paper(
        key="o",
        id="owl",
        title="OWL: Spatial Reasoning for Audio Models",
        abstract="We introduce the Spatial-Acoustic Geometry Encoder (SAGE), an audio encoder.",
    )
    sage = Paper(
        key="s",
        id="sage",
        title="SAGE: Adaptive Graph Exploration",
        abstract="We explore graphs adaptively for navigation.",
    )
    assert NameIndex([owl, sage]).find("Which datasets does SAGE use?") == ["sage", "owl"]


# -- the lead line and the sentences quoted ------------------------------------------------------


@pytest.mark.parametrize(
    ("clause", "lead"),
    [
        (
            "We use our discovery to reduce peak memory usage by 18× on Llama3 8B",
            "Qronos uses its discovery to reduce peak memory usage by 18× on Llama3 8B [1].",
        ),
        (
            "To address these limitations, we propose Qronos, a landmark-free quantizer",
            "Qronos is a landmark-free quantizer [1].",
        ),
        (
            "We introduce Qronos—a new post-training algorithm",
            "Qronos is a new post-training algorithm [1].",
        ),
        (
            "In this paper, we further study how errors accumulate",
            "Qronos further studies how errors accumulate [1].",
        ),
        ("This paper proposes a rounding scheme", "Qronos proposes a rounding scheme [1]."),
        (
            "We propose Quantized Rounding (QRONOS), an adaptive rounding scheme",
            "Qronos is an adaptive rounding scheme [1].",
        ),
        (
            "We apply our framework to layers and empirically evaluate it, to our knowledge first",
            "Qronos applies its framework to layers and empirically evaluates it, to the "
            "authors' knowledge first [1].",
        ),
        # A list's numbering goes with the opener before it.
        (
            "Specifically, (1) We first construct a taxonomy of 112 distinct aspects",
            "Qronos first constructs a taxonomy of 112 distinct aspects [1].",
        ),
        # The paper is the object: the authors stay the subject.
        (
            "We evaluate Qronos using recent language models in the Llama3 family",
            "Qronos [1]: The authors evaluate Qronos using recent language models in the "
            "Llama3 family.",
        ),
        # The name introduced after "with": what it is, not what the authors addressed.
        (
            "We address this gap with Qronos, the first end-to-end quantizer for our setting",
            "Qronos is the first end-to-end quantizer for its setting [1].",
        ),
        # The paper is the subject already: the clause is the lead.
        (
            "Qronos comprises three stages, each a rounding step",
            "Qronos comprises three stages, each a rounding step [1].",
        ),
        # "this work introduces X (…) - a …": the name is not repeated as its own object.
        (
            "To address this gap, this work introduces Qronos (Quantized Rounding) - a novel "
            "framework",
            "Qronos is a novel framework [1].",
        ),
        (
            "To this end, we introduce the Qronos (QR), a light-weight representation language",
            "Qronos is a light-weight representation language [1].",
        ),
        (
            "We present the Qronos (QR), which reframes each split as a least-squares problem",
            "Qronos reframes each split as a least-squares problem [1].",
        ),
        # No "we": the clause is quoted as it stands.
        (
            "It incorporates a unified taxonomy of 20 MCP attack types",
            "Qronos [1]: It incorporates a unified taxonomy of 20 MCP attack types.",
        ),
    ],
)
def test_lead_restates_the_clause_with_the_paper_as_subject(
    clause: str, lead: str, cues: Cues
) -> None:
    assert restate("Qronos", 1, clause, cues) == lead


def _scores(*texts: str) -> list[SentenceScore]:
    """Sentences in rank order, each 0.15 below the one before (none 'close' to the first)."""
    return [SentenceScore(i, t, 1.0 - 0.15 * i) for i, t in enumerate(texts)]


def test_leading_paper_quotes_the_sentence_holding_the_rest_of_the_question(cues: Cues) -> None:
    ranked = _scores(
        "We develop a framework for compressibility and adversarial robustness.",
        "Code is released.",
        "We show that compression induces highly sensitive directions adversaries exploit.",
    )
    terms = {
        t: 1.0
        for t in content_terms("compressibility creates sensitive directions attacks exploit")
    }
    picks = pick_sentences(ranked, cues, first=True, terms=terms, title="On compressibility")
    # 2 for its terms; 1 is the window's (the sentence after the best, and between two quoted).
    assert [s.index for s in picks] == [0, 1, 2]
    # Runners-up quote their best sentence only.
    assert [s.index for s in pick_sentences(ranked, cues, first=False, terms=terms)] == [0]


def test_leading_paper_quotes_the_sentence_after_its_best_one(cues: Cues) -> None:
    # What a sentence announces, the next one names ("two classical methods" -> Noisy-FedAvg).
    texts = [
        "Federated learning with differential privacy is widely used.",
        "We evaluate the worst privacy of two classical methods.",
        "We prove a tight convergent bound for Noisy-FedAvg and Noisy-FedProx.",
        "Our analysis gives a foundation for FL-DP.",
    ]
    ranked = [SentenceScore(i, texts[i], s) for i, s in ((1, 1.0), (3, 0.5), (0, 0.4), (2, 0.3))]
    picks = pick_sentences(ranked, cues, first=True)
    assert [s.index for s in picks] == [1, 2]
    # A runner-up paper quotes its best sentence alone.
    assert [s.index for s in pick_sentences(ranked, cues, first=False)] == [1]


def test_words_the_abstract_never_writes_do_not_hide_a_sentence_holding_a_clause(
    cues: Cues,
) -> None:
    ranked = _scores(
        "We introduce Horseshoe Splatting, a Bayesian extension of Gaussian splatting.",
        "This enables pixel-wise posterior uncertainty with minimal overhead.",
    )
    # A long question in other words: most of its weight is on words no sentence uses, yet
    # "per-pixel … with little overhead" is a clause the second sentence answers.
    written = {t: 1.0 for t in content_terms("Bayesian splatting pixel overhead")}
    unwritten = {
        t: 2.0
        for t in content_terms(
            "treatment ellipsoid primitive heavy tailed shrinkage suppress noisy confidence "
            "maps little puts"
        )
    }
    picks = pick_sentences(
        ranked, cues, first=True, terms=written | unwritten, title="Horseshoe Splatting"
    )
    assert [s.index for s in picks] == [0, 1]


def test_a_fourth_sentence_answers_the_last_clause_of_a_long_question(cues: Cues) -> None:
    ranked = [
        SentenceScore(0, "We introduce a unified framework for contextual and causal BO.", 0.9),
        SentenceScore(1, "Our approach uses observed context and known causal graphs.", 0.85),
        SentenceScore(2, "We propose an algorithm choosing which variables to intervene on.", 0.7),
        SentenceScore(3, "We derive high-probability regret bounds for our algorithm.", 0.65),
    ]
    # The contribution, its close second and what it consists of leave "with regret
    # guarantees?" unanswered: the sentence stating the bounds joins them.
    terms = {
        t: 1.0
        for t in content_terms(
            "optimiser choosing variables intervene causal graph observed context unifying "
            "contextual causal regret guarantees"
        )
    }
    picks = pick_sentences(ranked, cues, first=True, terms=terms, title="Causal BO", describe=True)
    assert [s.index for s in picks] == [0, 1, 2, 3]


def test_a_lookup_quotes_what_the_contribution_consists_of(cues: Cues) -> None:
    ranked = [
        SentenceScore(3, "To address this, we introduce InfoDet, a dataset for charts.", 0.9),
        SentenceScore(1, "A key limitation of existing VLMs lies in their grounding.", 0.6),
        SentenceScore(4, "It contains over 14 million bounding box annotations.", 0.5),
        SentenceScore(0, "Charts are central to science.", 0.4),
    ]
    # "Which dataset …?" quotes the sentence after "we introduce X": what X holds.
    assert [s.index for s in pick_sentences(ranked, cues, first=True, describe=True)] == [3, 4]
    # Other question types quote it as the best sentence's window; runners-up keep their best.
    assert [s.index for s in pick_sentences(ranked, cues, first=True)] == [3, 4]
    assert [s.index for s in pick_sentences(ranked, cues, first=False, describe=True)] == [3]


def test_the_sentence_after_the_contribution_is_skipped_when_it_sets_the_scene(cues: Cues) -> None:
    ranked = [
        SentenceScore(0, "We introduce Horseshoe Splatting, a Bayesian extension of 3DGS.", 0.9),
        SentenceScore(1, "However, most 3DGS variants remain deterministic.", 0.5),
    ]
    assert [s.index for s in pick_sentences(ranked, cues, first=True, describe=True)] == [0]


def test_scene_setting_sentences_are_not_added_to_the_quote(cues: Cues) -> None:
    ranked = [
        SentenceScore(1, "In this paper, we approach safe exploration through uncertainty.", 0.9),
        SentenceScore(0, "Safe exploration is a prerequisite for deploying RL agents.", 0.85),
    ]
    terms = {t: 1.0 for t in content_terms("safe exploration in RL")}
    assert [s.index for s in pick_sentences(ranked, cues, first=True, terms=terms)] == [1]


@pytest.mark.parametrize(
    ("question", "says_missing"),
    [
        ("What learning rate does Qronos use?", True),
        ("Which kinds of quantization errors does Qronos correct?", False),
        ("Under which software license is Qronos released?", True),
        ("What inference latency in milliseconds does Qronos add?", True),
        ("What problem does Qronos address?", False),  # the substance: every abstract has it
        ("How much memory does Qronos save?", False),
        # A quantity word asks for the number itself: "18×" states the fraction saved.
        ("What fraction of peak memory does Qronos save?", False),
        # Both words of a two-word detail in the abstract: "Large Language Models" is no
        # programming language.
        ("Which programming language is Qronos implemented in?", True),
        ("Which models or datasets does Qronos evaluate on?", False),  # either will do
        # "What is the X of Y" asks for X, not what Y is.
        ("What is the GitHub link for Qronos?", True),
        ("What is Qronos?", False),
        # An abstract never names its date (its authors are the catalog's: see
        # test_who_wrote_a_named_paper_is_the_catalogs_authors_or_said_to_be_absent).
        ("When was Qronos published?", True),
    ],
)
def test_a_detail_no_sentence_mentions_is_reported_missing(
    base: Pipeline, question: str, says_missing: bool
) -> None:
    answer = base.ask(question, options=AskOptions(answerer="extractive"))
    assert answer.named
    assert ("does not state" in answer.text) is says_missing
    assert answer.refused is says_missing


def test_what_an_abstract_lacks_is_said_by_one_template_per_answer_type() -> None:
    # One fixed sentence per answer type, never the question restated (which went wrong on
    # phrasings no rule foresaw: "does not say under which software license is …"). Its
    # words: tests/test_wording.py.
    types = ["number", "entities", "finding", "problem", "general"]
    said = {t: unstated(t, "Qronos") for t in types}
    assert len(set(said.values())) == len(types)
    assert all("Qronos" in s and "Qronos" not in unstated(t) for t, s in said.items())
    assert unstated("an unknown type", "Qronos") == said["general"]


@pytest.mark.parametrize(
    ("sentence", "contribution"),
    [
        (
            "In this paper, we address this challenge and present the first constrained "
            "decoding method for diffusion models.",
            True,
        ),
        ("We join this line of work and introduce a ranking loss.", True),
        ("We address this gap with DanceTogether, the first end-to-end framework.", True),
        ("We find that both methods and baselines propose similar edits.", False),
    ],
)
def test_a_contribution_after_a_coordinated_verb_is_the_papers_own(
    sentence: str, contribution: bool, cues: Cues
) -> None:
    # "we address this challenge and present X" states what the paper does: a lookup answer
    # quotes it, and as an opening sentence it is no scene-setting.
    assert (cues.type_fit("general", sentence, 3) == 0.5) is contribution
    assert cues.framing(sentence, 0) is not contribution


def test_a_lookup_quotes_the_papers_headline_result(cues: Cues) -> None:
    ranked = [
        SentenceScore(1, "We propose Foo, a method for bar.", 0.9),
        SentenceScore(2, "Foo combines baz and qux.", 0.6),
        SentenceScore(0, "Bar matters for many systems.", 0.5),
        SentenceScore(3, "Foo improves accuracy by 7.1% on Charades-STA.", 0.3),
    ]
    assert [s.index for s in pick_sentences(ranked, cues, first=True, describe=True)] == [1, 2, 3]
    # Only the leading paper of a "which paper / what does X propose" answer gets it.
    assert 3 not in [s.index for s in pick_sentences(ranked, cues, first=True)]
    assert [s.index for s in pick_sentences(ranked, cues, first=False, describe=True)] == [1]
    # What others achieved ("While NeRFs achieve … 3DGS attains …") is no headline of this paper.
    scene = [*ranked[:3], SentenceScore(4, "While NeRFs achieve 3D fidelity, 3DGS is fast.", 0.3)]
    assert [s.index for s in pick_sentences(scene, cues, first=True, describe=True)] == [1, 2]


@pytest.mark.parametrize(
    ("sentence", "scene"),
    [
        # The acronym in parentheses is part of the field's name.
        ("Multimodal Dataset Distillation (MDD) has emerged as a vital paradigm.", True),
        ("Our method (MDD) has two stages.", False),
        ("Nevertheless, analyses have focused on positive activations.", True),
    ],
)
def test_a_field_defined_with_its_acronym_sets_the_scene(
    sentence: str, scene: bool, cues: Cues
) -> None:
    assert cues.framing(sentence, 2) is scene


@pytest.mark.parametrize(
    ("question", "qtype"),
    [
        # An auxiliary after "what" asks about the paper, not for its datasets.
        ("What does the dataset distillation paper do for vision-language models?", "contribution"),
        ("Which models did they test?", "entities"),
        ("What datasets does Qronos use?", "entities"),
        # What it is compared against: the baselines, not what it is about.
        ("What does it compare against?", "entities"),
        ("What is DanceTogether?", "contribution"),
        ("With what fraction of the data does SSPO win?", "number"),
        ("What limitation of SAEs does T-SAE address?", "problem"),
        ("What problem does SHAPO solve?", "problem"),
        ("What motivates Qronos?", "problem"),
        # Any subject before "find"; a yes or no that a result settles.
        ("What did the paper on negative pre-activations find?", "finding"),
        ("Does compression order matter when pruning and quantizing a model?", "finding"),
        # Whether it keeps something is a result too ("… while maintaining an identical
        # sampling distribution").
        ("Does SpecBranch preserve the output distribution?", "finding"),
        ("Does KVTC maintain accuracy?", "finding"),
        ("Does it beat supervised fine-tuning?", "finding"),
        ("Does it need to keep examples from old tasks?", "general"),
        pytest.param(
            "Tell me about the paper Negative Pre-activations Differentiate Syntax",
            "contribution",
            marks=pytest.mark.xfail(reason="the router reads it as general", strict=True),
        ),
    ],
)
def test_the_router_reads_the_answer_type(router: Router, question: str, qtype: str) -> None:
    assert router.route(question, 1).answer_type == qtype


@pytest.mark.parametrize(
    ("question", "types"),
    [
        ("How does REAP prune experts and how much does it compress?", ["finding", "number"]),
        ("What is FusedKV and how much does it cut the cache?", ["contribution", "number"]),
        ("How many parameters does LaTo use, and what does it do?", ["number", "contribution"]),
        # Both parts ask how well: each is still answered by its own words.
        ("How does Browser Use perform on WebDS, and how well do humans do?", ["number"] * 2),
        ("What is one question?", []),
        # "which is faster?" alone reads as general: it is answered with what REAP does.
        ("How does REAP compare with merging and which is faster?", ["finding", "general"]),
    ],
)
def test_a_two_part_question_is_cut_and_each_part_routed(
    router: Router, lexicon: Lexicon, question: str, types: list[str]
) -> None:
    assert [p.answer_type for p in asked_parts(question, 1, router, lexicon)] == types


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("What does Qronos do and how much memory does it save?", 2),
        ("What is X? How fast is it?", 2),
        ("what datasets does it use; is the code released", 2),
        # A preposition before the question word: "and for how many epochs …".
        ("What is VQ-Transplant about, and for how many epochs is it trained?", 2),
        # "and" inside a part joins things, not questions.
        ("Which datasets and benchmarks does Qronos use?", 1),
        ("How do Mamba and Transformers compare?", 1),
        ("What is it?", 1),
    ],
)
def test_question_parts_cut_only_before_a_question_word(
    lexicon: Lexicon, question: str, parts: int
) -> None:
    assert len(question_parts(question, lexicon)) == parts


def test_what_is_x_leads_with_the_sentence_introducing_x(base: Pipeline) -> None:
    answer = base.ask("What is DanceTogether?", options=AskOptions(answerer="extractive"))
    # The abstract also introduces its datasets ("we introduce (i) PairFS-4K …").
    assert "the first end-to-end diffusion framework" in lead(answer)
    assert "PairFS-4K" not in lead(answer)


@pytest.mark.parametrize(
    ("question", "first", "then"),
    [
        (
            "What does Qronos do and how much memory does it save?",
            "a new post-training quantization algorithm",
            "reduce peak memory usage by 18× on Llama3 8B",
        ),
        # How it works, then how much: the first part asks what it does, in other words.
        (
            "How does Qronos quantize models and how much memory does it save?",
            "a new post-training quantization algorithm",
            "reduce peak memory usage by 18× on Llama3 8B",
        ),
        (
            "What does MCP-SafetyBench do and how many attack types does it cover?",
            "a comprehensive benchmark built on real MCP servers",
            "20 MCP attack types",
        ),
    ],
)
def test_a_question_asking_what_and_how_much_gets_both(
    base: Pipeline, question: str, first: str, then: str
) -> None:
    answer = base.ask(question, options=AskOptions(answerer="extractive"))
    first_line = lead(answer)
    assert first in first_line and then in first_line
    assert first_line.index(then) > first_line.index(first)
    # The quote holds both sentences, each verbatim.
    quote = answer.citations[0].quote
    abstract = base.catalog()[answer.citations[0].paper_id].abstract
    assert all(piece in abstract for piece in quote.split(" … "))
    assert ("We introduce Qronos" in quote and "peak memory usage" in quote) or (
        "MCP-SafetyBench}, a comprehensive benchmark" in quote and "20 MCP attack types" in quote
    )


def test_what_and_how_much_of_an_abstract_without_a_number_says_so(base: Pipeline) -> None:
    answer = base.ask(
        "What does SHAPO do and how much memory does it save?",
        options=AskOptions(answerer="extractive"),
    )
    assert not answer.refused
    assert "a sharpness-aware policy update rule" in lead(answer)
    assert lead(answer).endswith(unstated("number"))
    # The elliptic follow-up asks the same of the paper it names.
    chat = Conversation()
    base.ask("What does Qronos do and how much memory does it save?", chat)
    again = base.ask("and the SHAPO paper?", chat, options=AskOptions(answerer="extractive"))
    assert again.text.splitlines()[0] == answer.text.splitlines()[0]


def test_the_detail_asked_first_and_what_it_does_second_gets_both(base: Pipeline) -> None:
    # The detail is the part that is not "what does it do", whichever comes first.
    answer = base.ask(
        "How many parameters does LaTo use, and what does it do?",
        options=AskOptions(answerer="extractive"),
    )
    assert "a landmark-tokenized diffusion transformer" in lead(answer)
    assert lead(answer).endswith(unstated("number"))
    qronos = base.ask(
        "How much memory does Qronos save and what does it do?",
        options=AskOptions(answerer="extractive"),
    )
    assert "reduce peak memory usage by 18× on Llama3 8B" in qronos.text.splitlines()[0]


def test_a_question_about_the_problem_quotes_the_gap_the_paper_starts_from(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "Language models read documents of many lengths. However, existing retrievers fail on "
        "inputs longer than their training context. We propose LongFix, a chunk-aware reader. "
        "LongFix improves accuracy by 5% on three long-document benchmarks."
    )
    pipe = _one_paper(tmp_path, embedder, "LongFix: Reading Long Inputs", abstract)
    answer = pipe.ask(
        "What problem does LongFix address?", options=AskOptions(answerer="extractive")
    )
    assert quotes_sentence(answer, abstract, "existing retrievers fail")
    what = pipe.ask("What does LongFix propose?", options=AskOptions(answerer="extractive"))
    assert quotes_sentence(what, abstract, "We propose LongFix")
    assert "a chunk-aware reader" in lead(what) and "fail" not in lead(what)


def test_a_problem_referred_back_to_is_quoted_with_the_sentence_stating_it(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "Dense retrievers index documents of many lengths. They often miss passages deep inside "
        "long documents. We argue that this limitation stems from short training contexts. We "
        "propose ShortFix, a curriculum of growing contexts."
    )
    pipe = _one_paper(tmp_path, embedder, "ShortFix: Training Contexts for Retrievers", abstract)
    answer = pipe.ask(
        "What limitation of retrievers does ShortFix address?",
        options=AskOptions(answerer="extractive"),
    )
    assert quotes_sentence(answer, abstract, "often miss passages")
    assert "this limitation stems from short training contexts" in answer.citations[0].quote
    assert "miss passages deep inside long documents" in answer.text.splitlines()[0]


def test_which_models_needs_a_named_model(base: Pipeline) -> None:
    chat = Conversation()
    base.ask(
        "Is there a way of making a big model's knowledge transfer to a small one more stable?",
        chat,
    )
    # AMiD's abstract reports "extensive experiments" and names no model.
    answer = base.ask(
        "Which models did they evaluate?", chat, options=AskOptions(answerer="extractive")
    )
    assert answer.refused and answer.text.startswith(unstated("entities", "AMiD"))
    named = base.ask("Which models did Qronos evaluate?", options=AskOptions(answerer="extractive"))
    assert not named.refused and "Llama3" in named.text


def test_how_much_faster_needs_a_number_on_a_result(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = _one_paper(
        tmp_path,
        embedder,
        "SpecBench: Speculative Decoding at Test Time",
        "We introduce SpecBench, a benchmark of speculative decoding for test-time scaling. It "
        "compares three major categories of methods. Simple n-gram methods capture repetition.",
    )
    answer = pipe.ask("How much faster is SpecBench?", options=AskOptions(answerer="extractive"))
    # "three major categories" is a number, not a speed-up.
    assert lead(answer).startswith(
        unstated("number", "SpecBench: Speculative Decoding at Test Time")
    )


def test_how_much_faster_needs_a_number_on_speed(tmp_path: Path, embedder: CachedEmbedder) -> None:
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "long",
                "title": "LongDiff: Scaling Diffusion LLMs to Long Contexts",
                "abstract": "We extend diffusion LLMs without retraining. We introduce LongDiff, "
                "a diffusion LLM with a 128K-token context window that significantly "
                "outperforms training-free baselines on long-context tasks.",
            },
            {
                "id": "quant",
                "title": "QuantFast: Efficient Post-Training Quantization",
                "abstract": "We introduce QuantFast, a post-training quantizer. We reduce peak "
                "memory usage by 18x on Llama3 8B, and our scaling analysis shows a speedup "
                "of up to 13.8x for a single-layer microbenchmark.",
            },
            {
                "id": "dpu",
                "title": "LayerDec: Layer-Decomposition Training",
                "abstract": "Unstable parameters degrade generalization. We propose LayerDec "
                "with a Dynamic Parameter Update (DPU) strategy that adapts each layer. "
                "Experiments across tasks show better generalization.",
            },
        ],
        embedder,
    )
    ask = AskOptions(answerer="extractive")
    # A context length and "outperforms" are no speed-up.
    slow = pipe.ask("How much faster is LongDiff?", options=ask)
    assert slow.refused and lacks(slow.text, "number")
    fast = pipe.ask("How much faster is QuantFast?", options=ask)
    assert "a speedup of up to 13.8x" in fast.text.splitlines()[0]
    assert "18x" not in fast.text.splitlines()[0]
    # "parameter" is a word of its DPU's name, and no number is stated anywhere.
    count = pipe.ask("How many parameters does LayerDec use?", options=ask)
    assert count.refused and lacks(count.text, "number")


def test_how_much_it_improves_needs_a_number_on_a_change_not_another_systems_score(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = _one_paper(
        tmp_path,
        embedder,
        "SeekIt: Visual Search for Multimodal Agents",
        "Agents must think with images. To address this gap, we first introduce seek-bench, a "
        "new benchmark of visual details. Frontier systems like GPT-5 only obtain 42.8% accuracy "
        "on seek-bench. To tackle these tasks, we propose SeekIt, a multi-agent framework that "
        "splits search from reasoning. SeekIt significantly improves frontier models.",
    )
    ask = AskOptions(answerer="extractive")
    answer = pipe.ask("How much does SeekIt improve?", options=ask)
    head = answer.text.splitlines()[0]
    assert lacks(head, "number") and "42.8%" not in head
    # Asked with what it does: that part is answered by the sentence introducing SeekIt, not
    # seek-bench's, and only the missing number is said to be missing.
    both = pipe.ask("What does SeekIt do and how much does it improve?", options=ask)
    assert "a multi-agent framework that splits search from reasoning" in lead(both)
    assert "seek-bench" not in lead(both) and lead(both).endswith(unstated("number"))
    assert not both.refused and "42.8%" not in both.citations[0].quote


def test_a_two_stage_strategy_is_no_number_and_problem_solving_no_problem(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "Reasoning models harness test-time scaling for complex problem-solving. We introduce "
        "the problem of allocating reflection tokens. Our two-stage schedule further improves "
        "efficiency. On MATH500 it cuts tokens by 31% at equal accuracy."
    )
    pipe = _one_paper(tmp_path, embedder, "CycleTok: Scheduling Reflection Tokens", abstract)
    ask = AskOptions(answerer="extractive")
    problem = pipe.ask("What problem does CycleTok address?", options=ask)
    assert quotes_sentence(problem, abstract, "the problem of allocating")
    much = pipe.ask("How much does CycleTok improve?", options=ask)
    assert "cuts tokens by 31%" in much.text.splitlines()[0]


def _one_paper(root: Path, embedder: CachedEmbedder, title: str, abstract: str) -> Pipeline:
    """A pipeline over an index of one paper."""
    return pipeline_over(root, [{"id": "p1", "title": title, "abstract": abstract}], embedder)


def test_how_many_quotes_the_sentence_counting_the_asked_noun(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "We present CountBench, an open benchmark for financial search. CountBench comprises "
        "three tasks drawn from analyst workflows. The benchmark includes 635 questions. "
        "Grok 4 tops the global subset, approaching expert-level accuracy. The suite covers "
        "two markets, and we evaluate 21 models on it."
    )
    pipe = _one_paper(tmp_path, embedder, "CountBench", abstract)
    tasks = pipe.ask(
        "How many tasks does CountBench have?", options=AskOptions(answerer="extractive")
    )
    assert "three tasks" in lead(tasks) and "635" not in lead(tasks)
    assert quotes_sentence(tasks, abstract, "three tasks")
    questions = pipe.ask(
        "How many questions does CountBench include?", options=AskOptions(answerer="extractive")
    )
    assert "635 questions" in questions.text.split("\n")[0]
    # Asked with what it is: the count is of the second question's noun.
    both = pipe.ask(
        "What is CountBench and how many questions does it contain?",
        options=AskOptions(answerer="extractive"),
    )
    first = lead(both)
    assert "open benchmark for financial search" in first and "635 questions" in first
    assert "Grok 4" not in first
    # Each part answered that the abstract answers; the part it does not, said last.
    parts = pipe.ask(
        "How many GPUs does CountBench need, and what is it?",
        options=AskOptions(answerer="extractive"),
    )
    assert "open benchmark for financial search" in lead(parts)
    assert lead(parts).endswith(unstated("number")) and "635" not in lead(parts)
    assert not parts.refused
    # One sentence, two counts: the lead is the clause that counts what was asked.
    models = pipe.ask("How many models does CountBench evaluate?", options=AskOptions())
    assert "21 models" in lead(models) and "two markets" not in lead(models)


def test_a_yes_or_no_question_is_answered_by_the_finding(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = _one_paper(
        tmp_path,
        embedder,
        "Order in Joint Model Compression",
        "Joint model compression has emerged as a powerful strategy to achieve higher efficiency "
        "by combining pruning and quantization. A central but underexplored factor in joint "
        "compression is the compression order. We provide theoretical guarantees showing that "
        "weaker perturbations should precede stronger ones.",
    )
    answer = pipe.ask(
        "Does compression order matter when pruning and quantizing a model?",
        options=AskOptions(answerer="extractive"),
    )
    assert "weaker perturbations should precede stronger ones" in answer.text.split("\n")[0]


def test_a_link_is_the_catalog_url_and_said_absent_without_one(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    url = "https://openreview.net/forum?id=abc123"
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "p1",
                "title": "LinkBench: Finding Papers",
                "url": url,
                "abstract": "We present LinkBench, a benchmark of paper links for search.",
            },
            {
                "id": "p2",
                "title": "NoLink: Papers Without Pages",
                "abstract": "We present NoLink, a method for papers that have no own page.",
            },
        ],
        embedder,
    )
    ask = AskOptions(answerer="extractive")
    linked = pipe.ask("What's the link to the LinkBench paper?", options=ask)
    assert url in linked.text.split("\n")[0] and not linked.refused
    missing = pipe.ask("Where can I read the NoLink paper?", options=ask)
    assert "NoLink" in lead(missing) and "http" not in missing.text
    # A code link is not the paper's page.
    code = pipe.ask("What is the GitHub link for LinkBench?", options=ask)
    assert url not in code.text and "does not state" in code.text


def test_the_title_of_a_named_paper_is_its_catalog_title(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = _one_paper(
        tmp_path,
        embedder,
        "GEPA: Reflective Prompt Evolution",
        "We introduce GEPA, a prompt optimizer that reflects on traces. GEPA outperforms GRPO "
        "by 10% on average while using up to 35x fewer rollouts.",
    )
    answer = pipe.ask(
        "What is the title of the paper that introduces GEPA?",
        options=AskOptions(answerer="extractive"),
    )
    assert "“GEPA: Reflective Prompt Evolution”" in lead(answer)
    assert [c.paper_id for c in answer.citations] == ["p1"]


def test_a_papers_own_limitations_are_quoted_only_when_its_abstract_states_them(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "p1",
                "title": "LimitNet",
                "abstract": "Existing retrievers fail on long documents. We propose LimitNet, a "
                "retriever for long documents. Our method is limited to English text.",
            },
            {
                "id": "p2",
                "title": "FreeNet",
                "abstract": "Existing retrievers fail on long documents. We propose FreeNet, a "
                "retriever for long documents. FreeNet improves recall by 9%.",
            },
        ],
        embedder,
    )
    ask = AskOptions(answerer="extractive")
    stated = pipe.ask("What are the limitations of LimitNet?", options=ask)
    assert "limited to English text" in stated.text and not stated.refused
    # "Existing retrievers fail" is prior work's limitation, not FreeNet's.
    lacking = pipe.ask("What are the limitations of FreeNet?", options=ask)
    assert lacking.refused and lacking.text.startswith(unstated("general", "FreeNet"))


def test_comparatives_and_baselines_are_stated_by_comparisons(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "Secure inference is slow. We propose CipherFlow, a framework for encrypted inference. "
        "CipherFlow achieves a 52.8% reduction in evaluation time compared to THOR. "
        "Our implementation is open source."
    )
    pipe = _one_paper(tmp_path, embedder, "CipherFlow", abstract)
    opts = AskOptions(answerer="extractive")
    # No "faster" and no "baseline" in the abstract, yet both are answered by the comparison.
    faster = pipe.ask("How much faster is CipherFlow than THOR?", options=opts)
    assert not faster.refused and "52.8%" in faster.text.split("\n")[0]
    baselines = pipe.ask("Which baselines does CipherFlow compare against?", options=opts)
    assert not baselines.refused and "THOR" in baselines.text


def test_a_refusal_names_the_coined_words_no_paper_writes(base: Pipeline) -> None:
    answer = base.ask("What does FooBarNet propose?", options=AskOptions(answerer="extractive"))
    # Its words: tests/test_wording.py.
    assert answer.refused and not answer.citations and "“FooBarNet”" in lead(answer)
    # A name the index holds is no unknown word; neither is the field's vocabulary.
    assert base.catalog_view().names.unknown("Does Qronos beat GPTQ on LLMs?") == ["GPTQ"]
    assert base.catalog_view().names.unknown("Which datasets does SWE-smith use?") == ["SWE-smith"]
    # A word joined to a name describes it: "Qronos-style" is Qronos, which the index holds.
    assert base.catalog_view().names.unknown("How fast is Qronos-style rounding?") == []
    assert base.catalog_view().names.unknown("Is FooBarNet-based pruning fast?") == ["FooBarNet"]


def test_a_question_about_a_name_no_paper_writes_is_refused(base: Pipeline) -> None:
    # Qronos is a post-training quantization algorithm: the field is close, OmniQuant absent.
    opts = AskOptions(answerer="extractive")
    question = "What does OmniQuant do for post-training quantization of language models?"
    answer = base.ask(question, options=opts)
    assert answer.refused and not answer.citations
    assert "“OmniQuant”" in lead(answer)
    assert "confidence" not in answer.text  # the missing name is the reason
    weak = base.ask(question, options=AskOptions(answerer="extractive", show_weak=True))
    assert weak.weak
    assert "“OmniQuant”" in lead(weak) and weak.citations
    # A name in passing is no subject: the question is about the paper it names.
    assert not base.ask("Does Qronos beat OmniQuant?", options=opts).refused


def test_a_made_resource_answers_for_its_synonyms(base: Pipeline) -> None:
    # UFEval's abstract: "we introduce FRABench, a comprehensive fine-grained evaluation dataset".
    answer = base.ask(
        "What benchmark does UFEval introduce?", options=AskOptions(answerer="extractive")
    )
    assert not answer.refused and "FRABench" in answer.text.split("\n")[0]


def test_each_enumerated_introduction_is_a_name(base: Pipeline) -> None:
    # "we introduce (i) PairFS-4K, …, (ii) HumanRob-300, … and (iii) TogetherVideoBench, …"
    names = base.catalog_view().names
    dance = names.find("What is TogetherVideoBench?")
    assert dance and names.find("What is PairFS-4K?") == dance == names.find("HumanRob-300?")


def test_an_acronym_counts_as_covered_by_its_spelled_out_head(base: Pipeline) -> None:
    # Qronos's abstract says "recent language models", never "LLMs": the question's topic is
    # there all the same, so the collection is not silent on it.
    answer = base.ask(
        "Which paper is about post-training quantization of LLMs?",
        options=AskOptions(answerer="extractive"),
    )
    assert not answer.refused and "Qronos" in answer.citations[0].title
    assert answer.signals["full_coverage"] == 1.0


_NAMESAKES = [
    {
        "id": "distill",
        "title": "CoDA: Training-Free Dataset Distillation",
        "abstract": "Dataset distillation compresses a training set. We propose Core Distribution "
        "Alignment (CoDA), a framework that distills datasets with an off-the-shelf "
        "text-to-image model. CoDA reaches an accuracy of 60.4% at 50 images per class on "
        "ImageNet-1K.",
    },
    {
        "id": "charts",
        "title": "CoDA: Agents for Collaborative Data Visualization",
        "abstract": "Turning data into charts takes many steps. We introduce CoDA, a multi-agent "
        "system that plans, writes and checks visualization code. CoDA outperforms competitive "
        "baselines by up to 41.5% on chart benchmarks.",
    },
    {
        "id": "guided",
        "title": "Guided Watermarks for Diffusion Models",
        "abstract": "We embed watermarks while a diffusion model samples an image, guiding "
        "generation with gradients of an off-the-shelf watermark decoder. The watermark "
        "survives common attacks.",
    },
    {
        "id": "deflected",
        "title": "Deflected Watermarks for Diffusion Models",
        "abstract": "We embed watermarks into diffusion models by steering the denoising "
        "trajectory with a secret key. The watermark survives regeneration attacks.",
    },
]


@pytest.fixture(scope="module")
def namesakes(tmp_path_factory: pytest.TempPathFactory, embedder: CachedEmbedder) -> Pipeline:
    return pipeline_over(tmp_path_factory.mktemp("namesakes"), _NAMESAKES, embedder)


def test_of_papers_sharing_a_name_the_one_holding_the_detail_answers(namesakes: Pipeline) -> None:
    opts = AskOptions(answerer="extractive")
    answer = namesakes.ask("What accuracy does CoDA reach on ImageNet-1K?", options=opts)
    assert [c.paper_id for c in answer.citations] == ["distill"]
    assert "60.4%" in lead(answer) and "Data Visualization" not in lead(answer)
    # The namesake is named, not cited: the user may have meant it.
    last = answer.text.splitlines()[-1]
    assert "“CoDA”" in last and "Data Visualization" in last
    assert "[" not in last
    # A question every namesake answers is about all of them.
    both = namesakes.ask("What does CoDA do?", options=opts)
    assert {c.paper_id for c in both.citations} == {"distill", "charts"}


def test_a_question_asking_for_one_paper_cites_one(namesakes: Pipeline) -> None:
    opts = AskOptions(answerer="extractive")
    # Both watermarking papers are close: a question in general terms gets both,
    plural = namesakes.ask("How do diffusion models embed watermarks?", options=opts)
    assert len(plural.citations) == 2
    # one that asks for a paper gets the best one.
    for question in (
        "Which paper embeds watermarks while a diffusion model samples an image?",
        "Is there a method that embeds watermarks in diffusion models?",
    ):
        answer = namesakes.ask(question, options=opts)
        assert [c.paper_id for c in answer.citations] == ["guided"], question


def test_a_new_state_of_the_art_is_a_result_not_a_contribution(cues: Cues) -> None:
    result = "Notably, it establishes a new state-of-the-art accuracy of 60.4% on ImageNet-1K."
    assert cues.type_fit("contribution", result, 8) == 0.0
    assert cues.type_fit("contribution", "It offers a new benchmark for chart agents.", 3) == 1.0


def test_words_asking_for_the_finding_are_not_the_topic(namesakes: Pipeline) -> None:
    # "What is the main finding of the paper on grokking and weight decay?" was refused on the
    # conference: no abstract says "main" or "finding", so the topic looked half covered.
    guided = namesakes.catalog()["guided"]
    for question in (
        "What is the main finding on guided watermarks?",
        "What are the contributions of the guided watermarks paper?",
    ):
        plain, _ = namesakes.scorer.coverage(question, [guided])
        assert plain == [1.0], question


def test_british_and_american_spellings_share_terms() -> None:
    # Snowball alone stems "optimising" to "optimis" and "optimizing" to "optim".
    pairs = [
        ("optimising the behaviour of a categoriser", "optimizing the behavior of a categorizer"),
        ("discretisation of the catalogue", "discretization of the catalog"),
        ("we analyse colour artefacts", "we analyze color artifacts"),
    ]
    for british, american in pairs:
        assert content_terms(british) == content_terms(american)
    # Words that are never -ize keep their own stems on both sides.
    assert content_terms("denoising") == content_terms("denoise")
    assert content_terms("pairwise") == ["pairwis"]


def test_a_british_question_finds_the_american_abstract(base: Pipeline) -> None:
    # Qronos's abstract writes "quantization": "quantisation" used to match nothing.
    hits = base.search("post-training quantisation algorithm correcting errors", k=1)
    assert "Qronos" in hits[0].paper.title
    assert hits[0].bm25 and hits[0].bm25 > 0


def test_a_question_one_paper_writes_whole_is_never_refused(base: Pipeline) -> None:
    # "Is there a paper about quantizing LLMs after training?": every word is in Qronos
    # (LLMs as "language models"), though its wording is far from the abstract's.
    strict = AskOptions(answerer="extractive", refusal_threshold=0.99)
    answer = base.ask("Is there a paper about quantizing LLMs after training?", options=strict)
    assert answer.signals["full_coverage"] == 1.0
    assert answer.confidence is not None and answer.confidence < 0.99
    assert not answer.refused and "Qronos" in answer.citations[0].title
    # One word no paper writes, and the same bar refuses.
    off = base.ask("Is there a paper about quantizing LLMs for wildfire maps?", options=strict)
    assert off.signals["full_coverage"] == 0.0 and off.refused


def test_words_no_paper_uses_count_only_in_a_large_collection(base: Pipeline) -> None:
    weights = base.keywords.weights()
    assert weights.unused("Which paper forecasts wildfire spread?") == [
        "forecast",
        "wildfir",
        "spread",
    ]
    # In the 19-paper sample most words are unused: the signal stays 0 there.
    answer = base.ask("Which paper forecasts wildfire spread?")
    assert weights.n < UNUSED_MIN_PAPERS and answer.signals["unused"] == 0.0
    assert signals([], unused=3)["unused"] == 2.0


def test_a_word_the_papers_write_is_not_read_as_a_misspelt_name() -> None:
    gas = Paper(key="g", id="gas", title="GAS: Generalized Adversarial Solver", abstract="x.")
    gan = Paper(key="n", id="gan", title="Faster sampling", abstract="We train GANs faster.")
    sculpt = Paper(key="s", id="sculpt", title="GraphSculpt: Pruning Graphs", abstract="y.")
    corpus = {"gans": 1}
    names = NameIndex([gas, gan, sculpt], lambda w: corpus.get(w.lower(), 0))
    # "GANs" is a word a paper writes: never the misspelt "GAS"; a word none writes still is.
    assert not names.mentions("Compare diffusion models and GANs", fuzzy=True)
    found = names.mentions("Compare GraphScult and GANs", fuzzy=True)
    assert [m.ids for m in found] == [("sculpt",)]


@pytest.mark.parametrize(
    ("question", "sides"),
    [
        (
            "Compare Mamba and Transformers papers on long context.",
            [["Mamba on long context", "Mamba"], ["Transformers on long context", "Transformers"]],
        ),
        (
            "Compare DPO vs PPO about alignment?",
            [["DPO on alignment", "DPO"], ["PPO on alignment", "PPO"]],
        ),
        (
            "Compare reinforcement learning and diffusion papers",
            [["reinforcement learning"], ["diffusion"]],
        ),
        ("Compare the two papers on superposition", []),
        # Without "compare": short sides only; a long one describes a paper looked up.
        ("What's the difference between DPO and GRPO papers?", [["DPO"], ["GRPO"]]),
        ("Which is better for LLM quantization, GPTQ or AWQ?", [["GPTQ"], ["AWQ"]]),
        ("How does DPO compare to PPO?", [["DPO"], ["PPO"]]),
        ("GPTQ vs AWQ", [["GPTQ"], ["AWQ"]]),
        ("Which paper proves a width bound versus a far higher power for ReLU nets?", []),
        # Where to look and how the sides were written are no part of a side ("on LoRA" and
        # "DPO according to" had been the sides' topics).
        (
            "What is the difference between GRPO and DPO according to the papers?",
            [["GRPO"], ["DPO"]],
        ),
        ("Compare papers on LoRA and on full fine-tuning", [["LoRA"], ["full fine-tuning"]]),
        ("Compare LoRA with full fine-tuning in these papers", [["LoRA"], ["full fine-tuning"]]),
    ],
)
def test_a_comparison_of_topics_reads_its_sides(question: str, sides: list[list[str]]) -> None:
    assert compared_sides(question, load_lexicon()) == sides


def test_topics_compared_are_stood_for_by_their_best_papers(base: Pipeline) -> None:
    answer = base.ask("Compare reinforcement learning and diffusion papers")
    assert answer.plan and answer.plan.kind == "compare" and not answer.refused
    assert answer.named == [] and answer.papers == []
    assert "“reinforcement learning”: [1], [2]" in answer.text and "“diffusion”: [3]" in answer.text
    titles = [h.paper.title for h in answer.sources]
    assert "SPIRAL" in titles[:2] and any("diffusion" in t.lower() for t in titles[2:])


def test_a_list_no_paper_matches_says_so_above_the_closest_papers(base: Pipeline) -> None:
    # No abstract writes this topic: the list is empty, and the closest paper follows under
    # a line that says so (it used to read as if SPIRAL were the list).
    question = "Which papers are about teaching language models to play games against themselves?"
    answer = base.ask(question, options=AskOptions(answerer="extractive"))
    assert answer.plan and answer.plan.kind == "list" and not answer.refused
    # Nothing listed, nothing counted: the papers cited are the closest, not matches.
    assert answer.papers == [] and answer.count is None
    assert answer.plan.topic in lead(answer)
    assert "SPIRAL" in answer.citations[0].title
    # A list that does match is unchanged.
    listed = base.ask("Which papers study reinforcement learning?")
    assert listed.papers and listed.count == len(listed.papers)
    assert {p.paper_id for p in listed.papers} == {c.paper_id for c in listed.citations}


def test_a_name_no_paper_writes_is_said_above_the_closest_papers(
    base: Pipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rag.answers.headings import proper_words
    from rag.app import pipeline as pipeline_module

    # Only capitalised words past the first: a paraphrase's plain words say nothing.
    assert proper_words("Which Verilog benchmark sorts blobs?", ["verilog", "blob"]) == "“Verilog”"
    assert proper_words("Verilog benchmarks?", ["verilog"]) == ""
    question = "Which paper measures MCP attack types on Verilog servers?"
    plain = base.ask(question, options=AskOptions(answerer="extractive"))
    assert not plain.refused and "Verilog" not in plain.text  # 19 papers: words say little
    # In a large collection (here: the bar lowered to the sample's size) the name is said.
    monkeypatch.setattr(pipeline_module, "UNUSED_MIN_PAPERS", 19)
    said = base.ask(question, options=AskOptions(answerer="extractive"))
    assert "“Verilog”" in lead(said) and not said.refused
    assert [c.paper_id for c in said.citations] == [c.paper_id for c in plain.citations]


def test_a_name_no_paper_introduces_is_said_above_the_papers_using_it(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "p1",
                "title": "Faster Policy Optimization for Reasoning",
                "abstract": "Reinforcement learning improves reasoning in language models. We "
                "propose FooPO, a variant of GRPO that reuses rollouts. FooPO outperforms GRPO "
                "by 6% on math benchmarks.",
            },
            {
                "id": "p2",
                "title": "Critic-Free Training Revisited",
                "abstract": "Critic-free methods such as GRPO are popular for training reasoning "
                "models. We study their variance and show it grows with group size.",
            },
        ],
        embedder,
    )
    ask = AskOptions(answerer="extractive")
    used = pipe.ask("Which paper introduces GRPO?", options=ask)
    assert "“GRPO”" in lead(used) and used.citations
    own = pipe.ask("Which paper introduces FooPO?", options=ask)
    assert "introduces" not in own.text.splitlines()[0] and own.citations[0].paper_id == "p1"
    # "What is X?" of a name the papers only use: the answer is how they use it, said so.
    for question in ("What is GRPO?", "What does GRPO do?"):
        what = pipe.ask(question, options=ask)
        assert lead(what) == lead(used), question
    assert "introduces “FooPO”" not in pipe.ask("What is FooPO?", options=ask).text


@pytest.mark.parametrize(
    ("abstract", "name", "introduced"),
    [
        ("We propose FooPO, a variant of GRPO.", "FooPO", True),
        # Emphasised as the abstract writes it.
        ("We propose \\textbf{FooPO} (\\textbf{F}oo \\textbf{PO}), a variant.", "FooPO", True),
        ("We propose **FooPO**, a variant of GRPO.", "FooPO", True),
        ("We propose FooPO, a variant of GRPO.", "GRPO", False),
        (
            "We introduce Detect, Decide, Unlearn in Continual Learning (DEDUCE), a framework.",
            "DEDUCE",
            True,
        ),
        ("It introduces an auxiliary adversarial LoRA module.", "LoRA", False),
        ("We propose Contraction-Aware PPO (CaPPO), an update rule.", "PPO", False),
        ("We present the Zeta benchmark of 500 tasks.", "Zeta", True),
        ("A new method, dubbed Zeta, learns faster.", "Zeta", True),
    ],
)
def test_introducing_a_name_is_naming_it_first(abstract: str, name: str, introduced: bool) -> None:
    assert introduces(abstract, name) is introduced


def test_what_a_named_paper_does_leads_with_the_sentence_introducing_it() -> None:
    paper = Paper(id="p1", key="p1", title="PARD: Accelerating LLM Inference", abstract="x" * 60)
    ranked = [
        SentenceScore(
            2, "To reduce the training cost of PARD, we propose a drop-token scheme.", 0.8
        ),
        SentenceScore(1, "We propose PARD (PARallel Draft), a speculative decoding method.", 0.7),
    ]
    asked = naming_first(ranked, paper, "What does PARD do?")
    assert [s.index for s in asked] == [1, 2]
    # A question about something else the paper introduces keeps the ranking.
    other = naming_first(ranked, paper, "Which paper proposes a drop-token scheme?")
    assert [s.index for s in other] == [2, 1]


def test_a_named_papers_decision_and_area_come_from_the_catalog(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "p1",
                "title": "FinBench: Financial Search for Agents",
                "decision": "Poster",
                "primary_area": "datasets and benchmarks",
                "keywords": ["agents", "finance"],
                "abstract": "We present FinBench, a benchmark of financial search questions.",
            },
            {
                "id": "p2",
                "title": "OralNet: Speaking Models",
                "decision": "Oral",
                "primary_area": "generative models",
                "abstract": "We propose OralNet, a speech model trained on podcasts and lectures.",
            },
            {
                "id": "p3",
                "title": "BareNet: A Sample Paper",
                "abstract": "We propose BareNet, a method whose record holds no decision.",
            },
        ],
        embedder,
    )
    ask = AskOptions(answerer="extractive")
    # "oral" asks for FinBench's decision; it is no filter that would leave FinBench out.
    no = pipe.ask("Is FinBench an oral?", options=ask)
    assert lead(no).split(":")[0] == "No" and [c.paper_id for c in no.citations] == ["p1"]
    assert all(fact in lead(no) for fact in ("Poster", "datasets and benchmarks", "finance"))
    yes = pipe.ask("Was OralNet accepted as an oral?", options=ask)
    assert lead(yes).split(":")[0] == "Yes" and "Oral" in lead(yes)
    area = pipe.ask("Which area is OralNet in?", options=ask)
    assert "in the generative models area" in area.text.splitlines()[0]
    bare = pipe.ask("Is BareNet an oral?", options=ask)
    assert "BareNet" in lead(bare) and lead(bare).split(":")[0] not in ("Yes", "No")


def test_how_big_a_dataset_is_its_size_not_a_result(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = _one_paper(
        tmp_path,
        embedder,
        "SpaceSet: A Dataset for Spatial Reasoning",
        "Existing spatial reasoning resources are small. We introduce SpaceSet, the largest open "
        "dataset for spatial reasoning in vision-language models. SpaceSet comprises 12 million "
        "QA pairs drawn from diverse scenes. Models trained on SpaceSet achieve a 12.1% "
        "improvement on spatial benchmarks.",
    )
    answer = pipe.ask("How big is the SpaceSet dataset?", options=AskOptions(answerer="extractive"))
    assert "12 million QA pairs" in lead(answer) and "12.1%" not in lead(answer)


def test_how_big_a_reported_number_is_the_clause_stating_it(base: Pipeline) -> None:
    # "it reports" is the clause after the noun: the detail is the speedup, which the abstract
    # states in the clause after the memory saving of the same sentence.
    chat = Conversation()
    base.ask("What does Qronos do?", chat, options=AskOptions(answerer="extractive"))
    answer = base.ask(
        "How big is the speedup it reports?", chat, options=AskOptions(answerer="extractive")
    )
    assert not answer.refused
    assert "a speedup of up to 13.8" in lead(answer)
    assert "Qronos" in answer.citations[0].title


@pytest.mark.parametrize(
    ("question", "one"),
    [
        ("Which paper proposes a ranking loss?", True),
        # "the paper on X" asks for one work: its close neighbours are not cited beside it.
        ("What is the main contribution of the paper on KV-cache transform coding?", True),
        ("Summarize the paper about flow matching for proteins", True),
        ("What do the papers on KV-cache compression propose?", False),
        ("How do diffusion models handle the paper texture problem?", False),
    ],
)
def test_a_question_about_one_work_is_told_apart(question: str, one: bool) -> None:

    assert asks_one_work(question) is one


def test_who_wrote_a_named_paper_is_the_catalogs_authors_or_said_to_be_absent(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = "We propose CycleTok, a tokenizer. CycleTok cuts tokens by 31%."
    papers = [
        {"id": "p1", "title": "CycleTok", "abstract": abstract, "authors": ["Ada Lovelace"]},
        {
            "id": "p2",
            "title": "StepWise",
            "abstract": "We propose StepWise, a step planner for long agent tasks in the web.",
        },
    ]
    pipe = pipeline_over(tmp_path, papers, embedder)
    opts = AskOptions(answerer="extractive")
    by = pipe.ask("Who proposed CycleTok?", options=opts)
    assert not by.refused and "Ada Lovelace" in lead(by)
    # Not "the abstract does not say who wrote StepWise": no abstract names its authors.
    absent = pipe.ask("Who wrote StepWise?", options=opts)
    assert absent.refused
    assert "StepWise" in lead(absent) and "does not state" not in absent.text


def test_how_many_reads_counts_written_in_words_wherever_they_stand(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "We introduce PolyBench, a benchmark for evaluating LLMs across twelve programming "
        "languages, including Python. PolyBench transforms tasks while keeping their tests. "
        "We evaluated 20 LLMs for instruction and reasoning on PolyBench, uncovering evidence "
        "of Python overfitting and disparities across languages."
    )
    pipe = _one_paper(tmp_path, embedder, "PolyBench", abstract)
    answer = pipe.ask(
        "How many languages does PolyBench cover?", options=AskOptions(answerer="extractive")
    )
    # "twelve" counts the languages; "20 LLMs" is another number.
    assert "twelve programming languages" in answer.text.splitlines()[0]


def test_a_speedup_is_stated_in_the_words_of_speed(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "We introduce Saguaro, an algorithm for parallel drafting in speculative decoding. "
        "Saguaro is up to twice as fast as optimized speculative decoding baselines and up to "
        "5x faster than autoregressive decoding."
    )
    pipe = _one_paper(tmp_path, embedder, "Saguaro", abstract)
    answer = pipe.ask(
        "What speedup does Saguaro report?", options=AskOptions(answerer="extractive")
    )
    # No sentence writes "speedup", yet "5x faster" states one.
    assert not answer.refused and "5x faster" in answer.text.splitlines()[0]


def test_what_something_is_made_of_is_what_it_combines(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "We present TinyCoder, a transform coder that compresses KV caches for storage. "
        "Drawing on media compression, TinyCoder combines PCA-based decorrelation, adaptive "
        "quantization, and entropy coding. TinyCoder achieves up to 20x compression."
    )
    pipe = _one_paper(tmp_path, embedder, "TinyCoder", abstract)
    opts = AskOptions(answerer="extractive")
    parts = pipe.ask("What are the components of TinyCoder?", options=opts)
    # No sentence writes "components", yet one says what TinyCoder combines.
    assert not parts.refused
    assert "combines PCA-based decorrelation" in parts.text.splitlines()[0]
    # An abstract saying nothing of what its method is made of says so.
    (tmp_path / "b").mkdir()
    plain = _one_paper(
        tmp_path / "b",
        embedder,
        "StepWise",
        "We propose StepWise, a planner for long agent tasks. StepWise improves success by 12%.",
    )
    modules = plain.ask("What are the components of StepWise?", options=opts)
    assert modules.refused and "does not state" in modules.text


class UnsurePlanner(Planner):
    """The rule planner, its router made unsure of the answer type it reads."""

    def __init__(self, pipeline: Pipeline, p: float) -> None:
        super().__init__(pipeline.catalog_view, pipeline.planner.router, pipeline.lexicon)
        self.p = p

    def plan(
        self, question: str, conversation: Conversation | None = None, use_model: bool = True
    ) -> Plan:
        plan = super().plan(question, conversation, use_model)
        return plan.model_copy(update={"answer_type_p": self.p})


def test_an_abstract_is_said_to_lack_a_detail_only_when_its_type_is_likely(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = "We propose StepWise, a planner for long agent tasks. It improves success by 12%."
    pipe = _one_paper(tmp_path, embedder, "StepWise", abstract)
    opts = AskOptions(answerer="extractive")
    question = "What are the components of StepWise?"
    pipe.planner = UnsurePlanner(pipe, 0.9)
    assert pipe.ask(question, options=opts).refused
    # A type the router is unsure of claims nothing missing: the best sentences answer.
    pipe.planner = UnsurePlanner(pipe, 0.5)
    unsure = pipe.ask(question, options=opts)
    assert not unsure.refused and "does not state" not in unsure.text
    assert "StepWise" in lead(unsure)


def test_each_part_is_said_though_the_quote_already_holds_its_sentence(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "Graph pruning faces two challenges: noisy edges and costly retraining. To address "
        "these challenges, we propose EdgeCut, a pruning method that needs no retraining. "
        "EdgeCut keeps 95% of the accuracy on OGB."
    )
    pipe = _one_paper(tmp_path, embedder, "EdgeCut", abstract)
    opts = AskOptions(answerer="extractive")
    answer = pipe.ask(
        "What does EdgeCut propose, and what challenges does it address?", options=opts
    )
    said = lead(answer)
    assert "a pruning method that needs no retraining" in said, answer.text
    assert "noisy edges and costly retraining" in said, answer.text


def test_what_a_paper_introduces_is_stated_by_its_own_sentence_of_introducing(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "Augmenting LLMs with knowledge graphs costs memory. We present AtlasKB, a scalable "
        "way to augment LLMs with billion-scale graphs. In AtlasKB, we introduce KG2KV and "
        "HiKVP to integrate KG triples into LLMs at scale."
    )
    pipe = _one_paper(tmp_path, embedder, "AtlasKB", abstract)
    opts = AskOptions(answerer="extractive")
    # Asked with the verb the abstract states it with: no sentence writes "components".
    asked = "Which components does AtlasKB introduce to integrate KG triples?"
    made = pipe.ask(asked, options=opts)
    assert not made.refused and "KG2KV and HiKVP" in made.text.splitlines()[0]
    # Without a verb of making, the same detail is one the abstract does not name.
    parts = pipe.ask("Which components does AtlasKB have?", options=opts)
    assert parts.refused and "does not state" in parts.text


def test_the_sample_read_as_a_new_user_asks_it(base: Pipeline) -> None:
    ask = AskOptions(answerer="extractive")
    # The whole index, not a topic "these".
    overview = base.ask("What are these papers about?", options=ask)
    assert overview.count == 19 == len(overview.papers) == len(base.catalog())
    # The papers introducing a benchmark, asked in the passive.
    introduced = base.ask("What benchmarks are introduced in the sample?", options=ask)
    assert not introduced.refused and introduced.plan and introduced.plan.topic == "benchmarks"
    assert {"WebDS", "MCP-SafetyBench"} <= {c.title for c in introduced.citations}
    # Lists and comparisons render the abstracts' LaTeX, as single-paper answers do; the
    # citations keep the stored text.
    compared = base.ask("Compare WebDS and MCP-SafetyBench", options=ask)
    for answer in (introduced, compared):
        assert "\\textbf" not in answer.text and "**MCP-SafetyBench**, a comprehensive" in (
            answer.text
        )
    assert any("\\textbf{MCP-SafetyBench}" in c.quote for c in introduced.citations)


def test_a_name_the_paper_introduces_says_which_paper_not_which_sentence(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "u",
                "title": "Learning to Generate Unit Tests via Adversarial RL",
                "abstract": "Unit tests check programs. We propose UTRL, a framework that trains "
                "an LLM to write unit tests with reinforcement learning. Two LLMs are trained "
                "adversarially: the code generator is trained to maximize a code reward. UTRL "
                "tests beat GPT-4o's.",
            },
            # Others write the question's other words: the name is its rarest.
            *(
                {"id": f"o{i}", "title": f"Other {i}", "abstract": text}
                for i, text in enumerate(
                    [
                        "A code generator trained with a reward model writes programs.",
                        "We maximize a reward for a code generator with RL.",
                        "Reward shaping for code generators improves pass rates.",
                    ]
                )
            ),
        ],
        embedder,
    )
    answer = pipe.ask(
        "What reward does the code generator in UTRL maximize?",
        options=AskOptions(answerer="extractive"),
    )
    # The sentences naming UTRL do not outrank the one answering.
    assert "maximize a code reward" in answer.text.splitlines()[0]


def test_what_a_name_its_abstract_introduces_does_leads_with_that_sentence(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "v",
                "title": "From Evaluation to Defense: Safety in Video LLMs",
                "abstract": "Video LLMs are unsafe. We introduce VidSafeEval, the first benchmark "
                "for Video LLM safety with 11k video-query pairs. To address this, we propose "
                "VidGuard-R2, a dual-stage framework for safe video LLMs. It improves safety by "
                "71%.",
            },
        ],
        embedder,
    )
    answer = pipe.ask("What does VidGuard-R2 do?", options=AskOptions(answerer="extractive"))
    # Not the benchmark the abstract introduces first: the name asked about.
    assert "VidGuard-R2, a dual-stage framework" in answer.text.splitlines()[0]


def test_how_many_needs_a_number_counting_the_noun(base: Pipeline) -> None:
    ask = AskOptions(answerer="extractive")
    webds = base.ask("How many tasks does WebDS have?", options=ask)
    assert "870 web-based data science tasks" in webds.text.splitlines()[0]
    # "20 MCP attack types … and includes tasks requiring …" counts attack types, not tasks.
    mcp = base.ask("How many tasks does MCP-SafetyBench have?", options=ask)
    assert mcp.refused and mcp.text.startswith(unstated("number", "MCP-SafetyBench"))


def test_a_name_in_capitals_is_counted_as_written() -> None:
    # ECHO is one benchmark's coined name although papers write "echo"; COCO, a dataset every
    # detection paper writes in capitals, names no paper even when one title spells it.
    echo = Paper(
        key="e",
        id="echo",
        title="Can You Hear Me Now? A Benchmark for Long-Range Graph Propagation",
        abstract="We introduce ECHO (Evaluating Communication over long HOps), a new benchmark.",
    )
    chambers = [
        Paper(key=f"c{i}", id=f"c{i}", title=f"Echo Chambers {i}", abstract="An echo chamber.")
        for i in range(5)
    ]
    coco = Paper(key="x", id="coco", title="COCO: Common Objects", abstract="Detection on COCO.")
    detectors = [
        Paper(key=f"d{i}", id=f"d{i}", title=f"Detector {i}", abstract="We report AP on COCO.")
        for i in range(20)
    ]
    names = Catalog([echo, *chambers, coco, *detectors]).names
    assert names.find("What are the real-world datasets of ECHO?") == ["echo"]
    assert names.find("real-time object detection COCO best AP") == []


def test_a_coined_name_typed_in_small_letters_names_its_paper_an_english_one_does_not() -> None:
    visio = Paper(key="v", id="visio", title="VisioMath: Figure Reasoning", abstract="We test.")
    rescue = Paper(key="r", id="rescue", title="Rescue: Retrieval for Triage", abstract="We r.")
    corpus = {"visiomath": 1, "rescue": 1}
    names = NameIndex([visio, rescue], lambda w: corpus.get(w.lower(), 0))
    assert names.find("how do visiomath and prism-physics differ") == ["visio"]
    # "Rescue" is the paper's name and an English word: in small letters it is the word.
    assert names.find("how do mountain rescue teams predict avalanches") == []
    assert names.find("What does Rescue retrieve?") == ["rescue"]


def test_an_acronym_an_abstract_coins_in_parentheses_names_the_paper() -> None:
    cues = bundled_cues()
    arc = (
        "Attributing context is slow. In this work, we introduce a novel divergence driven "
        "method to Attribute Response to Context (ARC-JSD), enabling efficient attribution."
    )
    qttt = "We propose query-only test-time training (qTTT): a cache-preserving adaptation."
    # "ARC" spells the phrase, "-JSD" names the variant; a small first letter is a name too.
    assert "ARC-JSD" in introduced_names(arc, cues)
    assert "qTTT" in introduced_names(qttt, cues)
    # A field's acronym coined the same way is written by many papers: no paper's name.
    field = Paper(
        key="f",
        id="field",
        title="Rewards for Agents",
        abstract="We propose a novel reward for Reinforcement Learning (RL) agents.",
    )
    names = NameIndex([field], lambda w: {"rl": 40}.get(w.lower(), 1))
    assert names.find("Which papers use RL?") == []


def test_a_two_word_detail_holding_a_data_word_is_found_as_written(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    abstract = (
        "Attributing answers to context is slow. We introduce a divergence driven method to "
        "Attribute Response to Context (ARC-JSD). Evaluations on a wide range of RAG "
        "benchmarks, such as TyDi QA, Hotpot QA, and Musique, show superior accuracy."
    )
    pipe = _one_paper(tmp_path, embedder, "Attributing Response to Context", abstract)
    answer = pipe.ask(
        "On which RAG benchmarks was ARC-JSD evaluated?", options=AskOptions(answerer="extractive")
    )
    # "RAG benchmarks" are both written; "dataset", standing in for "benchmark", need not be.
    assert "does not state" not in answer.text and "TyDi QA" in lead(answer), answer.text


def test_things_named_where_a_paper_is_evaluated_answer_what_it_was_evaluated_on(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = _one_paper(
        tmp_path,
        embedder,
        "WalkSum: Geometric Walks for Personalized Summarization",
        "Personalized summarization must follow how preferences drift. We propose WalkSum, a "
        "lightweight encoder-decoder with memory lanes. We empirically validate the hypothesis "
        "on PENS, OpenAI-Reddit, and PersonalSum. Experiments on LLaMA, Mistral, and Qwen "
        "baselines show consistent gains.",
    )
    ask = AskOptions(answerer="extractive")
    # The abstract never writes "datasets" or "families": the names it evaluates on answer.
    data = pipe.ask("Which datasets was WalkSum validated on?", options=ask)
    assert not data.refused and "PENS, OpenAI-Reddit, and PersonalSum" in data.text
    models = pipe.ask("On which model families were WalkSum experiments done?", options=ask)
    assert not models.refused and "LLaMA, Mistral, and Qwen" in models.text
    # What it does not name where it is evaluated, it does not state.
    (tmp_path / "silent").mkdir()
    silent = _one_paper(
        tmp_path / "silent",
        embedder,
        "QuietNet: Robust Training",
        "We propose QuietNet for robust training. Extensive experiments show strong results.",
    )
    said = silent.ask("Which datasets was QuietNet validated on?", options=ask)
    assert said.refused and lacks(said.text, "entities")


def test_a_number_counts_the_noun_written_before_it_with_no_other_word_between() -> None:
    cues, steps = bundled_cues(), frozenset({"step"})
    assert counts("we reduce the generation steps from 256 to 20 (256x256 res.)", steps, cues)
    assert counts("it needs 20 sampling steps", steps, cues)
    # The number belongs to another noun written between them.
    assert not counts("over all steps, accuracy improves by 20%", steps, cues)


def test_a_number_in_emphasis_or_maths_marks_still_counts_its_noun() -> None:
    # 123 of the 4,302 abstracts write a number "*130K*" or "$512$"; "How many image-caption
    # pairs does UniF²aceD-1M contain?" was answered "does not state" above "comprising *130K*
    # fine-grained image-caption pairs".
    cues, pairs = bundled_cues(), frozenset({"pair"})
    assert counts("a dataset comprising *130K* fine-grained image-caption pairs", pairs, cues)
    assert counts("we collect $512$ preference pairs", pairs, cues)
    assert not counts("a dataset of *high-quality* image-caption pairs", pairs, cues)


def test_the_paper_a_lookup_finds_is_quoted_with_its_name() -> None:
    # "is there one for trajectories?": the answer quoted the result sentence, not the one
    # naming the method, so the reader never learned what the paper is called.
    paper = Paper(
        key="k",
        id="p",
        title="TRIDENT: Trajectory Embeddings with Triplet Losses",
        abstract="Trajectories from GPS tracks are hard to embed. We propose TRIDENT, a "
        "triplet-loss encoder. It improves retrieval by 12% on three datasets.",
    )
    own = NameIndex([paper], cues=bundled_cues()).own(paper.id)
    ranked = [
        SentenceScore(2, "It improves retrieval by 12% on three datasets.", 0.8),
        SentenceScore(0, "Trajectories from GPS tracks are hard to embed.", 0.7),
        SentenceScore(1, "We propose TRIDENT, a triplet-loss encoder.", 0.5),
    ]
    assert [s.index for s in with_name(ranked[:1], ranked, own)] == [1, 2]
    # A pick that already writes the name is enough.
    assert with_name(ranked[2:], ranked, own) == ranked[2:]


def test_the_most_topical_sentences_join_the_quote_when_a_type_cue_prefers_others(
    cues: Cues,
) -> None:
    # "what kinds of queries does it include?" (a follow-up about OmniCVR): the entities cue
    # favoured the sentence introducing the benchmark by name; the one about its queries,
    # the most topical, was left out.
    queries = SentenceScore(
        5, "The benchmark comprises vision-centric, audio-centric, and integrated queries.", 0.73
    )
    task = SentenceScore(1, "This task demands fine-grained reasoning over video edits.", 0.71)
    named = SentenceScore(3, "We introduce OmniCVR, a benchmark for video retrieval.", 0.71)
    picks = pick_sentences([SentenceScore(3, named.text, 0.96), queries, task], cues, first=True)
    assert [s.index for s in picks] == [3]
    assert [s.index for s in with_best(picks, [queries, task, named], cues)] == [1, 3, 5]
    # Not a second sentence far below the first.
    far = SentenceScore(1, task.text, 0.5)
    assert [s.index for s in with_best(picks, [queries, far, named], cues)] == [3, 5]


def test_each_part_is_answered_by_the_sentence_stating_its_detail(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    # The speed-up is stated without the part's words ("encrypted inference"); the sentence
    # holding them states a depth, not how much faster.
    abstract = (
        "Fully polynomial networks are attractive for encrypted inference. We introduce "
        "PolyLite, which trains networks with multiplicative depth at most 3 for encrypted "
        "inference. It covers CNNs and ViTs. PolyLite achieves a 2.76× speedup over the best "
        "fully polynomial baseline."
    )
    pipe = _one_paper(tmp_path, embedder, "PolyLite: Low-Degree Polynomial Networks", abstract)
    answer = pipe.ask(
        "Which architectures does PolyLite cover, and how much faster is its encrypted inference?",
        options=AskOptions(answerer="extractive"),
    )
    assert "2.76× speedup" in lead(answer)


def test_the_sentence_stating_the_asked_detail_is_quoted_however_it_scored(cues: Cues) -> None:
    # "Which domains …, and how many attack types …?": the sentences about attacks scored
    # best against the whole question; the one writing the domains answers its first part.
    abstract = (
        "Agents that call tools through MCP servers face new attacks. We present GuardBench, "
        "a benchmark on real servers. Its taxonomy holds 20 attack types against servers, "
        "hosts and users. Attacks succeed against every model we test. Tasks span five "
        "domains such as browser automation."
    )
    paper = Paper(key="g", id="g", title="GuardBench: Safety of MCP Agents", abstract=abstract)
    said = split_sentences(abstract)
    ranked = [
        SentenceScore(2, said[2], 0.66),
        SentenceScore(3, said[3], 0.6),
        SentenceScore(0, said[0], 0.55),
        SentenceScore(1, said[1], 0.5),
        SentenceScore(4, said[4], 0.3),
    ]
    question = "Which domains does GuardBench cover, and how many attack types does it have?"
    plan = Plan(
        kind=QuestionKind.DETAIL,
        answer_type="entities",
        named=["GuardBench"],
        paper_ids=["g"],
        parts=[
            QuestionPart(text="Which domains does GuardBench cover?", answer_type="entities"),
            QuestionPart(text="how many attack types does it have?", answer_type="number"),
        ],
    )
    evidence = Evidence(SearchHit(paper=paper, score=1.0), ranked, coverage=0.6)
    answer = extractive_answer(
        question, [evidence], cues, 0.2, plan, load_lexicon(), named=["g"], name_words=set()
    )
    assert "browser automation" in answer.citations[0].quote
    assert "20 attack types" in answer.citations[0].quote


def test_model_sizes_are_parameter_counts_and_stated_ones_lead(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    pipe = pipeline_over(
        tmp_path,
        [
            {
                "id": "tied",
                "title": "Tied Layers for Transformers",
                "abstract": "We tie the weights of transformer layers to share parameters. "
                "Tied transformers keep accuracy on language modelling.",
            },
            {
                "id": "looped",
                "title": "LoopLM: Looped Transformers with Shared Parameters",
                "abstract": "We propose LoopLM, which loops one transformer block to share "
                "parameters across depth. "
                "On the Pythia suite (160M–6.9B), looped transformers match deeper ones.",
            },
            {
                "id": "recursive",
                "title": "Recursive Transformers Share Parameters",
                "abstract": "We make transformers recursive so that layers share parameters. "
                "Recursive transformers generalise to longer inputs.",
            },
        ],
        embedder,
    )
    opts = AskOptions(answerer="extractive")
    # A model's size is written as its parameter count, never as "size".
    named = pipe.ask("What model sizes does LoopLM use?", None, opts)
    assert not named.refused and "160M–6.9B" in named.text
    # Of a list's papers, the one stating it leads; the others are said not to, together.
    conversation = Conversation()
    pipe.ask("papers on transformers that share parameters", conversation, opts)
    sizes = pipe.ask("what model sizes were they tested at?", conversation, opts)
    assert [c.paper_id for c in sizes.citations][:1] == ["looped"]
    assert sizes.text.startswith("LoopLM") and "160M–6.9B" in sizes.text
    assert "The abstract of Recursive Transformers Share Parameters does not state" in sizes.text
    # Several lacking it are said together.
    together = unstated("number", "A", "B")
    assert together == "The abstracts of A; B do not state the number asked about."


def test_a_later_part_asking_as_broadly_as_the_first_is_answered_by_its_own_words(
    base: Pipeline,
) -> None:
    question = (
        "Which paper proposes a post-training quantization algorithm, and what does it do "
        "at each step?"
    )
    answer = base.ask(question, options=AskOptions(answerer="extractive"))
    # The opening finds the paper by what it is; the later part is about its steps.
    first_line = lead(answer)
    assert "a new post-training quantization algorithm" in first_line
    assert "alternates between error correction and diffusion" in first_line


def test_an_acronym_stands_for_the_words_it_spells_when_a_sentence_is_picked(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    papers = [
        {
            "id": "poly",
            "title": "PolyNet: Polynomial Networks for Encrypted Inference",
            "abstract": "Polynomial networks allow private inference under encryption. We train "
            "polynomial networks from scratch with a new normalization. Our networks match "
            "transformers in accuracy on language tasks. Applying PolyNet to ViT-Small and "
            "ViT-Base yields 76.7% and 75.2% top-1 accuracy on ImageNet.",
        },
        {
            "id": "vit",
            "title": "Patches at Scale",
            "abstract": "Vision Transformers (ViT) split images into patches. We scale them.",
        },
    ]
    pipe = pipeline_over(tmp_path, papers, embedder)
    question = "Which vision transformers were polynomial networks for encryption scaled to?"
    ranked = pipe.scorer.rank(question, [pipe.catalog()["poly"]])[0]
    # The question spells out what the sentence abbreviates (the collection defines ViT): that
    # sentence covers its words, ahead of one sharing only "transformers".
    assert ranked[0].text.startswith("Applying PolyNet to ViT-Small")


def test_the_noun_naming_the_asked_aspect_is_no_topic_word(
    tmp_path: Path, embedder: CachedEmbedder
) -> None:
    papers = [
        {
            "id": "gpo",
            "title": "Guided Policy Optimization under Partial Observability",
            "abstract": "Reinforcement learning in partially observable environments poses "
            "significant challenges due to learning under uncertainty. While privileged "
            "information can enhance training, leveraging it remains an open problem. We "
            "introduce a framework that co-trains a guider and a learner.",
        },
        {
            "id": "other",
            "title": "Sorting Networks",
            "abstract": "We sort numbers quickly with a comparison network of logarithmic depth.",
        },
    ]
    pipe = pipeline_over(tmp_path, papers, embedder)
    question = "What problem does guided policy optimization under partial observability tackle?"
    scores = {s.index: s.score for s in pipe.scorer.rank(question, [pipe.catalog()["gpo"]])[0]}
    # "problem" asks for a kind of sentence (the answer type's cue reads its form); a sentence
    # writing the word states no more of the problem than one naming the challenge.
    assert scores[1] <= scores[0]


def test_which_model_components_asks_for_parts_whatever_the_abstract_calls_them(
    lexicon: Lexicon, cues: Cues
) -> None:
    part = "which model components did its mechanistic analysis point to?"
    ranked = [
        SentenceScore(0, "We introduce ARC-JSD, a divergence-driven attribution method.", 0.6),
        SentenceScore(
            1,
            "Our mechanistic analysis reveals attention heads and MLP layers of RAG models "
            "responsible for context attribution.",
            0.5,
        ),
    ]
    asked = read_asked(part, "entities", lexicon, usage=True)
    stating = detail_sentences(part, "entities", ranked, {"arc", "jsd"}, asked, cues)
    # "components" is written nowhere: the sentence naming the model's parts still states them.
    assert [s.index for s in stating] == [1]
