"""Shared fixtures for the alfworld tests: the real games of ../shared/alfworld, read in place.

``ALFWORLD_DATA`` points at ../shared/alfworld for the session unless it is already set; tests
that need the data skip when it is absent, and tests that play games skip without the
``alfworld`` package (``pip install 'coevo-envs[alfworld]'``, run by ``make test-pkg PKG=envs
EXTRAS=alfworld``). Playing is slow next to household (reset ~0.1-2 s, a planner step
0.05-2 s), so the environment is shared by the session and the tests play a handful of games.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coevo.envs.alfworld.games import ENV_VAR, FORMAT

# packages/envs/tests/alfworld/conftest.py -> the repository root is parents[4]
SHARED_ALFWORLD = (Path(__file__).resolve().parents[4] / "../shared/alfworld").resolve()
SKIP_NO_ENGINE = "the ALFWorld engine is not installed: pip install 'coevo-envs[alfworld]'"


@pytest.fixture(scope="session", autouse=True)
def alfworld_data_env():
    """Set ``$ALFWORLD_DATA`` to ../shared/alfworld for the session when it is unset."""
    if os.environ.get(ENV_VAR):
        yield
        return
    os.environ[ENV_VAR] = str(SHARED_ALFWORLD)
    yield
    os.environ.pop(ENV_VAR, None)


@pytest.fixture(scope="session")
def data_root(alfworld_data_env) -> Path:
    """The folder of the split folders (``.../json_2.1.1``); skips when the games are absent."""
    root = Path(os.environ[ENV_VAR]) / FORMAT
    if not (root / "valid_seen").is_dir():
        pytest.skip(f"the ALFWorld games are not at {root} (set ${ENV_VAR}; shared/alfworld is absent here)")
    return root


@pytest.fixture(scope="session")
def alfworld_env(data_root):
    """One AlfworldEnv for the session (max_steps raised for probing), closed at the end."""
    pytest.importorskip("textworld", reason=SKIP_NO_ENGINE)
    from coevo.envs.alfworld.env import AlfworldEnv

    env = AlfworldEnv(AlfworldEnv.Config(max_steps=200))
    yield env
    env.close()


@pytest.fixture
def play_expert():
    """``play_expert(env, task)`` resets ``task``, plays the expert; → (last StepResult, commands)."""

    def play(env, task, limit: int = 60):
        env.reset(task)
        commands, result = [], None
        for _ in range(limit):
            action = env.expert_action()
            commands.append(action)
            result = env.step(action)
            if result.done:
                break
        return result, commands

    return play
