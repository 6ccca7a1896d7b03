"""The execution check of RSIPO: control/replay split of a group and the replay gain Δ_x.

A group of ``G`` student rollouts of task x is split into a control half H_c (played without the
skill) and a replay half H_r. The H_r episodes are played again from the same initial states with
the skill s_x in the prompt; the replay gain is

    Δ_x = mean_{i ∈ H_r} R_i^skill − mean_{i ∈ H_c} R_i

and its binomial sampling variance (successes are 0/1) is

    σ_x² = p_r(1 − p_r)/|H_r| + p_c(1 − p_c)/|H_c|,  floored at ``variance_floor``

(the floor keeps an all-0 or all-1 half from claiming a noiseless estimate).
"""

from __future__ import annotations

from dataclasses import dataclass


def split_group(group_size: int, replay_fraction: float = 0.5) -> tuple[list[int], list[int]]:
    """Positions (within a group) of the control half and of the replay half.

    The last ``round(G * replay_fraction)`` episodes are replayed (at least 1, at most G - 1):
    G=8 → control [0, 1, 2, 3], replay [4, 5, 6, 7].
    """
    if group_size < 2:
        raise ValueError("the control/replay split needs a group of at least 2 episodes")
    n_replay = min(group_size - 1, max(1, round(group_size * replay_fraction)))
    n_control = group_size - n_replay
    return list(range(n_control)), list(range(n_control, group_size))


@dataclass
class ReplayGain:
    control: float  # p_c: mean outcome of H_c (no skill)
    replay: float  # p_r: mean outcome of H_r replayed with the skill
    n_control: int
    n_replay: int
    gain: float  # Δ_x = p_r − p_c
    variance: float  # σ_x², floored


def binomial_gain_variance(p_replay: float, n_replay: int, p_control: float, n_control: int,
                           floor: float = 0.0) -> float:
    """σ² = p_r(1-p_r)/n_r + p_c(1-p_c)/n_c, at least ``floor``."""
    value = p_replay * (1 - p_replay) / n_replay + p_control * (1 - p_control) / n_control
    return max(value, floor)


def replay_gain(control_outcomes: list[float], replay_outcomes: list[float], variance_floor: float = 0.0) -> ReplayGain:
    """Δ_x and σ_x² of one task from the outcomes (0/1 successes) of H_c and of the replayed H_r."""
    if not control_outcomes or not replay_outcomes:
        raise ValueError("both halves need at least one episode")
    p_c = sum(control_outcomes) / len(control_outcomes)
    p_r = sum(replay_outcomes) / len(replay_outcomes)
    variance = binomial_gain_variance(p_r, len(replay_outcomes), p_c, len(control_outcomes), variance_floor)
    return ReplayGain(p_c, p_r, len(control_outcomes), len(replay_outcomes), p_r - p_c, variance)
