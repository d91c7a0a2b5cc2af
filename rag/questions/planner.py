"""The question planner: intent, topic, filters and named papers, from rules or a model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from pydantic import ValidationError

from rag.lexicon import Lexicon
from rag.models import Conversation, Filters, GroupBy, Plan, QuestionKind, plan_schema
from rag.prompts import Prompt, load_prompt
from rag.questions.condense import describes_one, heuristic_condense
from rag.questions.conversation import last_cited, narrows
from rag.questions.examples import few_shot, load_examples
from rag.questions.follow_up import (
    earlier_topic,
    listed_ids,
    narrowed_plan,
    of_those,
    previous_subject,
    referred,
    refines,
    which_one,
)
from rag.questions.language import in_language, reading
from rag.questions.parts import asked_parts, first_part
from rag.questions.rating_words import RatingAsk, min_rating, read_rating
from rag.questions.results_words import best_on, metric_of, superlative_metric
from rag.questions.router import Router, names_read
from rag.questions.theme_words import theme_topic
from rag.questions.topic import (
    clean,
    compared_sides,
    defined_part,
    listed_aspect,
    rest_of,
    topic_of,
)
from rag.store.catalog import Catalog
from rag.text import quoted_spans, unquoted

if TYPE_CHECKING:
    from llama_index.core.llms import LLM

K = QuestionKind
_AREA = re.compile(
    # "orals in the area of optimization", "from the area generative models on video".
    r"\b(?:in|from|within|under)\s+(?:the\s+)?(?:primary\s+)?(?:area|track|category)\s+"
    r"(?:of\s+|called\s+|named\s+)?(?P<after>[\w ,\-()]+)"
    r"|\b(?:primary\s+)?area\s+(?:of\s+|called\s+)?[\"“'](?P<quoted>[^\"”']+)[\"”']"
    r"|\b(?:in|from|within|of|under)\s+(?:the\s+)?(?!the\s)(?P<before>[\w ,\-()]+?)\s+"
    r"(?:primary\s+)?(?:area|track|category)\b",
    re.IGNORECASE,
)
_KEYWORD = re.compile(
    r"\b(?:with|having|under|tagged(?:\s+with)?|listing)?\s*(?:the\s+)?keywords?\s+"
    r"(?:is\s+|of\s+|include\s+|including\s+)?(?:[\"“']([^\"”']+)[\"”']|([\w\- ]+?))(?=[?.,;]|$)",
    re.IGNORECASE,
)
# 'Which papers have "benchmark" in the title?', "papers whose title mentions Mamba".
_TITLE = re.compile(
    r"\b(?:with|have|has|having|containing|contain|mention|mentions|mentioning|use|uses|"
    r"using)\s+(?:the\s+word\s+)?(?:[\"“']([^\"”']+)[\"”']|([\w-]+(?:\s+[\w-]+){0,2}?))"
    r"\s+in\s+(?:(?:the|their|its)\s+)?titles?\b|\b(?:whose|with\s+a|with)\s+titles?\s+"
    r"(?:contains?|containing|mentions?|mentioning|includes?|including|has|with)\s+"
    r"(?:the\s+word\s+)?[\"“']?([^\"”'?.,;]+?)[\"”']?(?=[?.,;]|$)|\btitled\s+[\"“']([^\"”']+)[\"”']",
    re.IGNORECASE,
)


def _decision(
    question: str, catalog: Catalog, lexicon: Lexicon
) -> tuple[str | None, list[tuple[int, int]]]:
    """The decision a question filters by: one the catalog has, else one a person may ask for
    that it lacks ("spotlight"; "orals" in the sample), which then matches nothing and is said."""
    lower = question.lower()
    for value in [*catalog.decisions, *(w.capitalize() for w in lexicon.decision_words)]:
        for form in (value.lower() + "s", value.lower()):
            at = _word_at(lower, form)
            if at >= 0:
                # In the sample, "oral cancer" is a topic: only the plural or "oral papers" asks.
                if not catalog.decisions and form == value.lower():
                    after = lower[at + len(form) :].split()[:1]
                    if after not in (["papers"], ["presentations"]):
                        continue
                return value, [(at, at + len(form))]
    return None, []


def _word_at(text: str, word: str) -> int:
    """Where `word` stands as a whole word in text (lowercase both), else -1."""
    start = 0
    while (i := text.find(word, start)) >= 0:
        end = i + len(word)
        if (i == 0 or not text[i - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            return i
        start = end
    return -1


def _area(question: str, catalog: Catalog) -> tuple[str | None, list[tuple[int, int]]]:
    for m in _AREA.finditer(question):
        if m["after"]:
            # The area's name comes first and the topic may follow: the longest head that
            # names an area.
            words = list(re.finditer(r"[^\s,]+", m["after"]))
            for end in range(len(words), 0, -1):
                area = catalog.area_named(m["after"][: words[end - 1].end()])
                if area:
                    return area, [(m.start(), m.start("after") + words[end - 1].end())]
            continue
        phrase = m["quoted"] or m["before"] or ""
        words = phrase.split()
        # "papers in the RL area": try the longest tail that names an area.
        for start in range(len(words)):
            area = catalog.area_named(" ".join(words[start:]))
            if area:
                return area, [m.span()]
    return _bare_area(question, catalog)


def _bare_area(question: str, catalog: Catalog) -> tuple[str | None, list[tuple[int, int]]]:
    """An area named right before "area" or "track" with no preposition: "orals reinforcement
    learning track count", "RL-track papers", "the 'reinforcement learning' area"; the
    longest run of up to six words before it that names one."""
    lower = question.lower()
    for word in ("area", "track", "category"):
        at = _word_at(lower, word)
        if at < 0:
            continue
        before = question[:at]
        starts, i = [], 0
        for w in before.split():
            i = before.index(w, i)
            starts.append(i)
            i += len(w)
        for start in starts[-6:]:
            if area := catalog.area_named(before[start:].strip(" -'\"“”‘’")):
                return area, [(start, at + len(word))]
    return None, []


def _title(question: str) -> tuple[str | None, list[tuple[int, int]]]:
    m = _TITLE.search(question)
    if not m:
        return None, []
    value = next(g for g in m.groups() if g).strip()
    return value, [m.span()]


def _keyword(question: str) -> tuple[str | None, list[tuple[int, int]]]:
    m = _KEYWORD.search(question)
    if not m:
        return None, []
    value = (m.group(1) or m.group(2) or "").strip()
    return (value or None), ([m.span()] if value else [])


def _listed_keyword(value: str, catalog: Catalog) -> bool:
    """Whether a paper lists a keyword holding the value, or no paper lists any keyword."""
    value = value.lower()
    listed = [k.lower() for p in catalog.papers for k in p.keywords]
    return not listed or any(value in k for k in listed)


def find_names(question: str, catalog: Catalog, fuzzy: bool) -> tuple[list[str], list[str]]:
    """Names written in the question that the catalog knows: (names as written, paper ids)."""
    mentions = catalog.names.mentions(question, fuzzy)
    named = list(dict.fromkeys(m.text for m in mentions))
    ids = list(dict.fromkeys(pid for m in mentions for pid in m.ids))
    return named, ids


def rule_plan(
    question: str,
    catalog: Catalog,
    conversation: Conversation | None = None,
    *,
    router: Router,
    lexicon: Lexicon,
    english: bool = True,
) -> Plan:
    """The plan without a chat model: the kind and answer type from the learned router, the
    filters and named papers from the catalog, the topic from the question's content words;
    `english`: the question is as the user wrote it, not another language's English reading
    (whose word order is the glossary's)."""
    plan = _rule_plan(question, catalog, conversation, router, lexicon, english)
    return complete_plan(plan, question, catalog, lexicon, router)


def _group(question: str, lexicon: Lexicon) -> tuple[GroupBy, list[tuple[int, int]]]:
    """The field a breakdown groups by: the first the question names (lexicon.group_words),
    the keywords when it names none ("what are the hot topics?")."""
    lower = question.lower()
    for field in ("area", "name", "keyword", "decision"):
        for word in sorted(lexicon.group_words[field], key=len, reverse=True):
            at = _word_at(lower, word)
            if at >= 0:
                return field, [(at, at + len(word))]  # type: ignore[return-value]
    return "keyword", []


def _measure(question: str, lexicon: Lexicon) -> tuple[str, set[str]]:
    """The quantity a superlative asks for and the words qualifying it between the two ("the
    largest decoding speedup" -> "speedup", {"decoding"}), or ("", set())."""
    lower = question.lower()
    found = [
        (at, name)
        for name, measure in lexicon.measures.items()
        for word in measure.question
        if (at := _word_at(lower, word)) >= 0
    ]
    if not found:
        return "", set()
    at, name = min(found)
    # "largest retrieval gains" qualifies the gains; "largest gains in retrieval" or a
    # superlative farther back ("best papers on retrieval with gains") does not.
    between: list[str] = []
    for word in reversed(lower[:at].split()):
        word = word.strip("\"'“”‘’(),")
        if word in lexicon.superlative_words:
            return name, set(between)
        if word in lexicon.function_words or not word.replace("-", "").isalnum():
            break
        between.append(word)
    return name, set()


def _named_area(
    question: str, ids: list[str], catalog: Catalog, lexicon: Lexicon
) -> tuple[str | None, list[tuple[int, int]]]:
    """The named paper's area when the question asks for its area's papers, and where the
    words asking so are."""
    lower = question.lower()
    at = [
        (i, i + len(w))
        for w in (*lexicon.group_words["area"], *lexicon.same_field_words)
        if (i := _word_at(lower, w)) >= 0
    ]
    asked = {lower[a:b] for a, b in at}
    if not (asked & set(lexicon.group_words["area"]) and asked & lexicon.same_field_words):
        return None, []
    return catalog.by_id[ids[0]].primary_area or None, at


def _routed_kind(kind: QuestionKind, ids: list[str], pointed: bool = False) -> QuestionKind:
    """The router's kind, checked against the catalog: a paper-specific kind needs a named
    paper, or a follow-up pointing back at one (`pointed`: "what happens in its sleep
    phase?"), and a question naming one is about it."""
    if kind in (K.DETAIL, K.METADATA, K.SIMILAR) and not ids and not pointed:
        return K.LOOKUP
    if (kind == K.LOOKUP and ids) or (kind == K.AUTHORS and len(ids) == 1):
        # "Who proposed CycleTok?": one named paper's authors are its record's.
        return K.DETAIL
    # A comparison naming fewer than two ("compare it with PARD") is resolved from the
    # conversation (follow_up.referred).
    return kind


def _catalog_kind(
    kind: QuestionKind, ids: list[str], question: str, lexicon: Lexicon
) -> QuestionKind:
    """A question about a named paper that writes a catalog field's word ("Which area is
    Qronos in?", "How often is SHAPO cited?", "the link to X") asks the catalog, not the
    abstract."""
    if not ids or kind not in (K.DETAIL, K.LOOKUP, K.METADATA):
        return kind
    words = {w.strip("?.,!;:\"'()") for w in question.lower().split()}
    if words & lexicon.catalog_words["citations"]:
        return K.CITATIONS
    if words & lexicon.catalog_words["metadata"] or lexicon.asks_catalog(question, "link"):
        # "What is the link to X?": the catalog's record, like its decision or area.
        return K.METADATA
    return kind


def _rule_plan(
    question: str,
    catalog: Catalog,
    conversation: Conversation | None,
    router: Router,
    lexicon: Lexicon,
    english: bool = True,
) -> Plan:
    spans: list[tuple[int, int]] = []
    decision, s = _decision(question, catalog, lexicon)
    spans += s
    area, s = _area(question, catalog)
    spans += s
    title, title_spans = _title(question)
    spans += title_spans
    # 'Which papers have "Atlas" in the title?': a title filter, not the paper Atlas.
    unfiltered = rest_of(question, title_spans, [])
    named, ids = find_names(unfiltered, catalog, fuzzy=False)
    follow_up = conversation is not None and bool(conversation.turns)
    read = names_read(len(named), question, follow_up, lexicon)
    route = router.route(question, read)
    # A question asking two things is of its first part's kind: the router and the catalog
    # read that part for the kind (the later parts are answered in turn, after it); the
    # answer type stays the whole question's, whose parts are each routed (complete_plan).
    first, own = first_part(question, lexicon), ids
    if first != question:
        own = find_names(rest_of(first, _title(first)[1], []), catalog, fuzzy=False)[1]
        read = names_read(len(own), first, follow_up, lexicon)
        of_first = router.route(first, read)
        route = replace(route, kind=of_first.kind, kind_p=of_first.kind_p)
        if own and decision and not _decision(first, catalog, lexicon)[0]:
            # "How does STream3R reformulate …, and was it an oral?": a later part asks the
            # named paper's decision; it filters nothing.
            decision = None
    # "anything else like it?", "find me similar ones": the papers near the last answer's.
    cited = last_cited(conversation) if route.kind == K.SIMILAR and not own else []
    pointed = read > len(own) or bool(cited)
    # "which operations does the linear-algebra paper study?": a detail of the paper described.
    described = route.kind == K.DETAIL and describes_one(first, lexicon)
    kind = _routed_kind(route.kind, own, pointed or described)
    if kind == K.SIMILAR and not ids and cited:
        # "what else is like the second one?": the one it points at, else the first cited.
        ids = heuristic_condense(question, conversation, lexicon).paper_ids or [cited[0].paper_id]
        own = ids = ids[:1]
    kind = _catalog_kind(kind, own, first, lexicon)
    if kind == K.COMPARE:
        named, ids = find_names(unfiltered, catalog, fuzzy=True)
    elif len(ids) == 1 and kind not in (K.SIMILAR, K.DETAIL) and area is None:
        # "How many papers share an area with X?": X's area filters, X is no topic.
        area, s = _named_area(question, ids, catalog, lexicon)
        if area:
            ids, spans = [], spans + s
            kind = kind if kind.collection else K.COUNT if route.answer_type == "number" else K.LIST
    refers_to_list = bool(of_those(question, lexicon))
    group_by: GroupBy | None = None
    if kind == K.BREAKDOWN:
        group_by, s = _group(unquoted(question), lexicon)
        spans += s
        if group_by == "area" and area and refers_to_list:
            # "just the ones in the RL area": the last list in one area, not grouped by it.
            group_by, kind = None, K.COUNT if route.answer_type == "number" else K.LIST
    # "Which keywords are most common?" groups by keyword; it filters by none.
    keyword, s = _keyword(question) if group_by != "keyword" else (None, [])
    if keyword and not _listed_keyword(keyword, catalog):
        # "What keywords does EgoWorld list?": a paper's keywords asked for, no filter.
        keyword, s = None, []
    spans += s
    least, s = min_rating(question, lexicon.ratings)
    spans += s
    filters = Filters(decision=decision, area=area, keyword=keyword, title=title, min_rating=least)
    if group_by == "decision":
        # "How do they split between orals and posters?": every decision is a group.
        filters = filters.model_copy(update={"decision": None})
    if (ids or pointed) and kind == K.METADATA:
        # "Is FinSearchComp an oral?", "is that one an oral?" ask for its decision: "oral"
        # filters nothing.
        filters = filters.model_copy(update={"decision": None})
    if (which := which_one(question, conversation)) is not None:
        return which
    # "mainly detection", "mostly about region-level stuff" after a list: that list narrowed,
    # whether the router read a search, themes or a lookup.
    fragment = kind in (K.THEMES, K.SEARCH, K.LOOKUP, K.DETAIL) and not ids
    if fragment and refines(question, conversation, lexicon):
        kind = K.LIST
    rated = not ids and kind != K.COMPARE
    rating = read_rating(question, lexicon.ratings, kind == K.RATING) if rated else None
    ranks = rating is None and kind in (K.LIST, K.RATING) and filters.min_rating is not None
    if ranks and not refers_to_list:
        # "Which papers on X scored above 6?": those rated so, best first ("which of those
        # are rated 6 or higher?" narrows the last list, below).
        rating = RatingAsk(order="best")
    if rating is not None:
        # "Which diffusion papers were rated best?": the rating words are the lexicon's.
        rated = rest_of(question, spans + rating.spans, named)
        topic = topic_of(rated, lexicon, lexicon.question_marking, catalog)
        return Plan(kind=K.RATING, topic=topic, filters=filters, **rating.fields())
    if not ids and (theme := theme_topic(question, lexicon.themes, kind == K.THEMES)) is not None:
        theme = " ".join(w for w in theme.split() if w not in lexicon.question_marking)
        return Plan(kind=K.THEMES, topic=theme)  # one clustering of every paper: no filters
    if kind in (K.RATING, K.THEMES):
        # The router's rating or theme question writes none of the lexicon's rating or theme
        # words ("papers on Elo rating systems"): a list on its topic.
        kind = K.LIST
    rest = rest_of(question, spans, named)
    # "which groups are behind them?", "sort them by citations": what the index cannot say of
    # the last list's papers is said of that list's topic, not narrowed into a list.
    unknown = kind in (K.AUTHORS, K.CITATIONS) and not ids
    back = refers_to_list or lexicon.says(question, "plural")
    if unknown and back and (earlier := earlier_topic(conversation)) is not None:
        return Plan(kind=kind, topic=earlier.topic, filters=earlier.filters)
    if not unknown and kind not in (K.COMPARE, K.SIMILAR, K.RESULTS) and (
        kind.collection or filters.active() or refers_to_list
    ):
        # "How many of them are orals?": the last list narrowed, whatever the router read.
        asked = K.COUNT if kind.counts or route.answer_type == "number" else K.LIST
        asked = K.SHARE if kind == K.SHARE else asked
        asked = K.BREAKDOWN if group_by else asked
        narrowed = narrowed_plan(
            question, conversation, filters, rest, asked, lexicon, group_by, catalog
        )
        if narrowed is not None:
            return narrowed
    # Words that frame the kind asked, not the topic: "define", "challenges … address",
    # "commonly used for".
    framing = lexicon.question_marking | {
        K.DEFINE: lexicon.concept_words,
        K.BREAKDOWN: lexicon.usage_words,
        K.COUNT: lexicon.counting_words,
        K.RESULTS: lexicon.superlative_words,
        K.LIST: lexicon.aspect_framing if listed_aspect(question, lexicon) else frozenset(),
    }.get(kind, frozenset())
    # A quoted phrase is the topic, whole; a search reads every word (its rarest find the paper).
    sets = catalog if kind in _PAPER_SETS else None
    if kind == K.DEFINE and english:
        rest = defined_part(rest, lexicon)
    topic = topic_of(rest, lexicon, framing, sets, whole_quote=kind not in (K.SEARCH, K.LOOKUP))
    subject = "" if ids or kind != K.LIST else previous_subject(question, conversation, lexicon)
    if subject:
        # "Which papers improve on it?" after "What is Muon?": the papers on Muon.
        return Plan(kind=K.LIST, topic=subject, filters=filters)
    earlier = earlier_topic(conversation) if not (ids or filters.active()) else None
    if kind == K.MORE:
        # "A or B", "A vs B", else "between A and B"; with fewer than two sides it is a count.
        for separators in (("or", "vs", "versus"), ("and",)):
            split = [
                topic_of(side, lexicon, lexicon.question_marking, catalog)
                for side in _split_words(rest, separators)
            ]
            if len(sides := [x for x in split if x]) >= 2:
                break
        if len(sides) == 1 and earlier is not None and earlier.topic != sides[0]:
            # "is that more than GRPO?" after "how many papers on DPO?": DPO is one side.
            sides.insert(0, earlier.topic)
            filters = earlier.filters
        topic, kind = (" or ".join(sides[:2]), kind) if len(sides) >= 2 else (topic, K.COUNT)
    if kind == K.RESULTS:
        best = best_on(question, lexicon)
        # "best accuracy for LLM inference": a name followed by more topic words is no benchmark.
        if best and question[best.end :][:2].strip()[:1].islower():
            best = None
        if best and not ids:
            # "best accuracy on ImageNet": the benchmark is the topic, the words before it
            # the metric; "beats GPT-4o on MathVista": a rival, not a metric.
            metric = "" if best.rival else metric_of(best.metric, lexicon)
            return Plan(
                kind=K.RESULTS, topic=best.name.rstrip(".-"), filters=filters, metric=metric
            )
        measure, qualifying = _measure(question, lexicon)
        # No measure of the lexicon: the words after the superlative name the metric, and
        # its papers' sentences putting a number on it are quoted, not ranked.
        metric = "" if measure else superlative_metric(question, lexicon)
        asked = lexicon.measures[measure].question if measure else metric.split()
        said = {w.lower().removesuffix("s") for phrase in asked for w in phrase.split()}
        said |= {w.removesuffix("s") for w in qualifying}
        kept = [w for w in topic.split() if w.lower().removesuffix("s") not in said]
        # "the best occupancy IoU": the metric is the topic too, but not of the last answer's
        # papers ("which of those has the highest human agreement?": the metric alone).
        within = listed_ids(question, conversation, lexicon)
        if said:
            left = topic_of(" ".join(kept), lexicon, framing, catalog)
            topic = left if left or within else topic
        return Plan(
            kind=K.RESULTS,
            topic=topic,
            filters=filters,
            measure=measure,
            metric=metric,
            paper_ids=ids,
            named=named,
            within=within,
            follow_up=bool(within),
        )
    if kind in (K.LIST, K.COUNT, K.SHARE) and not topic and earlier is not None:
        # "ok list them all", "how many are there?": the last list's topic and filters.
        topic, filters = earlier.topic, earlier.filters
    if group_by and not quoted_spans(rest):
        # "Which areas have the most papers?": ranking and grouped words are the table's, no topic.
        grouped = {w for words in lexicon.group_words.values() for w in words}
        grouped |= set(lexicon.track_words)
        grouped |= lexicon.ranking_words
        kept = [w for w in topic.split() if w.lower().strip("?.,!") not in grouped]
        topic = topic_of(" ".join(kept), lexicon, framing, catalog)
    aspect = lexicon.aspect_asked(question)
    refers = bool(conversation and conversation.turns) and bool(
        set(question.lower().replace("?", " ").split()) & lexicon.reference_words
    )
    return Plan(
        kind=kind,
        # "What challenges does X address?": the aspect noun names the sentence, exactly.
        answer_type=None if kind.collection else aspect or route.answer_type,
        answer_type_p=None if kind.collection or aspect else route.answer_type_p,
        topic=topic if kind.collection or kind == K.DEFINE else clean(rest),
        filters=filters,
        named=named,
        paper_ids=ids,
        group_by=group_by,
        follow_up=refers and not kind.collection,
    )


# Kinds answered by the set of papers on a topic, whose topic is read as papers name topics.
_PAPER_SETS = frozenset(
    {K.LIST, K.COUNT, K.BREAKDOWN, K.SHARE, K.MORE, K.RATING, K.RESULTS, K.AUTHORS, K.CITATIONS}
)


def _split_words(text: str, separators: tuple[str, ...]) -> list[str]:
    """The parts of a text between separator words ("RL or diffusion" -> RL, diffusion)."""
    parts: list[list[str]] = [[]]
    for word in text.split():
        if word.lower().strip(".") in separators:
            parts.append([])
        else:
            parts[-1].append(word)
    return [" ".join(p) for p in parts if p]


def complete_plan(
    plan: Plan, question: str, catalog: Catalog, lexicon: Lexicon, router: Router
) -> Plan:
    """The plan with every field its answerer needs: the kind of sentence asked (the router's
    when a model plan lacks it), how many papers to show, the resource asked for, the sides of
    a comparison of topics. Fields already set (by a model) are kept."""
    kind = plan.kind
    if kind == K.COUNT and plan.group_by:
        kind = K.BREAKDOWN
    update: dict[str, object] = {"kind": kind}
    words = [w.strip("?.,!;:\"'") for w in question.lower().split()]
    if not kind.collection:
        if plan.answer_type is None:
            route = router.route(question, len(plan.paper_ids))
            update["answer_type"], update["answer_type_p"] = route.answer_type, route.answer_type_p
        if not plan.parts:
            update["parts"] = asked_parts(question, len(plan.paper_ids), router, lexicon)
    elif kind == K.COMPARE:
        update["shown"] = plan.shown or wanted_count(question, lexicon)
        if not plan.paper_ids and not plan.sides:
            update["sides"] = compared_sides(question, lexicon)
    else:
        update["shown"] = plan.shown or asked_count(question, lexicon)
        if not plan.aspect and (asked := listed_aspect(question, lexicon)):
            update["aspect"] = asked[1]
        if not plan.resource and plan.group_by == "name":
            # "Which benchmarks are most used for X?": the kind of names counted.
            update["resource"] = next((w for w in words if w in lexicon.group_words["name"]), "")
        elif not plan.resource:
            update["resource"] = introduced_kind(words, lexicon)
    return plan.model_copy(update=update)


def introduced_kind(words: list[str], lexicon: Lexicon) -> str:
    """The kind of resource a list question asks papers to introduce ("benchmark" for "papers
    that propose a new benchmark", "what benchmarks are introduced"), or "": a resource word
    next to a contribution verb (within three words)."""
    verbs = lexicon.contribution_stems
    for i, word in enumerate(words):
        kind = lexicon.resource_in([word])
        if kind and any(w.startswith(verbs) for w in words[max(0, i - 4) : i + 4]):
            return kind
    return ""


def wanted_count(question: str, lexicon: Lexicon) -> int:
    """How many papers "compare the two papers on X" asks for (2 when unsaid)."""
    found = [n for _a, _b, n in lexicon.numbers_in(question) if 2 <= n <= 9]
    return found[0] if found else 2


def asked_count(question: str, lexicon: Lexicon) -> int | None:
    """How many papers a list question asks to see ("give me six papers on X"), if it says:
    a number followed, within two words, by a word for papers."""
    lower = question.lower()
    for _start, end, n in lexicon.numbers_in(question):
        after = [w.strip("?.,!;:") for w in lower[end:].split()[:2]]
        if any(w.rstrip("s") in _PAPER_NOUNS for w in after) and n < 100:
            return n
    return None


_PAPER_NOUNS = frozenset(["paper", "oral", "poster", "work", "article", "abstract", "submission"])


class Planner:
    """Turns a question into a Plan: rules over the catalog, or a model's structured output."""

    def __init__(
        self,
        catalog: Callable[[], Catalog],
        router: Router,
        lexicon: Lexicon,
        llm: LLM | None = None,
        prompt: Prompt | None = None,
        english: Callable[[], frozenset[str]] = frozenset,
        language: Callable[[str], str] | None = None,
    ) -> None:
        self.catalog = catalog
        # Which language a question is in (rag.questions.language.LanguageReader).
        self.language = language
        # Of a question in another language, English words no paper writes ("brewing") stay.
        self.english = english
        self.router = router
        self.lexicon = lexicon
        self.llm = llm
        self.prompt = prompt or load_prompt("plan")
        # The labelled questions marked few-shot (rag/data/examples.jsonl), shown to the model.
        self.examples = few_shot(load_examples())

    def plan(
        self, question: str, conversation: Conversation | None = None, use_model: bool = True
    ) -> Plan:
        """The plan of a question: the model's when one plans, else the rules'.

        A model reply that is not a valid plan falls back to the rules plan, marked
        `source="fallback"` with the reason; a provider error (bad key, server down) is
        raised, never hidden behind an offline plan.
        """
        catalog = self.catalog()
        # A question in another language is read in English words (its glossary's).
        language, read = reading(question, self.lexicon, self.language)
        rules = rule_plan(
            read,
            catalog,
            conversation,
            router=self.router,
            lexicon=self.lexicon,
            english=not language,
        )
        rules = in_language(rules, question, language, self.lexicon, catalog, self.english)
        if (
            not use_model
            or self.llm is None
            or not hasattr(self.llm, "structured")
            # The model plans one question alone; narrowing the last list needs the
            # conversation, and the papers nearest a named one (or writing a benchmark's
            # results) are the catalog's to find.
            or rules.within
            or narrows(rules)
            # A question in another language is always the model's to read and rewrite.
            or (
                rules.kind
                in (K.SIMILAR, K.RESULTS, K.AUTHORS, K.MORE, K.CITATIONS, K.RATING, K.THEMES)
                and not rules.language
            )
        ):
            return referred(rules, question, conversation, self.lexicon)
        prompt = self.prompt.render(
            decisions=", ".join(catalog.decisions) or "none",
            areas="; ".join(catalog.areas),
            examples=self.examples,
        )
        # Provider errors propagate: only a bad reply, not a bad provider, falls back.
        reply, usage = self.llm.structured(prompt, question, "plan", plan_schema())  # type: ignore[union-attr]
        try:
            plan = self._model_plan(reply, question, catalog, rules)
        except (ValidationError, ValueError, KeyError, TypeError) as exc:
            if isinstance(exc, ValidationError):
                err = exc.errors()[0]
                reason = f"{'.'.join(map(str, err['loc']))}: {err['msg']}"
            else:
                reason = str(exc)
            reason = f"model plan rejected ({reason[:200]}); planned by rules"
            plan = rules.model_copy(update={"source": "fallback", "rejected": reason})
        plan.language = plan.language or rules.language
        plan.usage = usage
        return referred(plan, question, conversation, self.lexicon)

    def _model_plan(self, reply: str, question: str, catalog: Catalog, rules: Plan) -> Plan:
        """The model's reply as a Plan, checked against the catalog; raises when invalid."""
        try:
            data = json.loads(reply)
        except ValueError as exc:
            raise ValueError(f"the model's reply is not JSON: {reply[:80]!r}") from exc
        if not isinstance(data, dict):
            raise TypeError(f"the model's reply is not a JSON object: {reply[:80]!r}")
        plan = Plan.model_validate({**data, "source": "model", "rejected": "", "usage": None})
        f = plan.filters
        # The model's filter values must be the catalog's own, or they would match nothing.
        if f.decision and f.decision not in catalog.decisions:
            match = [d for d in catalog.decisions if d.lower() == f.decision.lower().rstrip("s")]
            if not match:
                raise ValueError(f"unknown decision {f.decision!r}")
            f.decision = match[0]
        if f.area and f.area not in catalog.areas:
            area = catalog.area_named(f.area)
            if area is None:
                raise ValueError(f"unknown area {f.area!r}")
            f.area = area
        ids: list[str] = []
        for name in plan.named:
            found = catalog.names.resolve(name) or catalog.names.find(name, fuzzy=True)
            ids.extend(i for i in found if i not in ids)
        if plan.kind in (K.COUNT, K.BREAKDOWN) and plan.group_by is None:
            plan.group_by = rules.group_by
        # The schema asks the model for decision, area and keyword; a title filter is read
        # from the words.
        f.title = f.title or rules.filters.title
        f.min_rating = f.min_rating or rules.filters.min_rating
        # Names the question writes are the catalog's facts, whatever the model noticed.
        plan.paper_ids = ids + [i for i in rules.paper_ids if i not in ids]
        return complete_plan(plan, question, catalog, self.lexicon, self.router)
