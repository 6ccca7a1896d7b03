"""The ``longctx`` environment: aggregation questions over a document longer than the context.

A task is a generated document of ``num_chunks`` chunks of ``records_per_chunk`` records
(``record 17: city=oslo, colour=red, amount=42``) and one question over all of it (task types,
round-robin: ``count``, ``sum``, ``max``, ``most_frequent``; see ``questions``). The agent reads
one chunk per step and answers once:

- ``read <chunk>`` shows that chunk (any chunk of the episode's range, again if need be);
- ``answer <value>`` ends the episode, won iff the value is right (``answer 17``,
  ``answer oslo``; a sub-question ``tally city`` is answered ``answer lima=5, oslo=3``).

Anything else, a chunk outside the range or an answer of the wrong shape is invalid
(``invalid_observation``; ``info["error"]`` says why). Answers are free text, so
``free_form_actions`` is set; ``admissible_actions()`` lists the ``read`` commands.

Recursion. A parent delegates the same question over fewer chunks, in the grammar of
``coevo.envs.longctx.goals`` (``count records with colour=red in chunks 4-7``; under ``most
frequent city``, ``tally city in chunks 4-7``). The child reads only its chunks and is won iff
its answer is right. ``join(child)`` records the child's answer as the parent's knowledge of
those chunks and returns ``"<child's question>: <its answer>"`` (``"... : no answer"`` when it
gave none); the parent still answers itself. The recursive oracle reads ranges of at most
``expert_leaf_chunks`` chunks itself and splits bigger ones into ``expert_fanout`` sub-goals
(``expert_delegations()``); ``expert_action()`` reads the chunks nobody has covered yet, then
answers. With ``expert_think`` the oracle's answer after reading shows its work
(``expert_reply``): ``<think>rome: delhi 0 rome 1 perth 0</think><action>answer 1</action>`` — the
filter value, then each record's value of the question's field and whether it matches — so that a
small model gets a supervised token per comparison rather than one for the count; a parent's count
or sum after its sub-agents' reports writes the addition (``<think>2 + 3 = 5</think>``).
``expert_marks=compare`` writes the comparison itself, ``delhi=rome 0 rome=rome 1``: each mark then
follows the two values it compares rather than a filter written once at the start. Measured, it is
not reliably learned sooner (packages/rao/README.md, Measured); the default stays ``match``.

Length. ``document_tokens(tokenizer)`` is the episode's document length in tokens;
``chunks_for_context(multiple, context_tokens, tokenizer)`` is the ``num_chunks`` that makes
documents ``multiple`` context windows long (set it as ``env.num_chunks``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from coevo.core import registry
from coevo.core.env.actions import format_action
from coevo.core.env.protocol import Task
from coevo.core.fields import bounded, choice, random_seed
from coevo.envs.longctx import length
from coevo.envs.longctx.document import Document
from coevo.envs.longctx.goals import GRAMMAR, check_subgoal, parse_goal
from coevo.envs.longctx.questions import ROOT_KINDS, Question
from coevo.envs.longctx.tasks import generate_task
from coevo.envs.procedural import OOD_SPLIT, ood_knob
from coevo.envs.recursive import Outcome, RecursiveEnv, small_int

MARK_STYLES = ("match", "compare")  # env.expert_marks: how a leaf that thinks writes a record's mark

EXAMPLE_RECORD = "record 17: city=oslo, colour=red, amount=42"


def _default_kinds() -> list[str]:
    return list(ROOT_KINDS)


@dataclass(frozen=True)
class _State:
    read: frozenset[int] = frozenset()  # chunks this agent has read
    reports: tuple[tuple[Question, str], ...] = ()  # joined children's questions and answers
    answer: str | None = None  # this agent's answer (canonical form), once given


@registry.envs.register("longctx")
class LongCtxEnv(RecursiveEnv):
    """Aggregation questions over chunked generated documents, read one chunk per step."""

    name = "longctx"
    task_types = ROOT_KINDS
    free_form_actions = True
    invalid_observation = "Invalid action. Use 'read <chunk>' with a chunk of your range, or 'answer <value>'."
    goal_grammar = GRAMMAR

    @dataclass
    class Config:
        seed: int = random_seed(0)  # base seed; each task's seed derives from (split, index, seed)
        num_chunks: int = bounded(8, ge=1)  # chunks per document in train and eval_in_distribution
        # chunks in eval_out_of_distribution (more than num_chunks); 0: 4 × num_chunks
        ood_num_chunks: int = bounded(0, ge=0)
        records_per_chunk: int = bounded(10, ge=1)  # records per chunk (one line each)
        # k > 0: a document uses only k cities and k colours (more matches); 0: all
        values_per_field: int = bounded(0, ge=0)
        # round-robin by task index
        question_kinds: list[str] = choice(_default_kinds, ROOT_KINDS, length=(1, None))
        # steps per episode; 0: the episode's chunks + 5 (read all, answer, slack)
        max_steps: int = bounded(0, ge=0)
        expert_leaf_chunks: int = bounded(2, ge=1)  # the recursive oracle reads ranges of at most this many chunks
        expert_fanout: int = bounded(2, ge=2)  # and splits bigger ranges into this many sub-goals
        # the oracle's answer after reading shows its work, one mark per record read:
        # <think>rome: delhi 0 rome 1 …</think> (the filter value, then each record's value of the
        # question's field and 1 if it matches); a parent's count/sum after reports: <think>2 + 3 = 5</think>
        expert_think: bool = False
        # how a leaf writes each record's mark: match (delhi 0 rome 1) or compare (delhi=rome 0
        # rome=rome 1: the filter beside each value, so the 1/0 follows the two values it compares)
        expert_marks: str = choice("match", MARK_STYLES)
        eval_in_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_in_distribution"
        eval_out_of_distribution_size: int = bounded(60, ge=1)  # tasks in split "eval_out_of_distribution"

    def __init__(self, config: Config | None = None):
        super().__init__()
        self.config = c = config if config is not None else self.Config()
        unknown = [k for k in c.question_kinds if k not in ROOT_KINDS]
        if unknown or not c.question_kinds:
            raise ValueError(f"env.question_kinds must be a non-empty subset of {list(ROOT_KINDS)}; got {unknown}")
        if c.num_chunks < 1 or c.records_per_chunk < 1:
            raise ValueError("env.num_chunks and env.records_per_chunk must be at least 1")
        if c.values_per_field < 0:
            raise ValueError(f"env.values_per_field must be 0 (all values) or positive, got {c.values_per_field}")
        if c.expert_leaf_chunks < 1 or c.expert_fanout < 2:
            raise ValueError("env.expert_leaf_chunks must be at least 1 and env.expert_fanout at least 2")
        if c.expert_marks not in MARK_STYLES:
            raise ValueError(f"env.expert_marks must be one of {list(MARK_STYLES)}, got {c.expert_marks!r}")
        self.ood_num_chunks = ood_knob("num_chunks", c.num_chunks, c.ood_num_chunks, 4 * c.num_chunks)
        self._document: Document | None = None
        self._question: Question | None = None
        self._s = _State()

    def task_type_at(self, index: int) -> str:
        return self.config.question_kinds[index % len(self.config.question_kinds)]

    def chunks_of(self, split: str) -> int:
        """The difficulty knob's value for ``split``: chunks per document."""
        return self.ood_num_chunks if split == OOD_SPLIT else self.config.num_chunks

    # -- episode --------------------------------------------------------------------------------
    def _start(self, task: Task) -> str:
        document, question = generate_task(
            task.seed, task.task_type, self.chunks_of(task.split), self.config.records_per_chunk,
            self.config.values_per_field,
        )
        return self._begin(document, question)

    def _begin(self, document: Document, question: Question) -> str:
        self._document, self._question, self._s = document, question, _State()
        self.max_steps = self.config.max_steps or question.num_chunks + 5
        return (
            f"The document has {document.num_chunks} chunks of {document.records_per_chunk} records, one per "
            f'line, like "{EXAMPLE_RECORD}". Your chunks: {question.first}-{question.last}.\n'
            f"Question: {question.text}.\n{question.answer_rule()}\n"
            "Actions: 'read <chunk>' shows a chunk; 'answer <value>' ends the episode."
        )

    def _apply(self, command: str) -> Outcome:
        question = self.question
        verb, _, rest = command.lower().partition(" ")
        if verb == "read":
            chunk = small_int(rest)
            if chunk is None or not question.first <= chunk <= question.last:
                return self.invalid(f"'read' takes a chunk number in {question.first}-{question.last}")
            self._s = _State(self._s.read | {chunk}, self._s.reports, self._s.answer)
            return Outcome(self.document.chunk_text(chunk))
        if verb == "answer":
            given = question.parse_answer(rest)
            if given is None:
                return self.invalid(f"malformed answer {rest!r}: {question.answer_rule()}")
            self._s = _State(self._s.read, self._s.reports, given)
            won = given == question.truth(self.document)
            return Outcome("Correct." if won else "Wrong answer.", won=won, finished=True)
        return self.invalid(f"unknown command {command!r}")

    def admissible_actions(self) -> list[str]:
        question = self.question
        return [f"read {i}" for i in range(question.first, question.last + 1)]

    @property
    def goal(self) -> str:
        return self.question.text

    @property
    def question(self) -> Question:
        self._require_started()
        return self._question

    @property
    def document(self) -> Document:
        self._require_started()
        return self._document

    @property
    def answer_given(self) -> str | None:
        """This agent's answer in canonical form (``None`` until it answers)."""
        return self._s.answer

    def _state(self) -> Any:
        return (self._document, self._question, self._s)

    def _set_state(self, state: Any) -> None:
        self._document, self._question, self._s = state

    def memory(self) -> str | None:
        parts = []
        if self._s.read:
            parts.append("read chunks: " + ", ".join(map(str, sorted(self._s.read))))
        if self._s.reports:
            parts.append("sub-agents: " + "; ".join(f"{q.text} = {a}" for q, a in self._s.reports))
        return "; ".join(parts) or None

    # -- recursion ------------------------------------------------------------------------------
    def _fork(self, goal: str) -> tuple[LongCtxEnv, str]:
        sub = parse_goal(goal)
        check_subgoal(self.question, sub)
        child = self._new_child(self._task)
        return child, child._begin(self.document, sub)

    def _join(self, child: LongCtxEnv) -> str:
        if child.answer_given is None:
            return f"{child.goal}: no answer"
        self._s = _State(self._s.read, self._s.reports + ((child.question, child.answer_given),), self._s.answer)
        return f"{child.goal}: {child.answer_given}"

    def known_chunks(self) -> set[int]:
        """Chunks read by this agent or answered for by a joined child."""
        known = set(self._s.read)
        for question, _ in self._s.reports:
            known.update(range(question.first, question.last + 1))
        return known

    def expert_delegations(self) -> list[str]:
        if self._task is None or self._done:
            return []
        question, known = self.question, self.known_chunks()
        if question.num_chunks <= self.config.expert_leaf_chunks:
            return []
        parts = split_range(question.first, question.last, self.config.expert_fanout)
        return [
            question.decomposed(first, last).text
            for first, last in parts
            if not known.issuperset(range(first, last + 1))
        ]

    def _expert_action(self) -> str:
        question, known = self.question, self.known_chunks()
        unread = [i for i in range(question.first, question.last + 1) if i not in known]
        return f"read {unread[0]}" if unread else f"answer {question.truth(self.document)}"

    def expert_reply(self, action: str) -> str:
        """With ``expert_think``, an answer shows its work: one mark per record read and, for a
        count or sum after sub-agents' reports, the addition (``record_marks``, ``report_sum``)."""
        if not (self.config.expert_think and action.startswith("answer ")):
            return format_action(action)
        work = "; ".join(part for part in (self.record_marks(), self.report_sum()) if part)
        return format_action(action, work or None)

    def report_sum(self) -> str:
        """``3 + 4 = 7``: for a count or sum answered from sub-agents' reports, the terms in chunk
        order — this agent's own total over the chunks it read, then each report — and their total;
        ``""`` without reports, for other kinds, or if a report is not a number."""
        question, reports = self.question, self._s.reports
        if not reports or question.kind not in ("count", "sum"):
            return ""
        terms = []
        if self._s.read:  # its own total: the question's true answer per chunk read, added up
            own = sum(int(question.over(chunk, chunk).truth(self.document)) for chunk in self._s.read)
            terms.append((min(self._s.read), own))
        for sub, answer in reports:
            if not answer.isdigit():
                return ""
            terms.append((sub.first, int(answer)))
        values = [value for _, value in sorted(terms, key=lambda term: term[0])]
        return " + ".join(map(str, values)) + f" = {sum(values)}"

    def record_marks(self) -> str:
        """``rome: delhi 0 rome 1 lima 0``: the filter value (count/sum/max), then per record of the
        chunks this agent read its value of the question's field and 1/0 (matches the filter or not);
        with ``expert_marks=compare`` each value is written against the filter (``delhi=rome 0``);
        values only for most_frequent/tally; ``""`` if nothing was read."""
        question, document = self.question, self.document
        values = [r.value(question.field) for chunk in sorted(self._s.read) for r in document.chunk(chunk)]
        if not values or not question.value:
            return " ".join(values)
        against = f"={question.value}" if self.config.expert_marks == "compare" else ""
        return f"{question.value}: " + " ".join(f"{v}{against} {int(v == question.value)}" for v in values)

    # -- length ---------------------------------------------------------------------------------
    def document_tokens(self, tokenizer: Any) -> int:
        """Tokens of this episode's whole document (every chunk as ``read`` shows it)."""
        return length.document_tokens(self.document, tokenizer)

    def chunks_for_context(self, multiple: float, context_tokens: int, tokenizer: Any) -> int:
        """The ``num_chunks`` for documents ``multiple`` × ``context_tokens`` long (this config's chunks)."""
        return length.chunks_for_context(
            multiple, context_tokens, tokenizer, records_per_chunk=self.config.records_per_chunk,
            seed=self.config.seed,
        )


def split_range(first: int, last: int, parts: int) -> list[tuple[int, int]]:
    """``first..last`` cut into ``parts`` consecutive ranges as equal as possible (fewer if short)."""
    size = last - first + 1
    parts = min(parts, size)
    bounds = [first + (size * k) // parts for k in range(parts + 1)]
    return [(bounds[k], bounds[k + 1] - 1) for k in range(parts)]

