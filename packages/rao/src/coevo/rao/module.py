"""RAO — Recursive Agent Optimization — as a LightningModule (core GRPO's update, tree rollouts).

What differs from GRPO: a rollout is a *tree*. The agent may reply ``<delegate>goal</delegate>``
(repeated for several children); each admitted goal is forked from its environment and played by
the same policy as a child agent; children of all trees act together in one engine call per
round (``recursion.schedule=batched``). Every node's own trajectory is trained: its turns as
(prompt, reply) sequences with agent-token masks, carrying the node's advantage — the node's
local reward (own sub-task success verified by its environment + c_del × share of successful
direct children, optionally blended with the root's outcome) normalised within its group (the G
trees of a task, by depth) by the ``algo.advantage`` estimator (``credit.py``) — or, with
``algo.baseline=root_loo`` as in the paper, minus the leave-one-out mean of the other trees'
root rewards, tasks whose roots all tie left out — optionally weighted by the inverse number of
nodes at its depth (``algo.depth_weighting``), discounted by depth and sub-sampled among children. The update is GRPO's own (``GRPO.update`` and
its ``_micro_loss``), so ``algo.loss`` chooses its policy loss from ``registry.losses`` as for GRPO.

With ``flat_baseline=train`` a second copy of the warm-started policy is trained in lockstep on
the same tasks with delegation disabled (the flat agent, same steps); the end-of-run report
compares both, greedily, at every size of ``report.values``.

Several processes (``trainer=ddp_cpu``): each rank plays its share of the step's tasks; both the
RAO policy's and the flat copy's gradients are averaged over the ranks; env-step totals count
every rank's trees; the end-of-run report (greedy) is rank 0's.

Launch: ``make train ALGO=rao`` (the preset selects env=longctx); any env:
``make train ALGO=rao ARGS="env=craft"``.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from pathlib import Path

import torch
from rich.console import Console

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.grpo import GRPO
from coevo.core.config import ConfigError
from coevo.core.env.protocol import Task
from coevo.core.policy.saving import save_policy_folder
from coevo.core.reporting import read_metrics
from coevo.core.seeds import rank_seed, step_seed
from coevo.rao.config import RAOConfig
from coevo.rao.context_window import base_size
from coevo.rao.credit import kept_trees, node_advantages, node_rewards
from coevo.rao.evaluation import beyond_range, decoding_mode, evaluate_trees, scaled_env_factory
from coevo.rao.expert import RecursiveExpert, flat_settings
from coevo.rao.flatten import tree_samples
from coevo.rao.learner import Learner, copy_learner
from coevo.rao.report import plot_report, report_table, write_report
from coevo.rao.settings import RecursionSettings
from coevo.rao.tree_plays import TreePlayer, TreePlays
from coevo.rao.treestats import tree_stats

# The child-keep draw of a step's update (tree_samples, credit.child_keep) is seeded apart from the
# step's plays: step seed + CHILD_KEEP_SALT + the agent's salt (recursive 0, flat 1). Fixed value.
CHILD_KEEP_SALT = 7

console = Console()


@registry.algorithms.register("rao")
class RAO(GRPO):
    plays_async = True  # its batch player (tree_plays.py) plays the recursive trees in a Ray worker
    Config = RAOConfig

    @classmethod
    def async_refusal(cls, config: RAOConfig) -> tuple[str, str] | None:
        if config.flat_baseline == "train":
            return ("algo.flat_baseline", "flat_baseline=train trains a second policy whose flat trees play with "
                    "its weights of that very step in the trainer's process (set algo.flat_baseline=policy or off)")
        return None

    @classmethod
    def expert_source(cls, config: RAOConfig) -> RecursiveExpert:
        """Warm-start demonstrations with delegation turns and child episodes (core's hook)."""
        return RecursiveExpert(config.recursion, config.warmstart_flat_share, config.sizes.knob, config.sizes.train,
                               config.warmstart_answer_episodes)

    def __init__(self, config: RAOConfig, context: AlgorithmContext):
        super().__init__(config, context)
        self.config = config
        probe = self.envs(1)[0]
        if config.recursion.can_delegate and not probe.forkable:
            raise ConfigError(f"algo=rao: env '{probe.name}' cannot fork sub-tasks; choose a forkable env "
                              f"(longctx, craft, algebra, maze, textcraft_synth) or set algo.recursion.delegation.enabled=false")
        self.mode = decoding_mode(self.engine, context.tokenizer, context.agent, probe)
        sizes = config.sizes
        self.train_factories = ([scaled_env_factory(context.make_env, sizes.knob, v) for v in sizes.train]
                                or [context.make_env])
        self.flat_recursion = flat_settings(config.recursion)
        self.flat: Learner | None = None
        if config.flat_baseline == "train":
            self.flat = copy_learner(self.policy, config.optim, kl=config.kl_coef > 0)
            self.flat_policy = self.flat.policy  # a submodule: its weights are in every checkpoint
        self._active: Learner | None = None
        self.env_steps_total = {"recursive": 0, "flat": 0}
        self.report_before: list[dict] | None = None
        self.run_dir = Path(".")

    # -- the learner whose weights are trained ---------------------------------------------------
    @contextmanager
    def acting_as(self, learner: Learner | None):
        """Inside the block, ``self.policy``, its reference, optimizer and the engine are ``learner``'s."""
        if learner is None:
            yield
            return
        saved = self.policy, self.reference
        self.policy, self.reference, self._active = learner.policy, learner.reference, learner
        self.engine.sync_weights(learner.policy)
        try:
            yield
        finally:
            self.policy, self.reference, self._active = saved[0], saved[1], None
            self.engine.sync_weights(self.policy)

    def optimizer_step_with_clipping(self) -> float:
        if self._active is None:
            return super().optimizer_step_with_clipping()
        clip = self.optim_settings.grad_clip
        # the flat copy is a full replica on every rank, under DDP and FSDP alike: average its gradients
        dist.average_gradients(self.policy.parameters())
        params = [p for p in self.policy.parameters() if p.requires_grad and p.grad is not None]
        norm = torch.nn.utils.clip_grad_norm_(params, clip if clip > 0 else float("inf"))
        self._active.optimizer.step()
        self._active.optimizer.zero_grad(set_to_none=True)
        self._active.scheduler.step()
        return float(norm)

    # -- training --------------------------------------------------------------------------------
    def batch_player(self) -> TreePlayer:
        """The recursive trees of every step (``tree_plays.py``)."""
        return TreePlayer(self.train_factories, self.group_size, self.context.seed, self.context.tokenizer,
                          self.context.agent, self.config.recursion)

    def training_step(self, batch: list, batch_idx: int):
        tasks = self.take_tasks(batch)
        stats = self.learn(self.play_batch(tasks), "recursive", salt=0)  # here, or by a Ray worker
        self.log("loss", stats.get("loss", 0.0), prog_bar=True, on_step=True, logger=False)
        self.log("nodes", stats["tree/nodes"], prog_bar=True, on_step=True, logger=False)
        if self.flat is not None:
            with self.acting_as(self.flat):
                flat = self.learn(self.play(tasks, self.flat_recursion, salt=1), "flat", salt=1)
            self.log("flat", flat["success"], prog_bar=True, on_step=True, logger=False)
        return None

    def learn(self, plays: TreePlays, agent: str, salt: int) -> dict[str, float]:
        """Credit every node of the active policy's trees, take one update."""
        trees, seconds = plays.trees, plays.seconds
        cfg = self.config
        rewards = node_rewards(trees, cfg.credit, self.context.agent.invalid_penalty)
        advantages = node_advantages(trees, rewards, cfg.credit, cfg.advantage, cfg.scale_by_std, cfg.baseline,
                                     cfg.depth_weighting)
        kept = kept_trees(trees, rewards, cfg.baseline)  # root_loo: tasks whose roots all tie are left out
        keep = torch.Generator().manual_seed(rank_seed(step_seed(self.context.seed, self.batch_index)) + CHILD_KEEP_SALT + salt)
        samples = tree_samples([t for t, k in zip(trees, kept) if k], [a for a, k in zip(advantages, kept) if k],
                               cfg.choice_loss, cfg.credit.child_keep, keep)
        if cfg.skip_zero_advantage:
            samples = [s for s in samples if s.advantage != 0.0]
        stats = tree_stats(trees, seconds)
        stats["trees_dropped"] = float(len(trees) - sum(kept))  # root_loo: tasks whose roots all tie
        # all ranks' steps, so the running total is the same on every rank (and in the checkpoint)
        self.env_steps_total[agent] += int(dist.reduce_metrics({"env_steps": float(sum(t.env_steps for t in trees))})
                                           ["env_steps"])
        stats["env_steps_total"] = float(self.env_steps_total[agent])
        stats["reward"] = sum(r for row in rewards for r in row) / max(1, sum(len(row) for row in rewards))
        stats["rollout_seconds"] = seconds
        stats["agent_tokens"] = float(sum(len(turn.response_ids) for t in trees for n in t.nodes
                                          for turn in n.episode.turns))
        stats.update(self.update(samples))
        prefix = "" if agent == "recursive" else "flat/"
        self.record({prefix + k: v for k, v in stats.items()})
        if agent == "recursive":
            self.log("success", stats["success"], prog_bar=True, on_step=True, logger=False)
        return stats

    def play(self, tasks: list[Task], recursion: RecursionSettings, salt: int = 0) -> TreePlays:
        """``group_size`` sampled trees of every task with the active policy, in this process, seeded by
        the batch index (exact resume); with a size mixture, task k of the run (counting from the
        first step) has size ``sizes.train[k % n]``."""
        self.engine.sync_weights(self.policy)
        return self.player.play_trees(self.engine, tasks, self.batch_index, recursion, salt)

    # -- report ----------------------------------------------------------------------------------
    def on_fit_start(self) -> None:
        super().on_fit_start()
        logger = self.trainer.logger if self._trainer is not None else None
        self.run_dir = Path(logger.save_dir) if logger is not None else Path(self.trainer.default_root_dir)
        # the report (greedy, no collectives) is rank 0's alone: it writes the files
        if self.config.report.before and self.report_before is None and self.global_step == 0 and dist.is_main():
            console.print("[bold]RAO[/bold]: evaluating the warm-started policy (recursive) at every size")
            self.report_before = [row["recursive"] for row in self.evaluate_rows(flat=False)]

    def report_rows(self) -> list[dict]:
        """The report's rows: ``label``, ``split``, ``value`` (size) and ``make_env`` of each."""
        r, knob = self.config.report, self.config.sizes.knob
        if not r.sizes:
            return [{"label": split.replace("eval_", "").replace("_", " "), "split": split, "value": None,
                     "make_env": self.context.make_env} for split in r.splits]
        sizes = list(r.sizes)
        extra = beyond_range(self.context.make_env, knob)  # eval.size / eval.depth: one row more
        if extra is not None and extra not in sizes:
            sizes.append(extra)
        base = None
        if r.context_multiples:
            base = base_size(lambda v: scaled_env_factory(self.context.make_env, knob, v),
                             self.context.agent.prompt, self.context.tokenizer, limit=max(sizes))
        rows = []
        for value in sizes:
            multiple = f"{value / base:g}x" if base else ""
            label = f"{knob}={value}" + (f" ({multiple} window)" if base else "")
            rows.append({"label": label, "short": f"{value}" + (f" ({multiple})" if base else ""),
                         "split": "eval_in_distribution", "value": value, "base": base,
                         "make_env": scaled_env_factory(self.context.make_env, knob, value)})
        return rows

    def evaluate_rows(self, flat: bool = True) -> list[dict]:
        """Greedy held-out success and tree statistics of the recursive (and flat) agent per row."""
        rows = []
        for row in self.report_rows():
            make_env = row.pop("make_env")
            row["recursive"], _ = self._evaluate(make_env, row["split"], self.config.recursion, None)
            if flat and self.config.flat_baseline != "off":
                row["flat"], _ = self._evaluate(make_env, row["split"], self.flat_recursion, self.flat)
            rows.append(row)
        return rows

    def _evaluate(self, make_env, split: str, recursion: RecursionSettings, learner: Learner | None):
        r = self.config.report
        with self.acting_as(learner):
            self.engine.sync_weights(self.policy)
            return evaluate_trees(self.engine, self.context.tokenizer, self.context.agent, recursion, make_env,
                                  split, r.num_tasks, r.batch_size)

    def on_train_end(self) -> None:
        r = self.config.report
        if r.num_tasks <= 0 or not dist.is_main():
            return
        start = time.perf_counter()
        console.print(f"[bold]RAO report[/bold]: {r.num_tasks} held-out tasks per row, greedy")
        rows = self.evaluate_rows()
        for row, before in zip(rows, self.report_before or []):
            row["before"] = before
        env_name = self.envs(1)[0].name
        title = (f"RAO on {env_name}: recursive vs flat agent ({self.global_step} steps each, "
                 f"context {self.context.agent.prompt.max_prompt_tokens} tokens)")
        Console(width=max(console.width, 140)).print(report_table(rows, title))  # wide enough when piped
        write_report(rows, self.run_dir / r.json)
        png = plot_report(rows, read_metrics(self.run_dir / "metrics.jsonl"), self.run_dir / r.png, title)
        console.print(f"RAO report: {self.run_dir / r.json}, plot {png} ({time.perf_counter() - start:.0f} s)")
        if self.flat is not None:
            save_policy_folder(self.flat.policy, self.context.tokenizer, self.run_dir / "flat_policy")

    # -- checkpoints ------------------------------------------------------------------------------
    def on_save_checkpoint(self, checkpoint: dict) -> None:
        super().on_save_checkpoint(checkpoint)
        checkpoint["rao"] = {"env_steps_total": dict(self.env_steps_total), "report_before": self.report_before,
                             "flat": self.flat.state_dict() if self.flat is not None else None}

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        super().on_load_checkpoint(checkpoint)
        state = checkpoint.get("rao")
        if state is None:
            return
        self.env_steps_total = dict(state["env_steps_total"])
        self.report_before = state["report_before"]
        if self.flat is not None and state["flat"] is not None:
            self.flat.load_state_dict(state["flat"])
