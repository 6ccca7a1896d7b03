"""The shared shape of the recursive environments (``longctx``, ``craft``, ``algebra``, ``maze``).

``RecursiveEnv`` implements the protocol's bookkeeping once: step counting, ``max_steps``,
``done``/``won``, stepping after the end, and the checks around ``fork``/``join``:

- ``fork(goal)`` collapses the goal's whitespace and refuses an empty goal, a goal longer than
  ``MAX_GOAL_CHARS``, or any goal once the episode is over, with ``ForkError``; the environment's ``_fork`` parses and validates the
  rest and builds the child (a fresh instance of the same class, in its sub-task's initial
  state). A child can fork again.
- ``join(child)`` accepts only a child forked from this environment, once (``ValueError``
  otherwise), joined or not finished; joining into a finished episode changes nothing.
- A fork never completes the parent's own goal: each environment refuses sub-goals that would
  (the goal itself, or the whole range), so ``won`` changes only through ``step``.

Beyond the protocol, each recursive environment offers the oracle in two halves:
``expert_delegations()`` lists the sub-goals the recursive oracle hands to children now (empty
when it acts itself; siblings are independent and may run concurrently; join them all, then
ask again), and ``expert_action()`` is the next primitive action, which always exists while the
episode runs: the flat oracle solves the task from any state, delegated or not.
``coevo.envs.expert_play.play_expert`` plays a whole task with both.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

from coevo.core.env.protocol import Environment, ForkError, StepResult, Task
from coevo.envs.procedural import ProceduralEnv

#: longer goals are refused before any parsing (no grammar's goal comes close; a bound on the work
#: and on the refusal message one reply can cause)
MAX_GOAL_CHARS = 500
#: numbers in commands and goals (chunks, cells, counts, answers) have at most this many digits
MAX_DIGITS = 9


def small_int(text: str) -> int | None:
    """``text`` as an int when it is 1 to ``MAX_DIGITS`` ASCII digits, else ``None``.

    Model text must reach neither ``int("²")`` (``str.isdigit`` admits it, ``int`` raises) nor
    ``int`` of more than 4,300 digits (``ValueError``).
    """
    if 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit():
        return int(text)
    return None


def goal_int(text: str, what: str) -> int:
    """``small_int`` for a number in a goal; ``ForkError`` naming ``what`` when it is not one."""
    value = small_int(text)
    if value is None:
        raise ForkError(f"{what} must be a number of at most {MAX_DIGITS} digits, not {text[:20]!r}")
    return value


@dataclass
class Outcome:
    """What one valid or invalid action did (``RecursiveEnv._apply`` returns it)."""

    observation: str
    won: bool = False
    finished: bool = False  # the episode ends now, won or not (e.g. an answer was given)
    invalid: bool = False
    info: dict[str, Any] = field(default_factory=dict)


class RecursiveEnv(ProceduralEnv):
    """A generated environment whose episodes can fork sub-tasks to child agents."""

    forkable = True
    #: every sub-goal is checked by the child's own episode (it is won iff the sub-goal is met)
    goal_verifiable: ClassVar[bool] = True
    #: what a sub-goal looks like, quoted in ForkError messages
    goal_grammar: ClassVar[str] = ""

    def __init__(self) -> None:
        self._task: Task | None = None
        self._steps = 0
        self._done = False
        self._won = False
        self._forked_from: RecursiveEnv | None = None
        self._joined = False

    # -- what each environment provides ----------------------------------------------------------
    @abstractmethod
    def _start(self, task: Task) -> str:
        """Build ``task``'s initial state, set ``max_steps``; return the first observation."""

    @abstractmethod
    def _apply(self, command: str) -> Outcome:
        """Apply one whitespace-collapsed command (the step is already counted)."""

    @abstractmethod
    def _fork(self, goal: str) -> tuple[RecursiveEnv, str]:
        """Parse and validate ``goal`` (ForkError with the reason), build the child."""

    @abstractmethod
    def _join(self, child: Any) -> str:
        """Merge a child's effects into this (unfinished) episode; describe them in one line."""

    @abstractmethod
    def _state(self) -> Any:
        """A copy of the environment-specific mutable state (for ``snapshot``)."""

    @abstractmethod
    def _set_state(self, state: Any) -> None:
        """Install a copy of ``state`` (for ``restore``)."""

    @abstractmethod
    def expert_delegations(self) -> list[str]:
        """Sub-goals the recursive oracle hands to children now; empty when it acts itself."""

    # -- episode -----------------------------------------------------------------------------------
    def reset(self, task: Task) -> str:
        self._task = task
        self._steps, self._done, self._won = 0, False, False
        self._forked_from, self._joined = None, False
        return self._start(task)

    def step(self, action: str) -> StepResult:
        self._require_started()
        if self._done:
            return StepResult(self.invalid_observation, 0.0, done=True, invalid=True, info=self._info())
        self._steps += 1
        command = " ".join(action.split()) if isinstance(action, str) else ""
        outcome = self._apply(command)
        self._won = outcome.won
        self._done = outcome.won or outcome.finished or self._steps >= self.max_steps
        info = self._info() | outcome.info
        return StepResult(outcome.observation, 1.0 if outcome.won else 0.0, self._done, outcome.won,
                          outcome.invalid, info)

    def invalid(self, reason: str) -> Outcome:
        """The outcome of an inadmissible action; ``reason`` goes to ``info["error"]``."""
        return Outcome(self.invalid_observation, invalid=True, info={"error": reason})

    @property
    def done(self) -> bool:
        return self._done

    @property
    def won(self) -> bool:
        return self._won

    @property
    def steps_taken(self) -> int:
        return self._steps

    def snapshot(self) -> Any:
        self._require_started()
        return (self._task, self._steps, self._done, self._won, self.max_steps, self._state())

    def restore(self, snapshot: Any) -> None:
        self._task, self._steps, self._done, self._won, self.max_steps, state = snapshot
        self._set_state(state)

    def expert_action(self) -> str | None:
        if self._task is None or self._done:
            return None
        return self._expert_action()

    @abstractmethod
    def _expert_action(self) -> str:
        """The flat oracle's next primitive action (the episode is running)."""

    # -- recursion -----------------------------------------------------------------------------
    def fork(self, goal: str) -> tuple[Environment, str]:
        self._require_started()
        text = " ".join(goal.split()) if isinstance(goal, str) else ""
        if not text:
            raise ForkError(f"empty goal; expected {self.goal_grammar}")
        if len(text) > MAX_GOAL_CHARS:
            raise ForkError(f"goal longer than {MAX_GOAL_CHARS} characters; expected {self.goal_grammar}")
        if self._done:
            raise ForkError("this episode is over; there is nothing left to delegate")
        child, observation = self._fork(text)
        child._forked_from = self
        return child, observation

    def join(self, child: Environment) -> str:
        if not isinstance(child, RecursiveEnv) or child._forked_from is not self:
            raise ValueError(f"join: {child!r} was not forked from this {self.name} environment")
        if child._joined:
            raise ValueError("join: this child was already joined")
        child._joined = True
        if self._done:
            return ""
        return self._join(child)

    def _new_child(self, task: Task) -> Any:
        """A fresh environment of this class and config, ready for ``_start`` of a sub-task."""
        child = type(self)(self.config)
        child._task = task
        return child

    # -- helpers -------------------------------------------------------------------------------
    def _info(self) -> dict[str, Any]:
        return {"steps": self._steps}

    def _require_started(self) -> None:
        if self._task is None:
            raise RuntimeError(f"call reset(task) before using the {self.name} environment")
