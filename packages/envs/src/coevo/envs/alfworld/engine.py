"""The real ALFWorld engine: TextWorld's PDDL backend with ALFWorld's name demangler.

Nothing here imports ``alfworld`` or ``textworld`` at module level, so ``import coevo.envs`` works
without the ``alfworld`` extra; ``require_alfworld()`` checks for it without importing it, and
``AlfworldEngine`` imports it on first use. A game is played as ALFWorld's ``AlfredTWEnv`` plays
it (``textworld`` + ``AlfredDemangler``, so objects are named ``apple 1``, ``cabinet 2``), and the
expert plan is what ``AlfredExpert(expert_type="planner")`` puts into ``extra.expert_plan``: the
fast-downward plan from the current state, computed only when asked for (it takes 0.03-0.5 s).

Speed: TextWorld's PDDL backend translates the game's PDDL into fast-downward's SAS format twice
on every ``load`` and every ``reset`` (0.3-1.5 s). That translation is a pure function of the
domain and problem texts, so the engine memoises it (an LRU of ``fast_downward.pddl2sas`` over
the last games, installed once per process); a repeated reset of a game then takes ~0.1 s, which
keeps snapshot/restore by replay cheap. The translator also overwrites ``sys.argv``; the
memoised wrapper puts it back.
"""

from __future__ import annotations

import functools
import importlib.util
import sys
from typing import Any

INSTALL_HINT = "pip install 'coevo-envs[alfworld]'"
TRANSLATION_CACHE_SIZE = 64  # SAS translations kept (two per game: plain and optimised for the planner)


class AlfworldNotInstalled(ImportError, ValueError):
    """The ``alfworld`` extra is missing (a ValueError too, so config checks report it as such)."""


def require_alfworld() -> None:
    """Raise ``AlfworldNotInstalled`` unless ``alfworld`` and ``textworld`` can be imported."""
    missing = [m for m in ("alfworld", "textworld", "fast_downward") if importlib.util.find_spec(m) is None]
    if missing:
        raise AlfworldNotInstalled(
            f"env=alfworld plays the real ALFWorld games and needs {', '.join(missing)}: {INSTALL_HINT}",
            name=missing[0],
        )


def _memoise_translation() -> None:
    """Replace ``fast_downward.pddl2sas`` by an LRU-cached version that restores ``sys.argv``."""
    import fast_downward

    if getattr(fast_downward.pddl2sas, "coevo_memoised", False):
        return
    translate = fast_downward.pddl2sas

    @functools.lru_cache(maxsize=TRANSLATION_CACHE_SIZE)
    def pddl2sas(domain: str, problem: str, verbose: bool = False, optimize: bool = False):
        argv = sys.argv
        try:
            return translate(domain, problem, verbose=verbose, optimize=optimize)
        finally:
            sys.argv = argv

    pddl2sas.coevo_memoised = True
    fast_downward.pddl2sas = pddl2sas


def _start_textworld(gamefile: str) -> Any:
    import textworld
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler

    infos = textworld.EnvInfos(won=True, admissible_commands=True)
    return textworld.start(gamefile, infos, wrappers=[AlfredDemangler()])


# TextWorld environments of closed engines, reused by the next engines. Each holds a private copy
# of fast-downward's library, which cannot be unloaded safely (dlclose makes the process crash at
# exit), so closing an engine hands its environment on instead of leaking a new copy per engine.
_IDLE: list[tuple[Any, str]] = []  # (environment, the game it has loaded)


class AlfworldEngine:
    """One TextWorld PDDL environment, reused across games (``reset(gamefile)`` loads as needed)."""

    def __init__(self) -> None:
        require_alfworld()
        _memoise_translation()
        self._env: Any = None
        self._gamefile = ""
        self._state: Any = None

    def reset(self, gamefile: str) -> str:
        """Start ``gamefile`` from its initial state; return the first observation."""
        if self._env is None:
            self._env, self._gamefile = _IDLE.pop() if _IDLE else (_start_textworld(gamefile), gamefile)
        if gamefile != self._gamefile:
            self._env.load(gamefile)
        self._gamefile = gamefile
        self._state = self._env.reset()
        return self._state.feedback

    def step(self, command: str) -> str:
        """Apply an admissible ``command``; return the engine's feedback."""
        self._state, _, _ = self._require().step(command)
        return self._state.feedback

    @property
    def admissible_commands(self) -> list[str]:
        self._require()
        return list(self._state["admissible_commands"])

    @property
    def won(self) -> bool:
        self._require()
        return bool(self._state["won"])

    def plan(self) -> list[str]:
        """The planner's commands from the current state to the goal (``[]`` when it finds none)."""
        game = self._require().unwrapped
        return list(game._pddl_state.replan(game._entity_infos))

    def close(self) -> None:
        """Hand the TextWorld environment to the next engine of this process (see ``_IDLE``)."""
        if self._env is not None:
            _IDLE.append((self._env, self._gamefile))
        self._env, self._state, self._gamefile = None, None, ""

    def _require(self) -> Any:
        if self._env is None or self._state is None:
            raise RuntimeError("call reset(task) before stepping the alfworld environment")
        return self._env
