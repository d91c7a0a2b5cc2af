"""The one pipeline object that the CLI, UI, evaluation and tests all build."""

from __future__ import annotations

import copy
from collections.abc import Generator, Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rag.answers.absent import MIN_PAPERS, AbsentTopic, Vocabulary, absent_topic, respelled
from rag.answers.collection import CollectionAnswerer
from rag.answers.extractive import decide
from rag.answers.handlers.themes import ThemesHandler
from rag.answers.headings import offline_heading
from rag.answers.refusal import UNUSED_MIN_PAPERS, RefusalModel, load_refusal_model
from rag.answers.wording import in_english, nothing_passes
from rag.app.clock import Clock
from rag.app.options import AskOptions
from rag.app.turns import answered_in_turn, collection_parts
from rag.cues import Cues
from rag.lexicon import load_lexicon
from rag.map.conference_map import ConferenceMap, MapStore
from rag.models import (
    Answer,
    Conversation,
    Filters,
    IngestReport,
    LoadError,
    Paper,
    Plan,
    QuestionKind,
    SearchHit,
    Usage,
)
from rag.prompts import Prompt, load_prompts
from rag.protocols import Answerer, Embedder, Mode, Retriever
from rag.providers import ProviderError, StreamDropped
from rag.questions.condense import (
    Condensed,
    elliptic_follow_up,
    heuristic_condense,
    implicit_follow_up,
    model_condense,
)
from rag.questions.language import LanguageReader
from rag.questions.parts import asked_parts
from rag.questions.planner import Planner
from rag.questions.router import Router, router_for
from rag.questions.topic import defined_part
from rag.retrieval.hybrid import HybridRetriever, KeywordIndex
from rag.retrieval.support import Evidence, Scorer, gather_evidence
from rag.settings import Settings
from rag.store.catalog import CatalogCache
from rag.store.chroma import IndexError_, collection_name
from rag.store.derived import DerivedStore
from rag.store.embeddings import make_embedder
from rag.store.index import IngestProgress, PaperIndex
from rag.store.loaders import LoadResult, load_paths
from rag.store.names import MAX_PAPERS_PER_NAME, NameIndex
from rag.text import content_terms

# LlamaIndex costs over a second to import: only the model path and the LlamaIndex faces
# (as_retriever, as_query_engine) import it, when they are used.
if TYPE_CHECKING:
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.llms import LLM
    from llama_index.core.vector_stores.types import MetadataFilters

    from rag.app.llama import Granularity


class Pipeline:
    """The composition root: builds each part once from one Settings and hands it to the others.

    Any part can be injected instead (an embedder, an index, a retriever, a model, an answerer,
    a refusal model, a planner, a collection answerer): the UI, CLI, evaluation and tests all
    build this one object.
    """

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        index: PaperIndex | None = None,
        llm: LLM | None = None,
        refusal: RefusalModel | None = None,
        planner: Planner | None = None,
        collection: CollectionAnswerer | None = None,
        *,
        retriever: Retriever | None = None,
        answerer: Answerer | None = None,
        router: Router | None = None,
    ) -> None:
        self.settings = settings
        self.embedder: Embedder = embedder or make_embedder(settings)
        # Indexes built from the whole collection, stored beside Chroma (rag/store/derived.py).
        self.derived = (
            index.derived
            if index is not None and index.derived is not None
            else DerivedStore(settings.data_dir, collection_name(settings))
        )
        self.index = index or PaperIndex(settings, self.embedder, derived=self.derived)
        self.keywords = KeywordIndex(self.index, self.derived)
        self.retriever: Retriever = retriever or HybridRetriever(
            self.index, self.embedder, self.keywords, settings
        )
        self.lexicon = load_lexicon()
        self.cues = Cues(self.lexicon)
        self.catalog_view = CatalogCache(self.index, self.cues, self.derived)
        self.map_store = MapStore(settings, self.index, self.embedder, self.derived)
        self.scorer = Scorer(
            self.index,
            self.embedder,
            self.keywords.weights,
            lambda: self.catalog_view().acronyms,
            frozenset(t for w in self.lexicon.aspect_nouns for t in content_terms(w)),
        )
        self.prompts: dict[str, Prompt] = load_prompts()
        self.refusal = refusal or load_refusal_model()
        self.llm: LLM | None = llm
        if self.llm is None and settings.llm.provider == "openai":
            from rag.app.llm import OpenAICompatible

            self.llm = OpenAICompatible(settings)
        self.answerer: Answerer | None = answerer
        if self.answerer is None and self.llm is not None:
            from rag.answers.generate import ModelAnswerer

            self.answerer = ModelAnswerer(self.llm, self.scorer, self.prompts)
        # The collection's words, for telling a typing slip from a word no paper writes.
        self._vocabulary = Vocabulary(self.catalog_view, frame=self.lexicon.frame_words)
        self.language = LanguageReader(self.lexicon.language_function_words, self._vocabulary)
        # One router: the planner reads kinds with it, and a question asked again of another
        # paper ("and the SHAPO paper?") is routed for its answer type.
        self.router = router or router_for(self.embedder)
        self.planner = planner or Planner(
            self.catalog_view,
            self.router,
            self.lexicon,
            # auto and model: the chat model plans whenever it answers (use_model).
            self.llm if settings.llm.plan != "rules" else None,
            self.prompts["plan"],
            english=self._vocabulary.english,
            language=self.language,
        )
        self.collection = collection or CollectionAnswerer(
            self.catalog_view,
            self.index,
            self.embedder,
            lambda q: self.keywords.bm25().scores(q),
            self.cues,
            self.answerer,
            handlers={QuestionKind.THEMES: ThemesHandler(self.map_store.current)},
        )

    def using(
        self, *, retriever: Retriever | None = None, answerer: Answerer | None = None
    ) -> Pipeline:
        """This pipeline with another retriever or answerer; every other part is shared."""
        clone = copy.copy(self)
        clone.retriever = retriever or self.retriever
        clone.answerer = answerer or self.answerer
        return clone

    def as_retriever(
        self,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | MetadataFilters | None = None,
        granularity: Granularity = "paper",
    ) -> BaseRetriever:
        """This pipeline's search as a LlamaIndex retriever: NodeWithScore per paper or chunk."""
        from rag.app.llama import PaperChatRetriever

        return PaperChatRetriever(self, k=k, mode=mode, filters=filters, granularity=granularity)

    def as_query_engine(
        self, options: AskOptions | None = None, conversation: Conversation | None = None
    ) -> BaseQueryEngine:
        """This pipeline as a LlamaIndex query engine: `query()` runs `ask` and wraps the Answer."""
        from rag.app.llama import PaperChatQueryEngine

        return PaperChatQueryEngine(self, options=options, conversation=conversation)

    def ingest(
        self,
        paths: Iterable[str | Path],
        prune: bool = False,
        progress: IngestProgress | None = None,
    ) -> tuple[LoadResult, IngestReport]:
        """Load files and index their papers; prune only when every input loaded cleanly."""
        loaded = load_paths(paths, self.cues)
        errors = list(loaded.errors)
        if prune and errors:
            # A file that failed to load must not make its papers look deleted.
            prune = False
            errors.append(LoadError(file="-", message="not pruning: some inputs had errors"))
        if not loaded.papers and not prune:
            return loaded, IngestReport(errors=errors)
        report = self.index.ingest(loaded.papers, prune=prune, progress=progress)
        report.errors = errors
        self.build_derived()
        return loaded, report

    def build_derived(self) -> None:
        """Build (or load, when stored at this revision) every derived index now, so no
        question pays for it: catalog view, BM25, latent factors and registered artifacts."""
        papers, revision = self.index.snapshot()
        self.catalog_view()
        self.keywords.bm25((papers, revision))
        cfg = self.settings.retrieval
        if cfg.lsa_weight > 0 and len(papers) >= cfg.lsa_min_papers:
            self.keywords.latent(cfg.lsa_dims, (papers, revision))
        for artifact in self.derived.registry.values():
            self.derived.get(artifact, revision, papers)

    def conference_map(self) -> ConferenceMap:
        """Every paper placed in 2D and grouped into themes, at the index's current state."""
        return self.map_store.current()

    def warm(self) -> None:
        """Load now what the first question would wait for: the embedding model, the vector
        index, and the keyword, latent and name indexes built from the catalog."""
        # Offline whatever is configured: warming must not spend a chat model's tokens.
        self.ask("Which paper is about research?", options=AskOptions(answerer="extractive"))

    def catalog(self) -> dict[str, Paper]:
        """Every indexed paper by id (reloaded when another process changed the index)."""
        return self.index.catalog()

    def stats(self) -> dict[str, Any]:
        """Counts and configuration, in the shape `paperchat stats --json` prints."""
        return self.index.stats()

    def other_collections(self) -> list[str]:
        """PaperChat collections built with other settings (to explain an empty index)."""
        return self.index.other_collections()

    def search(
        self,
        query: str,
        k: int | None = None,
        mode: Mode | None = None,
        filters: Filters | None = None,
    ) -> list[SearchHit]:
        """Best papers for a query."""
        return self.retriever.search(query, k=k, mode=mode, filters=filters)

    def ask(
        self,
        question: str,
        conversation: Conversation | None = None,
        options: AskOptions | None = None,
    ) -> Answer:
        """Answer a question (a follow-up when a conversation is given); records the turn."""
        answer: Answer | None = None
        for part in self.stream(question, conversation, options):
            if isinstance(part, Answer):
                answer = part
        assert answer is not None
        return answer

    def stream(
        self,
        question: str,
        conversation: Conversation | None = None,
        options: AskOptions | None = None,
    ) -> Iterator[str | Answer]:
        """Yield text deltas of the answer, then the finished Answer object: plan, route to the
        collection or the papers' abstracts, answer, finish."""
        opts = options or AskOptions()
        clock = Clock()
        use_model = opts.answerer == "model" or (
            opts.answerer == "auto" and self.settings.llm.provider != "none"
        )
        try:
            if parts := collection_parts(question, conversation, self.planner, self.lexicon):
                ask_part = partial(self.stream, options=options)
                answer = yield from answered_in_turn(parts, conversation, ask_part)
            else:
                answer = yield from self._one(question, conversation, opts, use_model, clock)
            answer.question = question
        except StreamDropped as exc:
            answer = Answer(question=question, text="", error=str(exc), complete=False)
        except (ProviderError, IndexError_) as exc:
            answer = Answer(question=question, text="", error=str(exc))
        yield self._finish(answer, question, conversation, use_model, clock)

    def _one(
        self,
        question: str,
        conversation: Conversation | None,
        opts: AskOptions,
        use_model: bool,
        clock: Clock,
    ) -> Generator[str, None, Answer]:
        """One question: read as meant, planned, routed and answered."""
        # "waht is active inferance?", "papers abt RL w/ LLMs": slips and shorthand as meant.
        other = self.language(question)
        written = self.lexicon.written_out(question)
        read = question if other else respelled(written, self._vocabulary, mend=True)
        plan = self._plan(read, conversation, opts, use_model, clock)
        # Offline answers quote English abstracts: a question in another language is told so.
        note = in_english(plan.language) if plan.language and not use_model else ""
        if note:
            yield note
        # Of a question in another language retrieval reads the model planner's English
        # rewrite, offline its topic's terms; the answer keeps the question as asked.
        asked = plan.english if use_model and plan.english else (plan.topic if note else read)
        answer = yield from self._route(asked or read, conversation, plan, opts, use_model, clock)
        answer.text = note + answer.text
        return answer

    def _plan(
        self,
        question: str,
        conversation: Conversation | None,
        opts: AskOptions,
        use_model: bool,
        clock: Clock,
    ) -> Plan:
        """What the question asks, with the user's filter controls merged in."""
        if use_model and self.answerer is None:
            raise ProviderError(
                "No model is configured: set PAPERCHAT_LLM__PROVIDER=openai and "
                "OPENAI_API_KEY (or OPENAI_BASE_URL) in .env, or use extractive answers."
            )
        plan = self.planner.plan(question, conversation, use_model)
        plan.filters = plan.filters.under(opts.filters, opts.drop_filters)
        if plan.kind.collection and plan.topic and not plan.language:  # "protien" -> protein
            plan.topic = respelled(plan.topic, self._vocabulary)
        clock.lap("plan")
        return plan

    def _route(
        self,
        question: str,
        conversation: Conversation | None,
        plan: Plan,
        opts: AskOptions,
        use_model: bool,
        clock: Clock,
    ) -> Generator[str, None, Answer]:
        """The collection's answer for a kind about the collection (a comparison streamed);
        the papers' abstracts answer the rest, and a collection kind its answerer declines."""
        answer: Answer | None = None
        if plan.kind == QuestionKind.COMPARE:
            answer = yield from _streamed(self.collection.compare(question, plan, use_model))
        elif plan.kind.collection:
            answer = self.collection.answer(question, plan)
            if answer is not None:
                yield from answer.text.splitlines(keepends=True)
        if answer is None:
            # "wait what is X?" with no abstract defining X: looked up as "what is X?" (in
            # English only, as the planner reads it: another language orders its words apart).
            defining = plan.kind == QuestionKind.DEFINE and not plan.language
            asked = defined_part(question, self.lexicon) if defining else question
            answer = yield from self._answer(asked, conversation, plan, opts, use_model, clock)
            answer.question = question
            return answer
        # What the collection answer ranked: its matched papers, or those compared.
        answer.retrieved = [m.paper_id for m in answer.papers] or [
            h.paper.id for h in answer.sources
        ]
        return answer

    def _answer(
        self,
        question: str,
        conversation: Conversation | None,
        plan: Plan,
        opts: AskOptions,
        use_model: bool,
        clock: Clock,
    ) -> Generator[str, None, Answer]:
        """Answer from the abstracts of the papers the question names or retrieval finds:
        offline from their sentences, or written by the model over the same evidence."""
        named, condensed = self._resolve(question, conversation, plan, opts, use_model)
        clock.lap("condense")
        named, condensed, ranked, evidence, offline = self._evidence(
            question, conversation, plan, opts, clock, named, condensed
        )
        unused = self._unused(condensed.question)
        acronyms = self.catalog_view().acronyms
        heading = offline_heading(
            question, plan, named, unused, evidence, offline, self.lexicon, acronyms
        )
        if not use_model or (offline.refused and not named) or offline.weak:
            answer = offline
            answer.text = heading + answer.text
            yield from answer.text.splitlines(keepends=True)
        else:
            # A model reads named papers itself: only a silent collection skips it.
            if heading:
                yield heading
            assert self.answerer is not None
            ordered = [e.hit for e in evidence]
            if named:
                ordered.sort(key=lambda h: h.paper.id not in named)
            asked = condensed.question
            if plan.language:
                # Answered in the asker's language, over the same English abstracts.
                asked += "\n" + self.prompts["answer_language"].render(language=plan.language)
            streamed = yield from _streamed(self.answerer.stream(asked, ordered))
            assert streamed is not None
            answer = streamed
            clock.lap("generate")
            if not answer.refused:
                answer.text = heading + answer.text
        answer.confidence, answer.signals = offline.confidence, offline.signals
        answer.named = list(named)
        answer.question = question
        answer.standalone_question = condensed.question
        # The ranking users see: the papers read for evidence, best-evidenced first (the
        # sources panel's order), then the rest of the retrieval's ranking.
        answer.retrieved = list(
            dict.fromkeys([*(e.hit.paper.id for e in evidence), *(h.paper.id for h in ranked)])
        )
        answer.plan = plan
        if plan.follow_up and condensed.paper_ids and named and not plan.paper_ids:
            # "How many seeds did they run?" after "tell me about SHAPO": about that paper.
            kind = QuestionKind.DETAIL if plan.kind == QuestionKind.LOOKUP else plan.kind
            answer.plan = plan.model_copy(update={"kind": kind, "paper_ids": named})
        return answer

    def _evidence(
        self,
        question: str,
        conversation: Conversation | None,
        plan: Plan,
        opts: AskOptions,
        clock: Clock,
        named: list[str],
        condensed: Condensed,
    ) -> tuple[list[str], Condensed, list[SearchHit], list[Evidence], Answer]:
        """Retrieve and decide offline; a question the collection is silent on alone is tried
        again as a follow-up of the conversation. Returns the named papers and the question as
        finally read, the ranking, the evidence and the offline answer."""
        names = self.catalog_view().names
        asked = self._asked(condensed.asked or question, plan, named, bool(condensed.asked))
        ranked, evidence, offline = self._offline(
            condensed.asked or question, condensed, named, names, opts, clock, asked
        )
        # A topic no paper writes is said absent, never read as a follow-up of the last answer.
        again = (
            None
            if named or not offline.refused or offline.absent
            else implicit_follow_up(question, conversation)
        )
        if again is not None:
            # "What do existing models get wrong?" after an answer about AQuA: the
            # collection is silent on it alone, so it continues the conversation.
            condensed, named = again, list(again.paper_ids or [])
            ranked, evidence, offline = self._offline(
                question, condensed, named, names, opts, clock, asked
            )
        if not ranked and plan.filters.active():
            offline.text = nothing_passes(plan.filters, self.catalog_view())
        return named, condensed, ranked, evidence, offline

    def _asked(self, question: str, plan: Plan, named: list[str], again: bool) -> Plan:
        """The plan the abstracts answer: the question's own, or, for a question asked again of
        another paper ("and the SHAPO paper?") or a collection kind its answerer declined, the
        earlier question's answer type and parts, as the router reads them."""
        if not again and plan.answer_type is not None:
            return plan
        return plan.model_copy(
            update={
                "answer_type": self.router.route(question, len(named)).answer_type,
                "parts": asked_parts(question, len(named), self.router, self.lexicon),
            }
        )

    def _resolve(
        self,
        question: str,
        conversation: Conversation | None,
        plan: Plan,
        opts: AskOptions,
        use_model: bool,
    ) -> tuple[list[str], Condensed]:
        """The papers the question names (ids) and the question standing alone."""
        catalog = self.catalog()
        names = self.catalog_view().names
        # Names the question writes (rag/store/names.py, as the planner read them) are named
        # papers; names only a model planner supplied count when retrieval agrees.
        named = names.find(question) or self._corroborated(
            question, [pid for pid in plan.paper_ids if pid in catalog], opts, plan.filters
        )
        # A question that names a paper stands alone: "it" there is that paper; "and the
        # SHAPO paper?" asks the last question again, of SHAPO.
        condensed = (
            elliptic_follow_up(
                question,
                conversation,
                self.lexicon,
                plan.named,
                [catalog[p].title for p in named],
                named,
            )
            or Condensed(question)
            if named
            else self._condense(question, conversation, use_model, plan)
        )
        named = named or list(condensed.paper_ids or [])
        # A filter is a promise: a named paper outside it is never cited.
        named = [pid for pid in named if pid in catalog and plan.filters.match(catalog[pid])]
        return named, condensed

    def _finish(
        self,
        answer: Answer,
        question: str,
        conversation: Conversation | None,
        use_model: bool,
        clock: Clock,
    ) -> Answer:
        """Stamp the model, tokens and timings on a finished answer and record the turn."""
        if use_model and self.llm is not None:
            answer.model = self.settings.llm.model
        planned = answer.plan.usage if answer.plan else None
        if planned is not None:
            # The planning call is part of what the question cost.
            spent = answer.usage or Usage()
            answer.usage = Usage(
                prompt_tokens=spent.prompt_tokens + planned.prompt_tokens,
                completion_tokens=spent.completion_tokens + planned.completion_tokens,
            )
        answer.timings = clock.done()
        if conversation is not None and not answer.error:
            # A failed turn has nothing to refer back to: follow-ups resolve against the
            # last answer the user actually got.
            conversation.add(question, answer)
        return answer

    def _offline(
        self,
        question: str,
        condensed: Condensed,
        named: list[str],
        names: NameIndex,
        opts: AskOptions,
        clock: Clock,
        plan: Plan,
    ) -> tuple[list[SearchHit], list[Evidence], Answer]:
        """Retrieve, rank sentences and decide: the ranking (AskOptions.depth papers), the
        evidence of its first k and the offline answer."""
        k = opts.k or self.settings.retrieval.top_k
        ranked = self.retriever.search(
            condensed.question,
            k=max(k, opts.depth or k),
            mode=opts.retrieval,
            filters=plan.filters,
            within=condensed.paper_ids,
        )
        hits = self._with_named(condensed.question, ranked[:k], named, opts, plan.filters)
        clock.lap("retrieve", add=True)
        evidence = gather_evidence(self.scorer, condensed.question, hits)
        clock.lap("rank", add=True)
        refusal, asked = self.refusal, condensed.question
        # "and on bagpipe music?" asks no paper; of another language only its topic's English.
        topic = plan.topic or ("" if plan.language else asked)
        if opts.refusal_threshold is not None:
            refusal = refusal.model_copy(update={"threshold": opts.refusal_threshold})
        offline = decide(
            question,
            evidence,
            refusal,
            named,
            names.terms(named),
            self.settings.retrieval.min_evidence,
            opts.show_weak,
            cues=self.cues,
            refusal=self.prompts["refusal"].text,
            unknown=names.unknown(question),
            namesakes={m.text: m.ids for m in names.mentions(question) if len(m.ids) > 1},
            own_names=names.own,
            unused=self._unused(condensed.question),
            plan=plan,
            lexicon=self.lexicon,
            absent=None if plan.named or not topic else self.absent(topic),
        )
        return ranked, evidence, offline

    def _unused(self, question: str) -> list[str]:
        """The question's terms no indexed paper uses, in a large collection."""
        weights = self.keywords.weights()
        return weights.unused(question) if weights.n >= UNUSED_MIN_PAPERS else []

    def absent(self, text: str, min_papers: int = MIN_PAPERS) -> AbsentTopic | None:
        """The topic of the text when words of it are ones fewer than `min_papers` indexed
        papers write, in a large collection (rag/answers/absent.py); None otherwise."""
        weights, lex, vocab = self.keywords.weights(), self.lexicon, self._vocabulary
        if weights.n < UNUSED_MIN_PAPERS:
            return None
        skip = lex.function_words | lex.question_words | lex.question_marking | lex.domain_stopwords
        return absent_topic(text, weights.df, vocab, skip, min_papers, vocab.common)

    def _corroborated(
        self, question: str, ids: list[str], opts: AskOptions, filters: Filters
    ) -> list[str]:
        """The planner's named papers that the question's own search also ranks in its top k.

        A name shared by many papers is a field's word, not a paper's name (names.py's rule).
        """
        if not ids or len(ids) > MAX_PAPERS_PER_NAME:
            return []
        k = opts.k or self.settings.retrieval.top_k
        hits = self.retriever.search(question, k=k, mode=opts.retrieval, filters=filters)
        top = {h.paper.id for h in hits}
        return [pid for pid in ids if pid in top]

    def _with_named(
        self,
        query: str,
        hits: list[SearchHit],
        named: list[str],
        opts: AskOptions,
        filters: Filters,
    ) -> list[SearchHit]:
        """The hits with every named paper among them (fetched when retrieval missed it)."""
        missing = [pid for pid in named if pid not in {h.paper.id for h in hits}]
        if not missing:
            return hits
        extra = self.retriever.search(
            query, k=len(missing), mode=opts.retrieval, filters=filters, within=missing
        )
        return extra + hits

    def _condense(
        self, question: str, conversation: Conversation | None, use_model: bool, plan: Plan
    ) -> Condensed:
        """The question standing alone; a follow-up asking for a kind of sentence ("what do
        both find?") keeps its words, the router's answer type saying so."""
        kind = plan.answer_type
        if kind is None and conversation and conversation.turns:
            kind = self.router.route(question).answer_type
        if use_model and self.llm is not None:
            return model_condense(
                self.llm, self.prompts["condense"], question, conversation, self.lexicon, kind
            )
        return heuristic_condense(question, conversation, self.lexicon, kind)

    def mode_info(self) -> dict[str, str]:
        """Where answers come from, for people: shown in the UI and `paperchat stats`."""
        if self.llm is not None:
            # Only the host: a base URL may carry credentials or tokens.
            where = urlsplit(self.settings.openai_base_url or "https://api.openai.com").hostname
            return {
                "mode": "model",
                "model": self.settings.llm.model,
                "detail": f"Answers written by {self.settings.llm.model} at {where}.",
                "switch": "Set PAPERCHAT_LLM__PROVIDER=none in .env for offline answers.",
            }
        return {
            "mode": "extractive",
            "model": "",
            "detail": "Offline: answers are built from verbatim abstract sentences.",
            "switch": "Set PAPERCHAT_LLM__PROVIDER=openai and OPENAI_API_KEY (or OPENAI_BASE_URL) "
            "in .env to have a model write answers.",
        }


def _streamed(parts: Iterable[str | Answer]) -> Generator[str, None, Answer | None]:
    """Pass an answerer's text deltas on; return its finished Answer (None if it gave none)."""
    answer: Answer | None = None
    for part in parts:
        if isinstance(part, Answer):
            answer = part
        else:
            yield part
    return answer
