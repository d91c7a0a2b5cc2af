"""Turning a follow-up ("what dataset did it use?") into a standalone question."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rag.lexicon import Lexicon
from rag.models import AnswerType, Conversation, QuestionKind
from rag.prompts import Prompt
from rag.questions.conversation import HISTORY_TURNS, last_cited, last_list, narrows
from rag.questions.topic import topic_of
from rag.text import content_terms

# LlamaIndex costs over a second to import: the offline (heuristic) path never needs it.
if TYPE_CHECKING:
    from llama_index.core.llms import LLM

def _run(question: str, lexicon: Lexicon) -> tuple[str, str] | None:
    """"Compare the first two", "the top 3", "the last two papers": a run word of the last list
    and the word after it (not an amount: "the top 5%")."""
    words = question.split()
    for i, word in enumerate(words[:-1]):
        head, nxt = _head(word), _head(words[i + 1])
        if head != word or head.lower() not in lexicon.run_words or not nxt:
            continue
        rest = " ".join([words[i + 1][len(nxt) :], *words[i + 2 : i + 3]]).strip().lower()
        if not any(
            rest.startswith(unit) and not _head(rest[len(unit) :])[:1].isalnum()
            for unit in lexicon.not_run_units
        ):
            return head, nxt
    return None


def _head(word: str) -> str:
    """A word's leading letters, digits and underscores ("two?" -> "two")."""
    return word[: next((i for i, c in enumerate(word) if not (c.isalnum() or c == "_")), None)]


def _without_ordinals(text: str, lexicon: Lexicon, by: str) -> str:
    for start, end, _index in reversed(lexicon.ordinals(text)):
        text = text[:start] + by + text[end:]
    return text


def refers_back(question: str, lexicon: Lexicon) -> bool:
    """Whether the question points at papers of the last answer ("it", "the second one")."""
    return bool(
        _singular(question, lexicon)
        or lexicon.says(question, "plural")
        or lexicon.ordinals(question)
        or _run(question, lexicon)
    )


def _singular(question: str, lexicon: Lexicon) -> bool:
    """"it", "the paper", or an opener asking again ("and …?", "what about …?")."""
    words = question.lower().split()
    opens = any(
        words[: len(o.split())] == o.split() for o in lexicon.follow_up_words["openers"]
    )
    return opens or lexicon.says(question, "singular")


class Condensed:
    """A standalone question, and the papers a follow-up refers to (when known)."""

    def __init__(
        self, question: str, paper_ids: list[str] | None = None, asked: str | None = None
    ) -> None:
        # `asked`: the question to answer in words, when the user's words leave it unsaid
        # ("and the SHAPO paper?" asks "Which models did it evaluate?").
        self.question, self.paper_ids, self.asked = question, paper_ids, asked


def heuristic_condense(
    question: str,
    conversation: Conversation | None,
    lexicon: Lexicon,
    answer_type: AnswerType | None = None,
) -> Condensed:
    """Resolve references from the latest answer's cited papers, without a model;
    `answer_type` is the plan's (a follow-up asking for a kind of sentence has a topic)."""
    cites = last_cited(conversation)
    if not cites:
        return Condensed(question)
    if (searched := _new_search(question, conversation, lexicon)) is not None:
        return searched
    run = _run(question, lexicon)
    size = lexicon.number(run[1]) if run else None
    if size is None or not 2 <= size <= 9:
        run = None
    ordinals = [index for _start, _end, index in lexicon.ordinals(question)]
    if run:
        listed = last_list(conversation) or cites
        picked = listed[-size:] if run[0].lower() == "last" else listed[:size]
    elif ordinals:
        # "the first and the third": each in turn, counted through the last list.
        listed = last_list(conversation) or cites
        picked = [listed[i] for i in ordinals if -len(listed) <= i < len(listed)]
        if not picked:
            return Condensed(question)
    elif lexicon.says(question, "plural"):
        # "both" after "and the second one?" still means the papers of the last list; "they"
        # after an answer about one paper is its authors ("Which models did they evaluate?").
        picked = (
            (last_list(conversation, several=True) or cites)
            if lexicon.says(question, "several")
            else list(cites)
        )
    elif _singular(question, lexicon) or len(question.split()) <= 4:
        picked = [cites[0]]
    else:
        return Condensed(question)
    titles = "; ".join(c.title for c in picked)
    ids = [c.paper_id for c in picked]
    asked = _last_asked(conversation, lexicon) if lexicon.opens_again(question) else None
    if asked:
        # "What speedup does the second one report?" then "And the first?": the same question.
        return Condensed(f"{asked} (about: {titles})", ids, asked)
    if not _has_topic(question, answer_type, lexicon):
        # "and the second one?" asks for the paper itself: a question made of its title makes
        # the answerer pick the paper's central sentences instead of refusing a contentless query.
        verb = "is" if len(picked) == 1 else "are"
        return Condensed(f"What {verb} {titles} about?", ids)
    return Condensed(f"{question} (about: {titles})", ids)


# "and the SHAPO paper?", "what about Qronos?": the last question, asked of another paper.
def _without_about(question: str) -> str:
    """A standalone question without the papers it was asked of ("… (about: SHAPO)")."""
    at = question.find("(about: ")
    return question[:at].rstrip() if at >= 0 and question.endswith(")") else question


def _the_subject_it(question: str, lexicon: Lexicon) -> str:
    """"Which models did the quantization paper evaluate?" -> "… did it evaluate?": "the", up
    to three words and a subject noun, made "it"."""
    words, out, i = question.split(" "), [], 0
    while i < len(words):
        end = _subject_end(words, i, lexicon)
        if end is None:
            out.append(words[i])
            i += 1
        else:
            out.append("it" + words[end][len(_head(words[end])) :])
            i = end + 1
    return " ".join(out)


def describes_one(question: str, lexicon: Lexicon) -> bool:
    """Whether the question points at one paper by describing it ("the video super-res
    paper", "this paper on differentiable simulators") rather than by its name."""
    words = question.split(" ")
    singular = lexicon.follow_up_words["singular"]
    return any(
        _subject_end(words, i, lexicon) is not None
        or (
            words[i].lower() in singular
            and i + 1 < len(words)
            and _head(words[i + 1]).lower() in lexicon.subject_nouns
        )
        for i in range(len(words))
    )


def _subject_end(words: list[str], i: int, lexicon: Lexicon) -> int | None:
    """Where a subject ("the quantization paper") starting at word i ends, or None."""
    if words[i].lower() != "the":
        return None
    for j in range(i + 1, min(i + 5, len(words))):
        if _head(words[j]).lower() in lexicon.subject_nouns:
            return j
        if not words[j] or not all(c.isalnum() or c in "_-" for c in words[j]):
            return None
    return None


def elliptic_follow_up(
    question: str,
    conversation: Conversation | None,
    lexicon: Lexicon,
    written: list[str],
    titles: list[str],
    ids: list[str],
) -> Condensed | None:
    """'and the SHAPO paper?' after 'Which models did they evaluate?': the last question,
    asked of the paper this one names (`written` as the question writes it); None when the
    question is not elliptic."""
    last = conversation.last if conversation else None
    if last is None or not titles or not written or not lexicon.opens_again(question):
        return None
    plan = last.answer.plan
    if plan and plan.named and not lexicon.opens_again(last.question):
        # "What does Qronos do?" then "and AMiD?": the name swapped.
        asked = last.question
        for name in plan.named:
            asked = re.sub(re.escape(name), " and ".join(written), asked, flags=re.IGNORECASE)
        return Condensed(asked, ids, asked)
    asked = _without_about(last.answer.standalone_question or last.question)
    if not asked or lexicon.opens_again(asked):
        return None
    # "Which models did the quantization paper evaluate?": its paper is now the named one.
    asked = _the_subject_it(asked, lexicon)
    return Condensed(f"{asked} (about: {'; '.join(titles)})", ids, asked)


def _last_asked(conversation: Conversation | None, lexicon: Lexicon) -> str | None:
    """The last question about a paper, its reference made "it"; None after a list, a count
    or a comparison, whose question is no question about one paper."""
    last = conversation.last if conversation else None
    if last is None or (last.answer.plan and last.answer.plan.kind.collection):
        return None
    asked = _without_about(last.answer.standalone_question or last.question)
    if not asked or lexicon.opens_again(asked):
        return None
    return _without_ordinals(_the_subject_it(asked, lexicon), lexicon, "it")


def implicit_follow_up(question: str, conversation: Conversation | None) -> Condensed | None:
    """A question the collection is silent on alone, read as about the last answer's papers."""
    last = conversation.last if conversation else None
    cites = last.answer.citations if last and not last.answer.refused else []
    if not cites:
        return None
    titles = "; ".join(c.title for c in cites)
    return Condensed(f"{question} (about: {titles})", [c.paper_id for c in cites])


def _new_search(
    question: str, conversation: Conversation | None, lexicon: Lexicon
) -> Condensed | None:
    """"and for quantization?" after a list on compressing LLMs: a search of its own words
    beside the list's topic, about none of the papers shown; None when the question points
    at them ("it", "those", "the second one") or writes no words of its own."""
    last = conversation.last if conversation else None
    plan = last.answer.plan if last else None
    again = lexicon.opens_again(question)
    # After a list (of any length: the user browses a topic), or ("and for …?") a search
    # named by no paper; after one paper asked for ("Tell me about the paper on …"), a
    # question is about it.
    one = last is not None and describes_one(last.question, lexicon)
    browsed = plan is not None and (
        (plan.kind.collection and plan.kind != QuestionKind.COMPARE and (again or not one))
        or (again and plan.kind == QuestionKind.LOOKUP and not plan.paper_ids)
    )
    if last is None or not browsed or lexicon.ordinals(question) or _run(question, lexicon):
        return None
    # An opener alone ("what about one that checks each step …?") points at no paper.
    if lexicon.says(question, "singular") or lexicon.says(question, "plural"):
        return None
    own = topic_of(question, lexicon, lexicon.question_marking)
    if not own:
        return None
    return Condensed(" ".join([own, *_thread(conversation, lexicon)]))


def _thread(conversation: Conversation, lexicon: Lexicon) -> list[str]:
    """The topics of the last question and of the lists it narrowed, latest first: after
    "papers on CLIP" and "mostly about region-level stuff", both "region-level" and "CLIP"."""
    topics = []
    for turn in reversed(conversation.turns[-HISTORY_TURNS:]):
        topics.append(topic_of(turn.question, lexicon, lexicon.question_marking))
        if turn.answer.plan is None or not narrows(turn.answer.plan):
            break
    return [t for t in topics if t]


def _has_topic(question: str, answer_type: AnswerType | None, lexicon: Lexicon) -> bool:
    """Whether a follow-up asks about something beyond the paper it refers to."""
    if answer_type not in (None, "general"):
        # "What do both find?" asks for a finding, though "find" is a stopword.
        return True
    residual = _without_ordinals(question, lexicon, " ")
    words = lexicon.follow_up_words
    for a, b in reversed(lexicon.phrase_spans(residual, words["singular"] + words["plural"])):
        residual = residual[:a] + " " + residual[b:]
    return bool(content_terms(residual))


def history_text(conversation: Conversation, turns: int = HISTORY_TURNS) -> str:
    """The recent conversation as plain text, with the papers each answer cited."""
    lines = []
    for turn in conversation.turns[-turns:]:
        lines.append(f"User: {turn.question}")
        cited = "; ".join(f"[{c.n}] {c.title}" for c in turn.answer.citations)
        summary = turn.answer.text if len(turn.answer.text) < 600 else turn.answer.text[:600] + "…"
        lines.append(f"Assistant: {summary}" + (f"\n(Cited papers: {cited})" if cited else ""))
    return "\n".join(lines)


def model_condense(
    llm: LLM,
    prompt: Prompt,
    question: str,
    conversation: Conversation | None,
    lexicon: Lexicon,
    answer_type: AnswerType | None = None,
) -> Condensed:
    """Ask the model to rewrite a follow-up; a first question is used as it is."""
    from llama_index.core.base.llms.types import ChatMessage

    if not conversation or not conversation.turns:
        return Condensed(question)
    text = prompt.render(history=history_text(conversation), question=question)
    reply = llm.chat([ChatMessage(role="user", content=text)]).message.content or ""
    standalone = reply.strip().strip('"').splitlines()[0].strip() if reply.strip() else ""
    fallback = heuristic_condense(question, conversation, lexicon, answer_type)
    if (
        not standalone
        # Small models sometimes answer instead of rewriting ("Qronos is ..."): searching
        # for that would retrieve the previous answer.
        or (question.rstrip().endswith("?") and not standalone.endswith("?"))
        # Or hand back "what did they evaluate it on?" untouched, leaving "it" unresolved.
        or (_same(standalone, question) and fallback.paper_ids)
    ):
        return fallback
    return Condensed(standalone)


def _same(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())
