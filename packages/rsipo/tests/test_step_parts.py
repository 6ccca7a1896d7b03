"""The parts of an RSIPO step on their own, built from their explicit dependencies (no module, no
model): the skill lifecycle (replay gain, skill reward, trust) and the step's records (budget)."""

from types import SimpleNamespace

import pytest

from coevo.rsipo.calibration import TrustCalibration
from coevo.rsipo.config import RSIPOConfig
from coevo.rsipo.skill_lifecycle import SkillLifecycle, SkillStep
from coevo.rsipo.skill_plays import SkillPlays
from coevo.rsipo.step_records import NEUTRAL_OMEGA, StepRecords


def _episode(won: bool, turns: int = 3):
    return SimpleNamespace(won=won, num_turns=turns)


def _skill(valid: bool = True):
    return SimpleNamespace(parsed=SimpleNamespace(valid=valid))


def test_skill_lifecycle_needs_only_config_calibration_and_group_size():
    config = RSIPOConfig(group_size=4, replay_fraction=0.5)
    calibration = TrustCalibration(config.trust, log_metrics=False)
    lifecycle = SkillLifecycle(config, calibration, group_size=4)
    # G = 4: control [0, 1], replayed [2, 3]; task 0's control loses, its replays win: Δ = 1; task 1: Δ = 0
    groups = [[_episode(False), _episode(False), _episode(True), _episode(True)],
              [_episode(True), _episode(False), _episode(True), _episode(False)]]
    replays = [_episode(True), _episode(True), _episode(True), _episode(False)]
    trust, rewards = lifecycle.execution_check(["a", "a"], groups, replays, [_skill(), _skill(valid=False)])
    assert trust.gains == [1.0, 0.0]
    penalty = config.skill.malformed_penalty
    assert rewards == pytest.approx([0.5, -0.5 - penalty])  # centred on the type's batch mean, malformed penalised
    assert calibration.last is not None  # the calibration it was given holds the batch's result


def test_skill_lifecycle_without_skills_is_neutral():
    config = RSIPOConfig(group_size=4)
    lifecycle = SkillLifecycle(config, TrustCalibration(config.trust, log_metrics=False), group_size=4)
    step = lifecycle.skill_step([object(), object()], ["a", "b"], [[], []], SkillPlays(episodes=[]))
    assert step.omega == [1.0, 1.0] and step.rewards == [0.0, 0.0] and step.skills is None


def test_step_records_count_the_budget_and_report_through_the_callables_they_are_given():
    recorded, logged = [], []
    records = StepRecords(RSIPOConfig(group_size=4, dynamic_trust=False),
                          lambda metrics, reduce=True: recorded.append((metrics, reduce)),
                          lambda *args, **kwargs: logged.append(args))
    episodes, replays = [_episode(True, 2)] * 4, [_episode(False, 5)] * 2
    step = SkillStep(omega=[1.0], rewards=[0.0], replay_episodes=replays)
    for _ in range(2):
        records.record_step([object()], ["a"], episodes, step, {"loss": 0.25}, global_step=0)
    assert records.budget == {"rollouts_total": 12.0, "env_steps_total": 36.0}
    budget, reduce = recorded[2]
    assert not reduce and budget["budget/rollouts"] == 6.0 and budget["budget/env_steps_total"] == 36.0
    metrics, reduce = recorded[3]
    assert reduce and metrics["loss"] == 0.25 and metrics["omega/a"] == 1.0
    assert all(metrics[k] == v for k, v in NEUTRAL_OMEGA.items())
    assert logged == [("loss", 0.25)] * 2
