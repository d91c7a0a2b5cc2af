"""Writer B's drafting aid for collection.jsonl: short hand-written drafts to items.

    python -m eval.questions.drafts DRAFT.jsonl   # append the drafts, then run the build --write

A draft holds the question exactly as written by hand plus short labels: `k` kind, `s` style,
`q` question, `g` a topic id of TOPICS below (its patterns become the `gold_rule`; a list of two
ids for `more`), `t` the topic as the user named it (default: the id), `f` filters (`area` may
be a short name of AREAS), and optionally `turns`, `sk` (second kind), `lang`, `shown`, `gb`
(group_by), `c` ("sample"), `ans` (false for off-topic), `named`, `at` (answer type of a second
part), `resource`. The drafts are not kept: `collection.jsonl` is the source from then on, and
`build.py` validates it and computes every gold set.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from eval.questions.schema import Item

HERE = Path(__file__).resolve().parent
COLLECTION = HERE / "collection.jsonl"

# Topic id -> gold patterns: the topic phrase with an optional plural and the acronym the papers
# use; a case-sensitive acronym is scoped as (?-i:...). Chosen by reading keywords and titles of
# all 12 areas; each was checked against the corpus for false hits.
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
    "KV cache": [r"\bKV[- ]caches?\b"],
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
        Item.model_validate(item)
        new.append(json.dumps(item, ensure_ascii=False))
    target.write_text("\n".join(existing + new) + "\n", encoding="utf-8")
    return len(new)


def main(argv: Sequence[str] | None = None) -> int:
    """Append the drafts of the given files to collection.jsonl."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("drafts", nargs="+", type=Path)
    args = parser.parse_args(argv)
    for path in args.drafts:
        print(f"{path}: added {add(path)} items", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
