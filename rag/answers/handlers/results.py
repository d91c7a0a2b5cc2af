"""Results the papers state: on a named benchmark, or the largest of an asked measure."""

from __future__ import annotations

import re
from collections.abc import Callable

from rag.answers.handlers.context import Context
from rag.answers.handlers.listing import matched
from rag.answers.handlers.quoting import SHOWN, list_answer, paper_match
from rag.cues import Cues
from rag.models import Answer, Citation, Plan, SearchHit
from rag.retrieval.matching import Match
from rag.store.catalog import Catalog
from rag.store.markup import bold
from rag.text import content_terms, whole_word

# A number and its unit: a factor ("3.5×", "12x", "two-fold" in digits) or a percent ("4%").
_AMOUNT = re.compile(
    r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:(?P<factor>\$?\s*\\times|×|x(?![\w-])|times\b|-?fold\b)"
    r"|(?P<percent>\\?%|percent\b))",
    re.IGNORECASE,
)
BEFORE, AFTER = 25, 40  # characters from a number to its measure's word, before and after


def _value(cues: Cues, measure: str, sentence: str) -> float | None:
    """The largest number the sentence states for the measure, near its words; None when it
    states none ("12% fewer tokens" is no accuracy)."""
    word, factor = cues.measure(measure)
    # "a 5× speedup", "a speedup of up to 13.8×": the number just before its word or a little
    # after it, not "18× less memory, and … a speedup" (a clause away).
    near = [(m.start() - BEFORE, m.end() + AFTER) for m in word.finditer(sentence)]

    stated = [m for m in _AMOUNT.finditer(sentence) if any(a <= m.start() <= b for a, b in near)]
    percents = [float(m.group(1)) for m in stated if m["percent"]]
    if not factor:
        return max(percents, default=None)
    factors = [float(m.group(1)) for m in stated if m["factor"]]
    if cues.says("reduces", sentence):
        # "cuts memory by 75%" is a 4× reduction.
        factors += [100 / (100 - p) for p in percents if 0 < p < 100]
    return max(factors, default=None)


def _show(cues: Cues, measure: str, value: float) -> str:
    """The value as the measure reads: "3.5×" for a factor, "12%" for a percent."""
    return f"{value:.3g}×" if cues.measure(measure)[1] else f"{value:g}%"


_NUMBER = re.compile(r"(?<![\w.-])\d+(?:\.\d+)?(?![\w-])")


def results(ctx: Context, question: str, plan: Plan) -> Answer | None:
    """The papers stating what a results question asks; None when the topic matches nothing."""
    found = matched(ctx, question, plan)
    if isinstance(found, Answer):
        return found
    if not found.matches:
        return None
    return _stated(ctx, question, plan, ctx.cat, found.matches, found.rule)


def _over(n: int, plan: Plan, rule: str, about: str) -> str:
    """The n papers a results answer is over: the topic's ("12 papers on “X” (rule)"), the
    previous answer's, or the index's. The rule says how the topic matched; the previous
    answer's papers need no rule."""
    if plan.topic:
        return f"{n} {about} “{plan.topic}” ({rule})"
    if plan.within:
        return f"{n} papers of the previous answer"
    return f"index's {n} papers ({rule})"


def _stated(
    ctx: Context, question: str, plan: Plan, cat: Catalog, matches: list[Match], rule: str
) -> Answer:
    """The papers writing a benchmark's name that state a result on it, each with the
    sentence stating it; listed by relevance, not ranked by their numbers."""
    if plan.measure:
        return _largest(ctx, question, plan, cat, matches, rule)
    name = whole_word(plan.topic)
    # The metric's words as the papers write them, in any form and order ("the highest rate
    # of successful attacks": "attack success rate"); a word with a digit ("top-1") as written.
    wanted = set(content_terms(plan.metric))
    exact = [whole_word(w, plural=True) for w in plan.metric.split() if any(map(str.isdigit, w))]
    metric = bool(wanted)
    stating: list[tuple[Match, str]] = []
    for m in matches:
        sents = cat.sentences[m.index]
        if metric:
            # "The lowest FID on ImageNet": a sentence putting a number on FID.
            stated = [
                s
                for s, terms in zip(sents, cat.sentence_terms[m.index], strict=True)
                if wanted <= set(terms) and all(w.search(s) for w in exact) and _NUMBER.search(s)
            ]
        else:
            stated = [s for s in sents if ctx.cues.reports_result(s)]
        # One naming the topic first ("ImageNet"); the paper writes it somewhere.
        sentence = next((s for s in stated if name.search(s)), stated[0] if stated else None)
        if sentence is not None:
            stating.append((m, sentence))
    n, k = len(matches), len(stating)
    # "25 state their FID on it", "none states a result on it".
    result = f"{'its' if k <= 1 else 'their'} {plan.metric}" if metric else "a result"
    shown = max(1, min(SHOWN, plan.shown or SHOWN))
    # "Which of those has the highest human agreement?": no topic, the last answer's papers.
    subject = _over(n, plan, rule, "paper that writes" if n == 1 else "papers that write")
    on_it = " on it" if plan.topic else ""
    if not stating:
        lead = f"Of the {subject}, none states {result}{on_it} in its abstract."
        names = lambda s: metric and wanted <= set(content_terms(s))  # noqa: E731
        return _nearest(ctx, question, plan, cat, matches, shown, lead, rule, names)
    else:
        lead = (
            f"Of the {subject}, {k} {'states' if k == 1 else 'state'} {result}"
            f"{on_it} in the abstract. Their settings (models, budgets, splits) differ, so the "
            "results are quoted as written, not ranked"
            + (f"; the {shown} most relevant follow." if k > shown else ":")
        )
    return _quoted(ctx, question, plan, cat, stating, shown, lead, rule)

def _largest(
    ctx: Context, question: str, plan: Plan, cat: Catalog, matches: list[Match], rule: str
) -> Answer:
    """The topic's papers stating the asked measure ("the largest speedup for LLM
    inference"), each with its sentence, ordered by the largest number it states."""
    word, _factor = ctx.cues.measure(plan.measure)
    valued: list[tuple[float, Match, str]] = []
    for m in matches:
        best: tuple[float, str] | None = None
        for sentence in cat.sentences[m.index]:
            if not word.search(sentence):
                continue
            value = _value(ctx.cues, plan.measure, sentence)
            if value is not None and (best is None or value > best[0]):
                best = (value, sentence)
        if best is not None:
            valued.append((best[0], m, best[1]))
    # Best first; a tie keeps the relevance order.
    valued.sort(key=lambda t: -t[0])
    stating = [(m, sentence) for _v, m, sentence in valued]
    n, k = len(matches), len(stating)
    shown = max(1, min(SHOWN, plan.shown or SHOWN))
    # "Which one is faster?" after a comparison or a list: those papers.
    on = _over(n, plan, rule, "paper on" if n == 1 else "papers on")
    if not stating:
        lead = f"Of the {on}, none states its {plan.measure} with a number in its abstract."
        names = lambda s: bool(word.search(s))  # noqa: E731
        return _nearest(ctx, question, plan, cat, matches, shown, lead, rule, names)
    else:
        value, top, _s = valued[0]
        largest = _show(ctx.cues, plan.measure, value)
        lead = (
            f"Of the {on}, {k} {'states its' if k == 1 else 'state their'} {plan.measure} "
            f"with a number in the abstract. The largest stated is {largest}, by "
            f"{bold(cat.papers[top.index].title)} [1]. Each paper's own setting (models, "
            "hardware, baselines) differs, so these are claims as written, ordered by their "
            "numbers, not a controlled ranking"
            + (f"; the {shown} largest follow." if k > shown else ":")
        )
    if plan.within and not plan.topic and 0 < k < n:
        # "Which one is faster?": the compared papers stating none are named.
        stated = {m.index for m, _s in stating}
        silent = [bold(cat.papers[m.index].title) for m in matches if m.index not in stated]
        verb = "states" if len(silent) == 1 else "state"
        lead = lead.rstrip(":") + f" ({' and '.join(silent)} {verb} none):"
    return _quoted(ctx, question, plan, cat, stating, shown, lead, rule)


def _nearest(
    ctx: Context,
    question: str,
    plan: Plan,
    cat: Catalog,
    matches: list[Match],
    shown: int,
    lead: str,
    rule: str,
    names: Callable[[str], bool],
) -> Answer:
    """When no paper states what was asked: the most relevant papers, each with the sentence
    that `names` the asked measure, else a result it puts a number on, so the reader sees what
    they claim instead of nothing."""

    def nearest(sentences: list[str]) -> str | None:
        return next((x for x in sentences if names(x)), None) or next(
            (x for x in sentences if ctx.cues.reports_result(x) and ctx.cues.states_amount(x)),
            None,
        )

    reported = [(m, x) for m in matches if (x := nearest(cat.sentences[m.index]))][:shown]
    if reported:
        lead += " The most relevant, each with what its abstract says nearest to it:"
    return _quoted(ctx, question, plan, cat, reported, shown, lead, rule, stated=False)


def _quoted(
    ctx: Context,
    question: str,
    plan: Plan,
    cat: Catalog,
    stating: list[tuple[Match, str]],
    shown: int,
    lead: str,
    rule: str,
    stated: bool = True,
) -> Answer:
    """An answer listing papers each with the sentence that states what was asked (`stated`),
    or with the nearest they state."""
    citations = [
        Citation(
            n=i,
            paper_id=cat.papers[m.index].id,
            title=cat.papers[m.index].title,
            url=cat.papers[m.index].url,
            quote=sentence,
        )
        for i, (m, sentence) in enumerate(stating[:shown], start=1)
    ]
    return list_answer(
        question,
        lead,
        citations,
        # Nearest sentences are context, as a detail refusal's closest sentence is: still a refusal.
        refused=not stating or not stated,
        sources=[SearchHit(paper=cat.papers[m.index], score=m.score) for m, _s in stating],
        plan=plan,
        papers=[paper_match(ctx, m) for m, _s in stating],
        count=len(stating) if stated else 0,
        rule=rule,
    )
