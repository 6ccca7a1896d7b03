"""The environment protocol every coevo environment implements.

An environment instance plays one episode at a time. Tasks are addressed by ``(split, index)``
and are deterministic: ``reset(env.task(split, i))`` always produces the identical initial
state, which GRPO groups, RSIPO replays and EVOHEIR's fresh-evidence checks rely on.
``snapshot()``/``restore()`` capture and return to any mid-episode state; ``state_key()`` (optional)
names the current state of the world, equal for the same state however it was reached.

Text conventions follow ALFWorld: ``reset`` returns the first observation (which states the
goal), ``step`` takes the action text and answers with the next observation; an inadmissible
action is answered with the environment's ``invalid_observation`` and does not change the state
of the world, but it does count as a step towards ``max_steps`` (as in ALFWorld). Stepping after
the episode has ended returns ``invalid_observation`` with ``done=True, invalid=True``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from coevo.core.env import actions


class ForkError(ValueError):
    """A sub-goal the environment cannot hand to a sub-agent (the message says why)."""


@dataclass(frozen=True)
class Task:
    """One deterministic task of an environment."""

    env: str  # registry name of the environment, e.g. "household"
    split: str  # "train", "eval_in_distribution", "eval_out_of_distribution", ...
    index: int  # position within the split
    task_type: str  # e.g. "pick_and_place_simple"; per-type metrics group by it
    seed: int  # the seed the initial state is generated from

    @property
    def task_id(self) -> str:
        return f"{self.env}/{self.split}/{self.index}"


@dataclass
class StepResult:
    observation: str
    reward: float
    done: bool
    won: bool = False
    invalid: bool = False  # the action was not admissible / could not be parsed
    info: dict[str, Any] = field(default_factory=dict)


class Environment(ABC):
    """A text environment playing one episode at a time (not thread-safe; one per episode)."""

    #: registry name
    name: ClassVar[str] = ""
    #: all task types this environment can produce, in a stable order (for per-type metrics)
    task_types: ClassVar[tuple[str, ...]] = ()
    #: the splits ``task()`` accepts
    splits: ClassVar[tuple[str, ...]] = ("train", "eval_in_distribution", "eval_out_of_distribution")
    #: observation returned for an inadmissible or malformed action
    invalid_observation: ClassVar[str] = "Nothing happens."

    #: True when actions are free text with no finite list of admissible commands (math answers,
    #: search queries): ``agent.mode=auto`` then generates instead of choosing among commands
    free_form_actions: ClassVar[bool] = False

    #: steps after which an episode ends unsuccessfully
    max_steps: int = 30

    @classmethod
    def task_type_label(cls, task_type: str) -> str:
        """``task_type`` as a plot's tick label (an environment with long type names shortens them)."""
        return task_type

    # -- tasks --------------------------------------------------------------------------------
    @abstractmethod
    def task(self, split: str, index: int) -> Task:
        """The ``index``-th task of ``split`` (deterministic)."""

    @abstractmethod
    def num_tasks(self, split: str) -> int | None:
        """How many tasks ``split`` holds; ``None`` for a procedurally unbounded split."""

    # -- episode ------------------------------------------------------------------------------
    @abstractmethod
    def reset(self, task: Task) -> str:
        """Start ``task`` from its initial state; return the first observation."""

    @abstractmethod
    def step(self, action: str) -> StepResult:
        """Apply ``action``; an inadmissible action returns ``invalid_observation``, invalid=True."""

    @abstractmethod
    def admissible_actions(self) -> list[str]:
        """The commands that are valid in the current state (ALFWorld's admissible commands)."""

    @property
    @abstractmethod
    def goal(self) -> str:
        """The task sentence of the current episode, e.g. "put some apple on countertop" (as in ALFWorld)."""

    @abstractmethod
    def snapshot(self) -> Any:
        """An opaque object from which ``restore`` rebuilds exactly the current state."""

    @abstractmethod
    def restore(self, snapshot: Any) -> None:
        """Return to the state captured by ``snapshot``."""

    # -- optional helpers ---------------------------------------------------------------------
    def state_key(self) -> Hashable | None:
        """A hashable, deterministic key of the current state of the world; ``None`` when unsupported.

        Two moments of episodes of the same task get equal keys exactly when the world is the same:
        what is where, what the agent holds and where it stands, however it got there; the step
        count, the text history and the agent's memory are not part of it. GiGPO groups the turns
        met at one state across a group's episodes by this key (``coevo.core.algos.gigpo``). Keep it
        cheap (it is read before every turn) and built of plain values (tuples, strings, numbers).
        """
        return None

    def memory(self) -> str | None:
        """A compact summary of what the agent has observed so far (e.g. "seen: fridge 1 (apple 1)").

        Built only from observations the agent has received. ``None`` when unsupported.
        """
        return None

    def parse_action(self, text: str) -> str | None:
        """The action inside an agent reply, or ``None`` when the reply is malformed.

        The default grammar is ``[<think>…</think>]<action>command</action>``; an environment with
        its own grammar (e.g. search's ``<search>``/``<answer>`` tags) overrides this and
        ``format_action``. Must never raise, whatever the text.
        """
        return actions.parse_action(text)

    def format_action(self, action: str) -> str:
        """The canonical reply carrying ``action`` (expert data and choice candidates look like it)."""
        return actions.format_action(action)

    def expert_action(self) -> str | None:
        """The next action of this environment's expert (for warm-start data); ``None`` if none."""
        return None

    def expert_reply(self, action: str) -> str:
        """The expert's whole reply carrying ``action`` (warm-start data): ``format_action(action)``.

        An environment whose expert shows its work overrides this, e.g. a ``<think>`` that writes
        out each comparison before the answer, so that a small model gets a supervised token per
        step of the reasoning instead of one for the result. The reply must parse back to
        ``action``; choice candidates stay ``format_action``.
        """
        return self.format_action(action)

    # -- recursion (RAO): optional -------------------------------------------------------------
    #: True when ``fork``/``join`` are implemented (recursive agents may delegate sub-goals)
    forkable: ClassVar[bool] = False

    def fork(self, goal: str) -> tuple[Environment, str]:
        """A sub-task for a child agent: a new environment already in the sub-task's initial state,
        and its first observation (which states ``goal``).

        The child is isolated: stepping it never changes this environment until ``join``. Its
        episode is won when the sub-goal is met (where the environment can check it). The child
        is already started (do not ``reset`` it) and may fork in turn; several children may be
        forked from the same state before any is joined. Raises ``ForkError`` with a reason for
        a goal this environment cannot fork (empty, malformed, not a sub-goal of the current
        task, or the episode is over).
        """
        raise ForkError(f"the '{self.name}' environment cannot fork sub-tasks")

    def join(self, child: Environment) -> str:
        """Fold a finished child's effects into this environment (e.g. items it crafted) and return
        a one-line description of what changed ("" when nothing does).

        Called once per child forked from this environment, whether the child won, lost or was
        stopped early; a child that achieved nothing merges nothing."""
        return ""

    def close(self) -> None:  # noqa: B027 (optional hook; most environments hold nothing)
        """Release external resources (subprocesses, files)."""
