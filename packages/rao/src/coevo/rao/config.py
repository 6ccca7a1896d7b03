"""``algo=rao`` settings: GRPO's update settings plus recursion, credit, baseline and report.

Every field is listed (with its default and meaning) in ``configs/algo/rao.yaml``; a misspelt
key or a bad value stops the run before any work with the key's full name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from coevo.core.algos.grpo import GRPOConfig
from coevo.rao.credit import CreditSettings
from coevo.rao.settings import RecursionSettings

FLAT_BASELINES = ("train", "policy", "off")


@dataclass
class ReportSettings:
    """The end-of-run table: recursive vs flat agent, greedy, on held-out tasks at several sizes."""

    split: str = "eval_in_distribution"
    num_tasks: int = 20  # tasks per size and agent
    batch_size: int = 40  # trees played together
    # the environment config field that sets a task's size (e.g. a long-context input's length or
    # an expression's depth), and the values to evaluate; "" or []: the training size only
    knob: str = ""
    values: list[Any] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)  # row labels, one per value (default: "<knob>=<value>")
    before: bool = False  # also report the warm-started policy (before RL)
    png: str = "rao_report.png"  # in the run folder
    json: str = "rao_report.json"

    def __post_init__(self):
        if self.labels and len(self.labels) != len(self.values):
            raise ValueError(f"algo.report.labels: {len(self.labels)} labels for {len(self.values)} values")
        if self.values and not self.knob:
            raise ValueError("algo.report.values: set algo.report.knob (the env config field they set)")
        if self.num_tasks < 0 or self.batch_size < 1:
            raise ValueError("algo.report: num_tasks must be >= 0 and batch_size >= 1")


@dataclass
class RAOConfig(GRPOConfig):
    name: str = "rao"
    recursion: RecursionSettings = field(default_factory=RecursionSettings)
    credit: CreditSettings = field(default_factory=CreditSettings)
    # the flat agent of the report: train (its own copy of the warm-started weights, trained with
    # delegation disabled on the same tasks for the same steps) | policy (the RAO policy with
    # delegation disabled) | off
    flat_baseline: str = "train"
    # warm start: share of the oracle's demonstration episodes played flat (no delegation), so the
    # policy also knows how to act without sub-agents
    warmstart_flat_share: float = 0.25
    report: ReportSettings = field(default_factory=ReportSettings)

    def __post_init__(self):
        super().__post_init__()
        if self.flat_baseline not in FLAT_BASELINES:
            raise ValueError(f"algo.flat_baseline: unknown '{self.flat_baseline}'; choose one of {list(FLAT_BASELINES)}")
        if not 0.0 <= self.warmstart_flat_share <= 1.0:
            raise ValueError("algo.warmstart_flat_share: must be in [0, 1]")
        if self.updates_per_batch != 1:
            raise ValueError("algo.updates_per_batch: RAO takes one update per batch of trees; set it to 1")
