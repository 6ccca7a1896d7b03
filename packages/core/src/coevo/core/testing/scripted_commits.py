"""``scripted_commits``: commit/rollback decisions read from a fixed script, for tests of rollback.

``CommitRollback`` with a judge that answers ``script[k]`` at its k-th decision (commit when true,
roll back when false) and commits once the script is used up. It lets a test, run as a real
multi-process job from the command line, put a rollback exactly where it wants one:

    +callbacks.scripted.name=scripted_commits "+callbacks.scripted.script=[true,false]"
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core import registry
from coevo.core.callbacks.commit_rollback import CommitRollback, Decision
from coevo.core.fields import bounded, checked, registry_name


def _boolean(value) -> bool:
    return isinstance(value, bool)


@dataclass
class ScriptedCommitsConfig:
    name: str = registry_name("scripted_commits")
    every_n_steps: int = bounded(2, ge=1)  # optimizer steps per decision
    # the decisions in order (true: commit, false: roll back); commit after the last
    script: list = checked([True, False], _boolean, "true or false", bad=(1, "no"), good=(True, False))


@registry.callbacks.register("scripted_commits")
class ScriptedCommits(CommitRollback):
    Config = ScriptedCommitsConfig

    def __init__(self, config: ScriptedCommitsConfig | None = None):
        self.config = config or ScriptedCommitsConfig()
        self.decisions_made = 0
        super().__init__(self._decide, self.config.every_n_steps)

    def _decide(self, trainer, module, root) -> Decision:
        script = list(self.config.script)
        commit = script[self.decisions_made] if self.decisions_made < len(script) else True
        self.decisions_made += 1
        return Decision(commit)

    def state_dict(self) -> dict:
        state = super().state_dict()
        return {**state, "decisions_made": self.decisions_made} if state else state

    def load_state_dict(self, state_dict: dict) -> None:
        super().load_state_dict(state_dict)
        self.decisions_made = int(state_dict.get("decisions_made", 0))
