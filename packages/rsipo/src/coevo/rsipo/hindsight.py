"""Hindsight skills: what a winning attempt teaches about *this* task, as a skill can carry it.

A skill helps RSIPO's replay and teacher only if it carries something the policy lacks. The library
skills restate the rules (find the object, take it, put it), which a warm-started policy already
follows, so their replay gain is about 0 or below (packages/rsipo/README.md, Measured). What the
group's own winning attempt knows and a fresh attempt does not is where things are in this room: the
search it took. A hindsight skill is that attempt with the search cut out: ``direct_path`` drops every
command whose removal still wins the task from the same initial state, and ``hindsight_skill`` writes
the rest as one line (``go to cabinet 3, open cabinet 3, take mug 1 from cabinet 3, …``).

The replay re-runs the same initial states (spec step 4), so a policy that has learned to follow such a
skill wins more with it than without: the warm start teaches both writing it from a winning attempt
and acting with it in the context (``algo.warmup.skill_kind=hindsight``, ``coevo.rsipo.demonstrations``).
"""

from __future__ import annotations

from coevo.core.env.protocol import Environment


def expert_attempt(env: Environment, split: str, index: int) -> tuple[list[str], bool] | None:
    """The expert's commands on task ``index`` of ``split`` and whether they won (``None`` without an expert)."""
    env.reset(env.task(split, index))
    actions: list[str] = []
    for _ in range(env.max_steps):
        action = env.expert_action()
        if action is None:
            return None
        actions.append(action)
        result = env.step(action)
        if result.done:
            return actions, bool(result.won)
    return actions, False


def wins(env: Environment, split: str, index: int, actions: list[str]) -> bool:
    """Whether ``actions``, played from the task's initial state, are each valid and win it exactly
    at the last one."""
    env.reset(env.task(split, index))
    for i, action in enumerate(actions):
        result = env.step(action)
        if result.invalid:
            return False
        if result.done:
            return bool(result.won) and i == len(actions) - 1
    return False


def direct_path(env: Environment, split: str, index: int, actions: list[str], max_passes: int = 4) -> list[str]:
    """``actions`` (a winning attempt) without every command whose removal still wins: passes from
    the first command to the last, each dropping what it can, until one drops nothing (or
    ``max_passes``). A search detour (``go to cabinet 1``, ``open cabinet 2`` where nothing was) goes;
    the commands the win needs stay. Returns ``actions`` unchanged if they do not win."""
    if not wins(env, split, index, actions):
        return list(actions)
    path = list(actions)
    for _ in range(max_passes):
        dropped = False
        i = 0
        while i < len(path) - 1:  # the last command is the one that wins
            shorter = path[:i] + path[i + 1:]
            if wins(env, split, index, shorter):
                path, dropped = shorter, True
            else:
                i += 1
        if not dropped:
            break
    return path


def expert_direct_path(env: Environment, split: str, index: int) -> list[str] | None:
    """The direct path of the expert's winning attempt at task ``index`` (``None`` if the env has no
    expert or the expert loses)."""
    attempt = expert_attempt(env, split, index)
    if attempt is None or not attempt[1]:
        return None
    return direct_path(env, split, index, attempt[0])


def hindsight_skill(path: list[str]) -> str:
    """The skill text of a direct path: its commands in order, comma-separated."""
    return ", ".join(path) + "." if path else ""
