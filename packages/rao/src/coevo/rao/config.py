"""``algo=rao`` settings: GRPO's update settings plus recursion, credit, baseline and report.

Every field is listed (with its default and meaning) in ``configs/algo/rao.yaml``; a misspelt
key or a bad value stops the run before any work with the key's full name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core.algos.grpo import GRPOConfig
from coevo.rao.credit import CreditSettings
from coevo.rao.settings import RecursionSettings

FLAT_BASELINES = ("train", "policy", "off")


@dataclass
class SizeSettings:
    """Task sizes: the environment config field that sets them, and a training mixture."""

    knob: str = ""  # e.g. num_chunks (longctx), depth (algebra, craft), size (maze)
    train: list[int] = field(default_factory=list)  # training (and warm-start) tasks cycle through these; []: the env's


@dataclass
class ReportSettings:
    """The end-of-run table: recursive vs flat agent, greedy, on held-out tasks, one row per size."""

    # rows: eval_in_distribution at each of these values of sizes.knob; [] : one row per split below
    sizes: list[int] = field(default_factory=list)
    splits: list[str] = field(default_factory=lambda: ["eval_in_distribution", "eval_out_of_distribution"])
    # label each size with its measured multiple of the context window (see coevo.rao.context)
    context_multiples: bool = False
    num_tasks: int = 20  # tasks per row and agent
    batch_size: int = 40  # trees played together
    before: bool = False  # also report the warm-started policy (before RL)
    png: str = "rao_report.png"  # in the run folder
    json: str = "rao_report.json"

    def __post_init__(self):
        if self.num_tasks < 0 or self.batch_size < 1:
            raise ValueError("algo.report: num_tasks must be >= 0 and batch_size >= 1")
        if not self.sizes and not self.splits:
            raise ValueError("algo.report: give sizes (with algo.sizes.knob) or splits")


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
    # warm start: episodes more of which only every node's final action (its answer after reading
    # or after its children's reports) is kept: the skills a tree's outcome depends on
    warmstart_answer_episodes: int = 0
    sizes: SizeSettings = field(default_factory=SizeSettings)
    report: ReportSettings = field(default_factory=ReportSettings)

    def __post_init__(self):
        super().__post_init__()
        if (self.sizes.train or self.report.sizes) and not self.sizes.knob:
            raise ValueError("algo.sizes.knob: name the env config field that algo.sizes.train / "
                             "algo.report.sizes set (num_chunks, depth, size)")
        if self.flat_baseline not in FLAT_BASELINES:
            raise ValueError(f"algo.flat_baseline: unknown '{self.flat_baseline}'; choose one of {list(FLAT_BASELINES)}")
        if not 0.0 <= self.warmstart_flat_share <= 1.0:
            raise ValueError("algo.warmstart_flat_share: must be in [0, 1]")
        if self.warmstart_answer_episodes < 0:
            raise ValueError("algo.warmstart_answer_episodes: must be >= 0")
        if self.updates_per_batch != 1:
            raise ValueError("algo.updates_per_batch: RAO takes one update per batch of trees; set it to 1")
