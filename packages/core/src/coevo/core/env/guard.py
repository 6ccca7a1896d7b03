"""Call an environment on model output without letting its exceptions end a run.

Everything a model writes is hostile input. An environment's ``parse_action``, ``step`` and
``fork`` should refuse bad text themselves (``None``, an invalid ``StepResult``, ``ForkError``),
but a bug that raises anything else must not end a training run: the callers (core's agent loop,
RAO's tree runner) go through these helpers, which turn any exception into an invalid action
(or a refused fork, see ``coevo.rao.runner``) and report it, so that it is counted per episode
(``Episode.env_errors``, logged as ``ENV_ERRORS_METRIC``) and logged once per kind of error,
never silent.
"""

from __future__ import annotations

import logging

from coevo.core.env.protocol import Environment, StepResult

#: the metric name of environment errors per episode (``summarize``, ``tree_stats``)
ENV_ERRORS_METRIC = "invalid/env_errors"

_log = logging.getLogger(__name__)
_reported: set[tuple[str, str, str]] = set()  # (env, call, exception type) already logged


def report(env: Environment, call: str, exc: BaseException) -> str:
    """Log ``exc`` once per (environment, call, exception type); the one-line reason."""
    name = getattr(env, "name", type(env).__name__)
    reason = f"{type(exc).__name__} in {name}.{call}: {str(exc)[:200]}"
    key = (str(name), call, type(exc).__name__)
    if key not in _reported:
        _reported.add(key)
        _log.warning("environment error, counted as an invalid action (%s); further ones of this kind "
                     "are only counted", reason, exc_info=exc)
    return reason


def guarded_parse(env: Environment, text: str) -> tuple[str | None, bool]:
    """``(env.parse_action(text), False)``; ``(None, True)`` when it raised."""
    try:
        return env.parse_action(text), False
    except Exception as exc:  # noqa: BLE001 (any bug in a parser is one invalid action)
        report(env, "parse_action", exc)
        return None, True


def guarded_step(env: Environment, action: str) -> tuple[StepResult, bool]:
    """``(env.step(action), False)``; an invalid, unfinished step and ``True`` when it raised."""
    try:
        return env.step(action), False
    except Exception as exc:  # noqa: BLE001 (any bug in an environment is one invalid action)
        reason = report(env, "step", exc)
        return StepResult(env.invalid_observation, 0.0, False, False, True, {"error": reason}), True
