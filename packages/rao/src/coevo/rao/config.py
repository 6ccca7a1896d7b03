"""``algo=rao`` settings: GRPO's update settings plus recursion, credit, baseline and report.

These dataclasses hold every field with its default and meaning (the one source: the preset
``algo/rao.yaml`` in ``coevo/rao/configs/`` inherits them as ``base_rao``); a misspelt key or a bad value stops the run before any work with the key's full name.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core.algos.grpo import GRPOConfig
from coevo.core.algos.optim import OptimSettings
from coevo.core.fields import bounded, check_instance, checked, choice, path, registry_name, split_name
from coevo.rao.credit import BASELINES, DEPTH_WEIGHTINGS, CreditSettings
from coevo.rao.settings import DelegationSettings, RecursionSettings

FLAT_BASELINES = ("train", "policy", "off")


@dataclass
class SizeSettings:
    """Task sizes: the environment config field that sets them, and a training mixture."""

    # e.g. num_chunks (longctx), depth (algebra, craft), size (maze); whether the env has it is checked when built
    knob: str = checked("", lambda v: v == "" or (isinstance(v, str) and v.isidentifier()),
                        "an env config field name (num_chunks, depth, size) or empty", bad=("num chunks",),
                        good=("depth",))
    # training (and warm-start) tasks cycle through these; []: the env's
    train: list[int] = bounded([], ge=1)


@dataclass
class ReportSettings:
    """The end-of-run table: recursive vs flat agent, greedy, on held-out tasks, one row per size."""

    # rows: eval_in_distribution at each of these values of sizes.knob; [] : one row per split below
    sizes: list[int] = bounded([], ge=1)
    splits: list[str] = split_name(["eval_in_distribution", "eval_out_of_distribution"])
    # label each size with its measured multiple of the context window (see coevo.rao.context_window)
    context_multiples: bool = False
    num_tasks: int = bounded(20, ge=0)  # tasks per row and agent (0: no report; fast tests)
    batch_size: int = bounded(40, ge=1)  # trees played together
    before: bool = False  # also report the warm-started policy (before RL)
    png: str = path("rao_report.png")  # in the run folder
    json: str = path("rao_report.json")

    def __post_init__(self):
        check_instance(self, "algo.report")
        if not self.sizes and not self.splits:
            raise ValueError("algo.report: give sizes (with algo.sizes.knob) or splits")


@dataclass
class RAOConfig(GRPOConfig):
    name: str = registry_name("rao")
    kl_coef: float = bounded(0.0, ge=0)  # no reference forward: every node's own reward anchors it
    # RAO lists the oracle's sub-goals in the prompt (a bare RecursionSettings does not)
    recursion: RecursionSettings = field(
        default_factory=lambda: RecursionSettings(delegation=DelegationSettings(show_options=True)))
    credit: CreditSettings = field(default_factory=CreditSettings)
    # group: algo.advantage over the (task, depth) groups of algo.credit.group_by | root_loo: every node's reward
    # minus the leave-one-out mean of its task's root rewards, no std, tasks whose roots all tie dropped (the paper's)
    baseline: str = choice("group", BASELINES)
    # none | inverse_frequency: a depth-d node's advantage times N / (L * n_d), n_d nodes at depth d in the
    # batch, N nodes, L depths (each depth level weighs the same; the paper's depth weighting)
    depth_weighting: str = choice("none", DEPTH_WEIGHTINGS)
    # the flat agent of the report: train (its own copy of the warm-started weights, trained with
    # delegation disabled on the same tasks for the same steps) | policy (the RAO policy with
    # delegation disabled) | off
    flat_baseline: str = choice("train", FLAT_BASELINES)
    # warm start: share of the oracle's demonstration episodes played flat (no delegation), so the
    # policy also knows how to act without sub-agents
    warmstart_flat_share: float = bounded(0.25, ge=0, le=1)
    # warm start: episodes more of which only every node's final action (its answer after reading
    # or after its children's reports) is kept: the skills a tree's outcome depends on
    warmstart_answer_episodes: int = bounded(0, ge=0)
    sizes: SizeSettings = field(default_factory=SizeSettings)
    report: ReportSettings = field(default_factory=ReportSettings)
    optim: OptimSettings = field(default_factory=lambda: OptimSettings(lr=5e-4))

    def __post_init__(self):
        super().__post_init__()
        if (self.sizes.train or self.report.sizes) and not self.sizes.knob:
            raise ValueError("algo.sizes.knob: name the env config field that algo.sizes.train / "
                             "algo.report.sizes set (num_chunks, depth, size)")
        if self.updates_per_batch != 1:
            raise ValueError("algo.updates_per_batch: RAO takes one update per batch of trees; set it to 1")
        if self.dynamic_sampling.enabled:
            raise ValueError("algo.dynamic_sampling.enabled: RAO plays recursion trees, not GRPO's groups; "
                             "dynamic sampling is GRPO's option; set it to false")
