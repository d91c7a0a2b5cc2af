"""Writer B's additions to the question-corpus tooling: collection kinds (issue 27, item 1).

    python -m eval.questions.build_collection [--write] [--corpus PATH]
    python -m eval.questions.build_collection add DRAFT.jsonl   # append hand-written drafts

`build.py` (writer A) validates items and computes every rule's gold set in corpus order. The
collection kinds need two more things, added here so the lead can merge them into build.py:

- `rating` items: `gold_keys` are the rule's papers (every paper within the filters when the
  item has no topic) ordered by `avg_rating` (then `n_ratings`, then corpus order), best first,
  cut after the best RATING_KEEP (ties kept); `count` is the size of the whole set and
  `top_rating` the best average rating in it;
- over `iclr2026` without catalog filters the 18 sample abstracts that are also corpus papers
  would enter a gold set twice (same content key): keys are de-duplicated, first kept.

`add` turns drafts into items. A draft holds the question exactly as written by hand plus short
labels: `k` kind, `s` style, `q` question, `g` a topic id of TOPICS below (its patterns become
the `gold_rule`; a list of two ids for `more`), `t` the topic as the user named it (default: the
id), `f` filters, and optionally `turns`, `sk` (second kind), `lang`, `shown`, `gb` (group_by),
`c` ("sample"), `ans` (false for off-topic), `named`, `at` (answer type of a second part).
The drafts themselves are not kept: `collection.jsonl` is the source from then on.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from eval.questions.build import (
    SEED,
    Papers,
    corpus_problems,
    default_corpus,
    read_corpus,
    read_seed,
    table,
    thin_cells,
    write_jsonl,
)
from eval.questions.schema import Corpus, GoldRule, Item, QuestionKind

HERE = Path(__file__).resolve().parent
COLLECTION = HERE / "collection.jsonl"
KINDS = ("list", "count", "breakdown", "share", "more", "authors", "citations", "rating", "themes")
# A rating item keeps the best-rated RATING_KEEP papers of its set as gold_keys (ties at the cut
# kept); its `count` is the size of the whole set.
RATING_KEEP = 50
# Cells that need more items than build.MIN_CELL (the brief: >= 8 per style for list and count).
MIN_CELL_LIST_COUNT = 8

# Topic id -> gold patterns: the topic phrase with an optional plural and the acronym the papers
# use; a case-sensitive acronym is scoped as (?-i:...). Chosen by reading keywords and titles of
# all 12 areas (README-collection.md); each was checked against the corpus for false hits.
TOPICS: dict[str, list[str]] = {
    "diffusion models": [r"\bdiffusion models?\b"],
    "reinforcement learning": [r"\breinforcement learning\b", r"(?-i:\bRL\b)"],
    "graph neural networks": [r"\bgraph neural networks?\b", r"(?-i:\bGNNs?\b)"],
    "federated learning": [r"\bfederated learning\b"],
    "machine unlearning": [r"\bunlearning\b"],
    "continual learning": [r"\bcontinual learning\b"],
    "knowledge distillation": [r"\bknowledge distillation\b"],
    "sparse autoencoders": [r"\bsparse autoencoders?\b", r"(?-i:\bSAEs?\b)"],
    "mechanistic interpretability": [r"\bmechanistic interpretability\b"],
    "interpretability": [r"\binterpretability\b"],
    "speculative decoding": [r"\bspeculative decoding\b"],
    "mixture of experts": [r"\bmixture[- ]of[- ]experts?\b", r"(?-i:\bMoEs?\b)"],
    "retrieval-augmented generation": [r"\bretrieval[- ]augmented generation\b", r"(?-i:\bRAG\b)"],
    "model merging": [r"\bmodel merging\b"],
    "watermarking": [r"\bwatermark(?:s|ing|ed)?\b"],
    "jailbreaks": [r"\bjailbreak(?:s|ing)?\b"],
    "differential privacy": [r"\bdifferential(?:ly)? priva(?:cy|te)\b"],
    "privacy": [r"\bprivacy\b"],
    "conformal prediction": [r"\bconformal prediction\b"],
    "bayesian optimization": [r"\bbayesian optimi[sz]ation\b"],
    "gaussian splatting": [r"\bgaussian splatting\b", r"(?-i:\b3DGS\b)"],
    "neural radiance fields": [r"\bneural radiance fields?\b", r"(?-i:\bNeRFs?\b)"],
    "video generation": [r"\bvideo generation\b"],
    "flow matching": [r"\bflow matching\b"],
    "text-to-image generation": [r"\btext[- ]to[- ]image\b"],
    "proteins": [r"\bproteins?\b"],
    "drug discovery": [r"\bdrug discovery\b"],
    "time series": [r"\btime[- ]series\b"],
    "time series forecasting": [r"\btime[- ]series forecasting\b"],
    "autonomous driving": [r"\bautonomous driving\b"],
    "robot manipulation": [r"\brobot(?:ic)? manipulation\b"],
    "world models": [r"\bworld models?\b"],
    "offline reinforcement learning": [r"\boffline (?:reinforcement learning|RL)\b"],
    "multi-agent reinforcement learning": [
        r"\bmulti-agent reinforcement learning\b",
        r"(?-i:\bMARL\b)",
    ],
    "imitation learning": [r"\bimitation learning\b"],
    "RLHF": [r"\breinforcement learning from human feedback\b", r"(?-i:\bRLHF\b)"],
    "reward hacking": [r"\breward hacking\b"],
    "RLVR": [r"\bverifiable rewards?\b", r"(?-i:\bRLVR\b)"],
    "chain-of-thought": [r"\bchain[- ]of[- ]thoughts?\b", r"(?-i:\bCoT\b)"],
    "test-time scaling": [r"\btest[- ]time scaling\b"],
    "in-context learning": [r"\bin[- ]context learning\b", r"(?-i:\bICL\b)"],
    "scaling laws": [r"\bscaling laws?\b"],
    "quantization": [r"\bquantization\b"],
    "pruning": [r"\bpruning\b"],
    "KV cache": [r"\bKV[- ]cache\b"],
    "long context": [r"\blong[- ]context\b"],
    "sparse attention": [r"\bsparse attention\b"],
    "tokenization": [r"\btokeni[sz](?:ation|ers?)\b"],
    "web agents": [r"\bweb agents?\b"],
    "GUI agents": [r"\bGUI agents?\b"],
    "code generation": [r"\bcode generation\b"],
    "mathematical reasoning": [r"\bmath(?:ematical)? reasoning\b"],
    "hallucination": [r"\bhallucinat(?:ion|ions|e|es|ed|ing)\b"],
    "vision-language models": [r"\bvision[- ]language models?\b", r"(?-i:\bVLMs?\b)"],
    "multimodal LLMs": [r"\bmultimodal large language models?\b", r"(?-i:\bMLLMs?\b)"],
    "object detection": [r"\bobject detection\b"],
    "segmentation": [r"\bsegmentation\b"],
    "3D reconstruction": [r"\b3D reconstruction\b"],
    "contrastive learning": [r"\bcontrastive learning\b"],
    "self-supervised learning": [r"\bself[- ]supervised\b"],
    "adversarial attacks": [r"\badversarial attacks?\b"],
    "OOD detection": [r"\bout[- ]of[- ]distribution detection\b", r"(?-i:\bOOD detection\b)"],
    "uncertainty quantification": [r"\buncertainty quantification\b"],
    "optimal transport": [r"\boptimal transport\b"],
    "PDEs": [r"\bpartial differential equations?\b", r"(?-i:\bPDEs?\b)"],
    "causal inference": [r"\bcausal inference\b"],
    "fairness": [r"\bfairness\b"],
    "membership inference": [r"\bmembership inference\b"],
    "data contamination": [r"\bdata contamination\b"],
    "synthetic data": [r"\bsynthetic data\b"],
    "LoRA": [r"\blow[- ]rank adaptation\b", r"(?-i:\bLoRA\b)"],
    "domain adaptation": [r"\bdomain adaptation\b"],
    "test-time adaptation": [r"\btest[- ]time adaptation\b"],
    "meta-learning": [r"\bmeta[- ]learning\b"],
    "model editing": [r"\bknowledge editing\b", r"\bmodel editing\b"],
    "spiking neural networks": [r"\bspiking neural networks?\b", r"(?-i:\bSNNs?\b)"],
    "implicit bias": [r"\bimplicit bias\b"],
    "neural tangent kernel": [r"\bneural tangent kernels?\b", r"(?-i:\bNTK\b)"],
    "Muon": [r"(?-i:\bMuon\b)"],
    "sharpness-aware minimization": [r"\bsharpness[- ]aware minimi[sz]ation\b"],
    "bilevel optimization": [r"\bbilevel optimi[sz]ation\b"],
    "combinatorial optimization": [r"\bcombinatorial optimi[sz]ation\b"],
    "variational inference": [r"\bvariational inference\b"],
    "normalizing flows": [r"\bnormali[sz]ing flows?\b"],
    "anomaly detection": [r"\banomaly detection\b"],
    "recommender systems": [r"\brecommend(?:er|ation) systems?\b"],
    "speech": [r"\bspeech\b"],
    "music": [r"\bmusic\b"],
    "medical imaging": [r"\bmedical imag(?:es|ing)\b"],
    "single-cell": [r"\bsingle[- ]cell\b"],
    "knowledge graphs": [r"\bknowledge graphs?\b"],
    "theorem proving": [r"\btheorem prov(?:ing|er|ers)\b"],
    "embodied AI": [r"\bembodied\b"],
    "diffusion language models": [r"\bdiffusion language models?\b"],
    "state space models": [r"\bstate[- ]space models?\b", r"(?-i:\bMamba\b)"],
    "linear attention": [r"\blinear attention\b"],
    "large language models": [r"\blarge language models?\b", r"(?-i:\bLLMs?\b)"],
    "red teaming": [r"\bred[- ]teaming\b"],
    "DPO": [r"\bdirect preference optimi[sz]ation\b", r"(?-i:\bDPO\b)"],
    "GRPO": [r"(?-i:\bGRPO\b)"],
    "dataset distillation": [r"\bdataset distillation\b"],
    "superposition": [r"\bsuperposition\b"],
    "question answering": [r"\bquestion answering\b"],
    "benchmarks": [r"\bbenchmarks?\b"],
    "molecules": [r"\bmolecules?\b", r"\bmolecular\b"],
    "prompt injection": [r"\bprompt injections?\b"],
    "video understanding": [r"\bvideo understanding\b"],
    "image editing": [r"\bimage editing\b"],
    "consistency models": [r"\bconsistency models?\b"],
    "classifier-free guidance": [r"\bclassifier[- ]free guidance\b", r"(?-i:\bCFG\b)"],
    "visual question answering": [r"\bvisual question answering\b", r"(?-i:\bVQA\b)"],
    "catastrophic forgetting": [r"\bcatastrophic forgetting\b"],
    "point clouds": [r"\bpoint clouds?\b"],
    "graph generation": [r"\bgraph generation\b"],
    "text-to-speech": [r"\btext[- ]to[- ]speech\b", r"(?-i:\bTTS\b)"],
    "physics": [r"\bphysics\b"],
    "medical": [r"\bmedical\b"],
    "remote sensing": [r"\bremote sensing\b", r"\bearth observation\b"],
    "EEG": [r"(?-i:\bEEG\b)"],
    "multilingual": [r"\bmultilingual\b"],
    "machine translation": [r"\bmachine translation\b"],
    "safety alignment": [r"\bsafety alignment\b"],
    "reward models": [r"\breward models?\b"],
    "agents": [r"\bagents?\b"],
    "reasoning": [r"\breasoning\b"],
    "transformers": [r"\btransformers?\b"],
    "neurons": [r"\bneurons?\b"],
    "recurrent neural networks": [r"\brecurrent neural networks?\b", r"(?-i:\bRNNs?\b)"],
    "autoencoders": [r"\bautoencoders?\b"],
    "diffusion": [r"\bdiffusion\b"],
    "safety": [r"\bsafety\b"],
    "multimodal": [r"\bmultimodal\b", r"\bmulti-modal\b"],
    "datasets": [r"\bdatasets?\b"],
    "games": [r"\bgames?\b"],
    "uncertainty": [r"\buncertainty\b"],
    "distillation": [r"\bdistillation\b"],
    "fine-tuning": [r"\bfine[- ]tun(?:e|es|ed|ing)\b"],
    "identity": [r"\bidentity\b"],
    "compression": [r"\bcompress(?:ion|es|ed|ing)?\b"],
    "trajectories": [r"\btrajector(?:y|ies)\b"],
    "prototypes": [r"\bprototypes?\b"],
    "web": [r"\bweb\b"],
    "human": [r"\bhumans?\b"],
    "memory": [r"\bmemory\b"],
    "evaluation": [r"\bevaluat(?:e|es|ed|ing|ion|ions|or|ors)\b"],
    "policy": [r"\bpolic(?:y|ies)\b"],
    "tools": [r"\btools?\b"],
    "theory": [r"\btheor(?:y|ies|etical|etically)\b"],
    # off-topic: words that occur in no title, abstract or keyword list (checked by build.py)
    "cryptocurrency trading": [r"\bbitcoin\b", r"\bcryptocurrency trading\b"],
    "sourdough baking": [r"\bsourdough\b"],
    "knitting": [r"\bknitting\b"],
    "wine": [r"\bwines?\b"],
    "astrology": [r"\bastrolog(?:y|ical)\b"],
    "stock market": [r"\bstock markets?\b"],
    "blockchain": [r"\bblockchains?\b"],
    "quantum error correction": [r"\bquantum error correction\b"],
    "beekeeping": [r"\bbeekeeping\b"],
    "coffee": [r"\bcoffee\b"],
    "wildfires": [r"\bwildfires?\b"],
    "crop yield": [r"\bcrop yields?\b"],
    "volcanoes": [r"\bvolcan(?:o|oes|ic)\b"],
    "golf": [r"\bgolf\b"],
    "jazz": [r"\bjazz\b"],
    "birdsong": [r"\bbird ?songs?\b"],
    "smart contracts": [r"\bsmart contracts?\b"],
    "dental": [r"\bdental\b", r"\bdentistry\b"],
    "galaxies": [r"\bgalax(?:y|ies)\b"],
    "epidemics": [r"\bepidemic(?:s|al)?\b", r"\bepidemiolog(?:y|ical)\b"],
    "cooking": [r"\bcooking\b"],
    "marathon": [r"\bmarathons?\b"],
}


# Short names drafts may use for the 12 primary areas (items store the exact corpus string).
AREAS = {
    "FM": "foundation or frontier models, including LLMs",
    "APP": "applications to computer vision, audio, language, and other modalities",
    "GEN": "generative models",
    "DB": "datasets and benchmarks",
    "SAFE": "alignment, fairness, safety, privacy, and societal considerations",
    "RL": "reinforcement learning",
    "REP": "unsupervised, self-supervised, semi-supervised, and supervised representation learning",
    "INT": "interpretability and explainable AI",
    "OPT": "optimization",
    "LT": "learning theory",
    "TL": "transfer learning, meta learning, and lifelong learning",
    "PROB": "probabilistic methods (Bayesian methods, variational inference, sampling, UQ, etc.)",
}


class CollectionItem(Item):
    """An item of collection.jsonl: a schema Item plus the best rating of a rating question."""

    top_rating: float | None = None


def rating_order(keys: Sequence[str], ratings: dict[str, tuple[float, int]]) -> list[str]:
    """The keys best-rated first (average, then number of ratings); unrated papers last."""
    position = {k: i for i, k in enumerate(keys)}

    def rank(key: str) -> tuple[float, int, int]:
        avg, n = ratings.get(key, (-1.0, 0))
        return (-avg, -n, position[key])

    return sorted(keys, key=rank)


def best_rated(keys: list[str], ratings: dict[str, tuple[float, int]], keep: int) -> list[str]:
    """The first `keep` of rating-ordered keys, and any further ones tied with the last kept."""
    if len(keys) <= keep:
        return keys
    cut = ratings.get(keys[keep - 1], (-1.0, 0))[0]
    return keys[:keep] + [k for k in keys[keep:] if ratings.get(k, (-1.0, 0))[0] == cut]


def complete(
    item: CollectionItem, papers: Papers, ratings: dict[str, tuple[float, int]]
) -> CollectionItem:
    """The item with its rule's gold set (and side counts) computed, rating items ordered."""
    update: dict[str, object] = {}
    rule = item.gold_rule
    if rule is None and item.kind is QuestionKind.RATING and item.answerable:
        rule = GoldRule(patterns=[])  # no topic: every paper within the filters
    if rule is not None:
        keys = list(dict.fromkeys(papers.matching(item, rule)))
        update["count"] = len(keys)
        if item.kind is QuestionKind.RATING:
            keys = rating_order(keys, ratings)
            rated = [ratings[k][0] for k in keys if k in ratings]
            update["top_rating"] = max(rated) if rated else None
            keys = best_rated(keys, ratings, RATING_KEEP)
        update["gold_keys"] = keys
    if item.sides:
        update["sides"] = [
            side.model_copy(
                update={"count": len(set(papers.matching(item, side.gold_rule)))}
                if side.gold_rule
                else {}
            )
            for side in item.sides
        ]
    return item.model_copy(update=update) if update else item


def read_ratings(path: Path) -> dict[str, tuple[float, int]]:
    """Content key -> (avg_rating, n_ratings) of every corpus paper."""
    from rag.models import content_key

    out = {}
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                rec = json.loads(line)
                out[content_key(rec["abstract"])] = (rec["avg_rating"], rec["n_ratings"])
    return out


def rule(topic_id: str, corpus: str) -> dict:
    """The gold_rule of a lexicon topic (abstracts only over the sample: it has no titles)."""
    fields = ["abstract"] if corpus == "sample" else ["title", "abstract", "keywords"]
    return {"patterns": TOPICS[topic_id], "fields": fields}


DRAFT_KEYS = frozenset("k s q g t f turns sk lang shown gb c ans named at resource".split())


def from_draft(draft: dict, item_id: str) -> dict:
    """One item (as JSON) from a hand-written draft; labels only, the text is kept verbatim."""
    unknown = set(draft) - DRAFT_KEYS
    if unknown:
        raise ValueError(f"{item_id}: unknown draft keys {sorted(unknown)}")
    corpus = draft.get("c", "iclr2026")
    kind = draft["k"]
    filters = dict(draft.get("f", {}))
    if "area" in filters:
        filters["area"] = AREAS.get(filters["area"], filters["area"])
    out: dict = {
        "id": item_id,
        "style": draft["s"],
        "language": draft.get("lang", "en"),
        "kind": kind,
        "second_kind": draft.get("sk"),
        "question": draft["q"],
        "turns": draft.get("turns"),
        "answer_type": draft.get("at"),
        "filters": filters,
        "named": draft.get("named", []),
        "answerable": draft.get("ans", True),
        "group_by": draft.get("gb"),
        "shown": draft.get("shown"),
        "resource": draft.get("resource"),
        "corpus": corpus,
    }
    g = draft.get("g")
    if kind == "more":
        topics = draft.get("t") or g
        out["topic"] = " vs ".join(topics)
        out["sides"] = [
            {"topic": t, "gold_rule": rule(i, corpus)} for t, i in zip(topics, g, strict=True)
        ]
    else:
        out["topic"] = draft.get("t", g or "")
        if g and kind != "themes":
            out["gold_rule"] = rule(g, corpus)
        elif kind in ("list", "count", "share"):  # no topic: every paper within the filters
            out["gold_rule"] = {"patterns": [], "fields": ["title", "abstract", "keywords"]}
    if not out["answerable"]:
        out["count"] = 0
    return out


def add(draft_path: Path, target: Path = COLLECTION) -> int:
    """Append the drafts of a file as items with the next free ids; returns how many."""
    existing = target.read_text(encoding="utf-8").splitlines() if target.exists() else []
    last = max((int(json.loads(line)["id"][2:]) for line in existing if line.strip()), default=0)
    questions = {json.loads(line)["question"] for line in existing if line.strip()}
    new = []
    for n, line in enumerate(draft_path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        draft = json.loads(line)
        if draft["q"] in questions:
            raise ValueError(f"{draft_path}:{n}: duplicate question {draft['q']!r}")
        questions.add(draft["q"])
        item = from_draft(draft, f"qb{last + len(new) + 1:04d}")
        CollectionItem.model_validate(item)
        new.append(json.dumps(item, ensure_ascii=False))
    target.write_text("\n".join(existing + new) + "\n", encoding="utf-8")
    return len(new)


def load(path: Path) -> tuple[list[CollectionItem], list[str]]:
    """Read collection.jsonl; return the valid items and 'file:line: message' problems."""
    items: list[CollectionItem] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            problems.append(f"{path.name}:{n}: blank line")
            continue
        try:
            item = CollectionItem.model_validate_json(line)
        except ValidationError as exc:
            problems += [
                f"{path.name}:{n}: {'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()
            ]
            continue
        if item.id in seen:
            problems.append(f"{path.name}:{n}: id {item.id} also on line {seen[item.id]}")
        seen[item.id] = n
        items.append(item)
    return items, problems


def checks(items: Sequence[CollectionItem]) -> list[str]:
    """Collection-specific rules on top of the schema's."""
    out = []
    seen: set[str] = set()
    for i in items:
        if i.kind.value not in KINDS:
            out.append(f"{i.id}: kind {i.kind.value} belongs in papers.jsonl")
        if i.question in seen:
            out.append(f"{i.id}: duplicate question")
        seen.add(i.question)
        if not i.answerable and (i.count != 0 or i.gold_keys):
            out.append(f"{i.id}: off-topic item matches {i.count} papers")
        if i.corpus is Corpus.SAMPLE and i.kind.value not in ("list", "count"):
            out.append(f"{i.id}: sample items are list/count by topic only")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Add drafts, or check (and with --write, complete) collection.jsonl."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["add"]:
        print(f"added {add(Path(args[1]))} items", file=sys.stderr)
        args = args[2:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=None, help="iclr2026_accepted.jsonl")
    parser.add_argument("--write", action="store_true", help="store computed gold sets")
    opts = parser.parse_args(args)
    items, problems = load(COLLECTION)
    corpus_path = opts.corpus or default_corpus()
    if corpus_path.is_file():
        papers = Papers(read_corpus(corpus_path), read_seed(SEED))
        ratings = read_ratings(corpus_path)
        items = [complete(i, papers, ratings) for i in items]
        for item in items:
            problems += [f"{item.id}: {p}" for p in corpus_problems(item, papers)]
        if opts.write:
            write_jsonl(COLLECTION, items)
    else:
        print(f"{corpus_path} not found: schema checks only", file=sys.stderr)
    problems += checks(items)
    cells = thin_cells(items, KINDS)
    counts = {(i.kind.value, i.style.value) for i in items}
    print(table(items))
    for cell in cells:
        print(f"thin cell {cell}", file=sys.stderr)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{len(items)} items, {len(problems)} problem(s), {len(counts)} cells", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
