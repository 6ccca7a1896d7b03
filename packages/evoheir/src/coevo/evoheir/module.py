"""EVOHEIR as a LightningModule: one Lightning step is one self-evolution round.

Differences from the paper's Algorithm 1, for a CPU-sized run: K branches of a few optimizer
steps (paper: 15), small screening/confirmation pools (paper: 16×4 and 32–64), a Scout that
writes tens of problems per step (paper: 1,024 per round), consensus support 0.5 (paper 0.7).
Round t from root S_t, in five steps; ``training_step`` reads as them, each a method of its own
(``explore``, ``screen``, ``recover_into``, ``confirm``, ``archive_experience``):

1. Explore: K branches, each from S_t with its own fresh AdamW (its resumable state — weights,
   optimizer, RNG — is kept in ``self.candidates``), ``explore_steps`` host updates; the host's
   qualified responses form E_t.
2. Screen: fresh screening items, every candidate (root, b1..bK) plays them; the recipient is the
   best root-relative paired score if it is > 0, else the root (ties go to the root).
3. Recover: qualify E_t ∪ M_t; the recipient's attempts split them into D_repair/D_keep; LoRA
   forward-KL distillation (``recovery.recover``) gives the proposal S_t^+.
4. Confirm: HEIRCOMMIT's paired comparison S_t^+ vs S_t on fresh confirmation items; commit if
   v > τ_t (the proposal's weights become S_{t+1}; the next branches start with fresh optimizers),
   else S_t is restored.
5. Archive: E_t enters M_{t+1} whether or not the round committed; saved atomically.

The data loader's placeholder batch is not used: the grpo host takes its batches from the data
module itself (so the data position is checkpointed), the r_zero host from its Scout. The
Lightning optimizer only counts rounds (one no-op step per round, so ``global_step`` = rounds).
Several processes (``trainer=ddp_cpu``): every rank runs the whole round on the same items with
the same seeds (the round is replicated, not sharded); the recipient and the commit decision are
rank 0's, broadcast, and the root's weights are broadcast from rank 0 at the end of each round, so
the replicas cannot drift apart. Only rank 0 writes files (rounds.jsonl, archive, summary, plot).

Sharded (``trainer=fsdp`` / ``fsdp_cpu`` over several processes): the round is replicated the same
way, but each rank holds 1/N of the weights and of each branch's AdamW state. Snapshots (the root,
C_t) are each rank's own shards; every rollout, screening, confirmation and held-out evaluation
samples from the rank's full replica (refreshed from the shards first, a collective every rank
calls at the same point); the explore updates and the Scout warm-up run the same number of
micro-batches on every rank (``lockstep``); recovery's teachers and LoRA student work on the full
replica and their deltas are merged into the shards; whether a proposal differs from the root is
agreed over the ranks. There is no replica drift to undo: each weight lives on one rank.

Resume (``resume=``): the checkpoint holds the round counter, the rows, the pool ledger, the
archive with its rejection counts and the compute totals; ``rounds.jsonl`` and the archive file
are rewritten from it, so rounds a killed run finished after its last checkpoint are replayed,
not duplicated.

Launch: ``make train ALGO=evoheir`` (env=math).
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import NamedTuple

import torch
from rich.console import Console
from tqdm.auto import tqdm

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.algos.rollout_module import RolloutModule
from coevo.core.config import ConfigError
from coevo.core.evaluation import evaluate
from coevo.core.state.snapshot import capture_rng, trainable_weights
from coevo.evoheir.archive import Archive
from coevo.evoheir.audit import summarize_audit
from coevo.evoheir.compute import ComputeMeter
from coevo.evoheir.config import EvoHeirConfig
from coevo.evoheir.experience import Record, qualify
from coevo.evoheir.hosts import HOSTS
from coevo.evoheir.hosts.objective import episode_tokens
from coevo.evoheir.math_env import MathEnv
from coevo.evoheir.paired import (
    AUDIT_STREAM,
    CONFIRM_STREAM,
    SCREEN_STREAM,
    derived_seed,
    evaluation_guard,
    load_weights,
    paired_gain,
    play_items,
    success_per_item,
)
from coevo.evoheir.pools import IndexRegion, PoolLedger, require_unbounded_train
from coevo.evoheir.pre_round_warmup import pre_round_warm_up
from coevo.evoheir.recovery import RecoveryOutcome, recover
from coevo.evoheir.report import plot_rounds, round_line
from coevo.evoheir.sequential import SequentialTest, judge_in_batches
from coevo.evoheir.threshold import commit_threshold, decision_delta, threshold

console = Console()
PHASES = ("explore", "screen", "recover", "confirm", "archive")
CORE_WARMSTART = (1_000_000, 1_100_000)  # core's default warmstart.first_index and a generous span


class Verdict(NamedTuple):
    """Step 4's outcome: the paired gain v, the threshold τ_t, the decision, whether the proposal
    equalled the root (nothing to judge), and the audit's true gain (None when not audited)."""

    v: float
    tau: float
    commit: bool
    unchanged: bool
    true_gain: float | None
    wins: int = 0  # confirmation items the proposal won over the root (and lost: ``losses``)
    losses: int = 0
    diffs: list[float] | None = None  # audited runs: every confirmation item's paired difference, in draw order
    items: int = 0  # confirmation items played (the pool, or the sequential judge's batches)
    decision: int | None = None  # t of δ_t (None: nothing was judged)


@registry.algorithms.register("evoheir")
class EvoHeir(RolloutModule):
    Config = EvoHeirConfig
    full_weight_forwards = True  # recovery's teachers and LoRA student on each rank's full copy

    @classmethod
    def async_refusal(cls, config: EvoHeirConfig) -> tuple[str, str] | None:
        # a round is K branches of a few steps each, judged from one root: its plays are not a stream of batches
        return ("rollout.async.enabled", "EVOHEIR's screening and confirmation judge the weights of this very "
                "round (each branch's and the proposal's, paired on the same fresh items), and its branches explore "
                "from one root for a few steps each")

    def __init__(self, config: EvoHeirConfig, context: AlgorithmContext):
        super().__init__(context, config.optim, config.group_size)
        self.config = config
        probe = self.envs(1)[0]
        if not isinstance(probe, MathEnv):
            raise ConfigError(f"algo=evoheir runs on env=math (its Scout writes math problems), got env={probe.name}: "
                             f"make train ALGO=evoheir ARGS=\"env=math\"")
        require_unbounded_train(probe, "algo=evoheir")
        self.math_config = probe.config
        self.logprob_temperature = context.agent.sampling.temperature
        self.host = HOSTS[config.host](self)
        self.archive = Archive(config.archive.cap)
        if config.archive.enabled and config.archive.load:
            self.archive = Archive.load(config.archive.load, config.archive.cap)
        self.meter = ComputeMeter()
        self.ledger = PoolLedger(probe, self._regions())  # overlapping pools fail here, before any work
        self.round = 0
        self.decisions = 0  # HEIRCOMMIT decisions made: t of δ_t = δ/(t(t+1)) (a round with nothing to judge spends none)
        self.rows: list[dict] = []
        self.candidates: dict[str, dict] = {}  # C_t: each branch endpoint's resumable state
        self.heldout0: float | None = None
        self.run_dir = Path(".")

    def _regions(self) -> list[IndexRegion]:
        c = self.config
        steps = c.rounds * c.branches * c.explore_steps
        s = c.scout
        regions = [
            IndexRegion("training", "train", 0, steps * c.tasks_per_step),
            IndexRegion("warm start", "train", *CORE_WARMSTART),
            IndexRegion("screening", "train", c.screen.start, c.screen.start + c.rounds * c.screen.pool_size),
            IndexRegion("confirmation", "train", c.commit.start, c.commit.start + c.rounds * self._span()),
        ]
        scout_examples, reference_examples = self._warmup_examples()
        if scout_examples or reference_examples:
            regions.append(IndexRegion("pre-round warm-up", "train", s.warmup_first_index,
                                       s.warmup_first_index + 2 * scout_examples + reference_examples))
        if c.audit_settings.enabled:
            a = c.audit_settings
            regions.append(IndexRegion("audit", "train", a.start, a.start + c.rounds * a.pool_size))
        return regions

    def _warmup_examples(self) -> tuple[int, int]:
        """(Scout replies, reference-reading examples) the pre-round warm-up teaches: the Scout's only for
        the r_zero host, the repair teacher's only when Recovery runs."""
        c = self.config
        scout = c.scout.warmup_examples if c.host == "r_zero" else 0
        return scout, (c.recovery.teacher_warmup_examples if c.recovery.enabled else 0)

    def _span(self) -> int:
        """Confirmation items one decision reserves: the pool, or the sequential judge's budget."""
        commit = self.config.commit
        return commit.max_items if commit.bound == "sequential" else commit.pool_size

    # -- setup ----------------------------------------------------------------------------------
    def on_fit_start(self) -> None:
        super().on_fit_start()
        logger = self.trainer.logger if self.trainer is not None else None
        self.run_dir = Path(logger.save_dir) if logger is not None else Path(self.trainer.default_root_dir)
        if dist.is_main():  # fresh: an earlier run's rounds (overwrite=true) go; resumed: the checkpoint's stay
            self._rewrite_round_files()
        c = self.config
        loop = self.trainer.fit_loop.epoch_loop  # one step per round: the progress bar counts rounds
        loop.max_steps = c.rounds if loop.max_steps is None or loop.max_steps < 0 else min(loop.max_steps, c.rounds)
        scout_examples, reference_examples = self._warmup_examples()
        if (scout_examples or reference_examples) and self.round == 0:
            start = time.perf_counter()
            stats = pre_round_warm_up(self.policy, self.context.tokenizer, self.context.agent, self.envs(1)[0],
                                      c.scout, c.scout.warmup_seed, scout_examples, reference_examples)
            console.print(f"[bold]pre-round warm-up[/bold]: {int(stats['examples'])} examples ({scout_examples} Scout "
                          f"replies + {scout_examples} solver answers + {reference_examples} read from a reference), "
                          f"loss {stats['first_loss']:.3f} → {stats['last_loss']:.3f} in "
                          f"{time.perf_counter() - start:.0f} s")
        if c.heldout_tasks > 0 and self.round == 0:
            self.heldout0 = self._heldout()
            if dist.is_main():
                console.print(f"round 0 held-out accuracy: {self.heldout0 * 100:.1f}% ({c.heldout_tasks} tasks, greedy)")

    def training_batch(self):
        """The next training batch of the data module (marked as training items in the ledger)."""
        datamodule = getattr(self.trainer, "datamodule", None) if self._trainer is not None else None
        if datamodule is None:
            return self.ledger.draw("training", self.config.tasks_per_step)
        _, tasks = datamodule.take()
        self.ledger.mark_used("training", tasks)
        return tasks

    # -- scoring ---------------------------------------------------------------------------------
    def _play(self, weights, tasks, samples: int, seed: int, phase: str) -> torch.Tensor:  # [len(tasks)]
        with evaluation_guard(self.policy):
            load_weights(self.policy, weights)
            self.engine.sync_weights(self.policy)
            episodes = play_items(self.agent, self.envs(len(tasks) * samples), tasks, samples, seed,
                                  greedy=self.config.commit.metric == "greedy")
        self.meter.add(phase, episode_tokens(episodes))
        return success_per_item(episodes, samples)

    def _heldout(self) -> float:
        with evaluation_guard(self.policy):
            summary, episodes = evaluate(self.full_policy(), self.context.tokenizer, self.context.make_env, self.context.agent,
                                         "eval_in_distribution", self.config.heldout_tasks, self.config.heldout_tasks,
                                         self.context.engine_name, self.context.engine_config)
        self.meter.add("heldout", episode_tokens(episodes))
        return summary["success"]

    # -- one round ---------------------------------------------------------------------------
    def training_step(self, batch, batch_idx):
        """Round t from root S_t: the paper's five steps, each a method below."""
        t = self.round + 1
        self.meter.start_round()
        show = self.trainer.progress_bar_callback is not None if self._trainer is not None else False
        bar = tqdm(total=len(PHASES), desc=f"round {t}/{self.config.rounds}", leave=False, disable=not show)
        root = trainable_weights(self.policy)
        bar.set_postfix_str("explore")
        experience, host_stats = self.explore(t, root)  # 1. C_t (self.candidates) and E_t
        bar.update()
        bar.set_postfix_str("screen")
        screen, recipient = self.screen(t, root)  # 2. the recipient θ_sel
        bar.update()
        bar.set_postfix_str("recover")
        recipient_weights = root if recipient == "root" else self.candidates[recipient]["weights"]
        qualified, dropped, outcome, proposal = self.recover_into(recipient_weights, experience)  # 3. S_t^+
        bar.update()
        bar.set_postfix_str("confirm")
        verdict = self.confirm(t, root, proposal)  # 4. S_{t+1}: S_t^+ if it wins, else S_t
        bar.update()
        bar.set_postfix_str("archive")
        self.archive_experience(experience)  # 5. M_{t+1}
        bar.update()
        bar.close()

        heldout = self._heldout() if self.config.heldout_tasks > 0 else None
        row = {
            "round": t, "screen": screen, "recipient": recipient, "experience": len(experience),
            "qualified": len(qualified), "dropped": dropped, "n_repair": outcome.n_repair, "n_keep": outcome.n_keep,
            "recovery_gain": outcome.gain, "teacher_success": outcome.teacher_success, "recovery_loss_first": outcome.loss_first,
            "recovery_loss_last": outcome.loss_last, "v": verdict.v, "tau": verdict.tau, "commit": verdict.commit,
            "unchanged": verdict.unchanged, "true_gain": verdict.true_gain, "wins": verdict.wins,
            "losses": verdict.losses, "confirm_items": verdict.items, "decision": verdict.decision,
            "confirm_diffs": verdict.diffs,
            "archive_size": len(self.archive), "archive_strata": self.archive.strata(), "heldout": heldout,
            "units": self.meter.round_units(), "units_total": self.meter.total_units(),
            "scout_examples": getattr(self.host, "examples", []),
            "host_stats": {k: v for k, v in host_stats.items() if not k.startswith("_")}, "compute_tokens": dict(self.meter.round),
        }
        self._finish_round(row)

    def explore(self, t: int, root: dict) -> tuple[list[Record], dict]:
        """1. K branches from S_t, each with its own fresh AdamW, ``explore_steps`` host updates; each
        endpoint's resumable state goes to ``self.candidates``. Returns (E_t, the host's statistics)."""
        c = self.config
        experience, host_stats = [], {}
        for k in range(c.branches):
            load_weights(self.policy, root)
            optimizer = torch.optim.AdamW([p for p in self.policy.parameters() if p.requires_grad], lr=c.optim.lr,
                                          betas=tuple(c.optim.betas), weight_decay=c.optim.weight_decay)
            for s in range(c.explore_steps):
                out = self.host.explore_step(optimizer, t, k, s)
                self.meter.add("explore", out.pop("tokens"), baseline=k == 0)
                experience += out.pop("records")
                for key, value in out.items():
                    _accumulate(host_stats, key, value)
            self.candidates[f"b{k + 1}"] = {"weights": trainable_weights(self.policy),
                                            "optimizer": optimizer.state_dict(), "rng": capture_rng()}
            if k == 0:
                self.record_held_state(optimizer)  # sharded: the most any rank holds (weights, AdamW)
        load_weights(self.policy, root)
        return experience, host_stats

    def screen(self, t: int, root: dict) -> tuple[dict[str, float], str]:
        """2. Every candidate (root, b1..bK) plays fresh screening items; the recipient is the best
        root-relative paired score if it is > 0, else the root (ties go to the root). Returns (scores,
        recipient), the recipient chosen on rank 0."""
        c, seed = self.config, self.context.seed
        items = self.ledger.draw("screening", c.screen.pool_size)
        root_scores = self._play(root, items, c.screen.samples, derived_seed(seed, t, SCREEN_STREAM, 0), "screen")
        screen = {"root": 0.0}
        for k, name in enumerate(self.candidates, start=1):
            scores = self._play(self.candidates[name]["weights"], items, c.screen.samples,
                                derived_seed(seed, t, SCREEN_STREAM, 0 if c.commit.common_seeds else k), "screen")
            screen[name] = paired_gain(scores, root_scores).gain
        best = max(screen, key=lambda n: (screen[n], n == "root"))  # ties go to the root
        return screen, dist.broadcast_object(best if screen[best] > 0 else "root")  # chosen once, on rank 0

    def recover_into(self, recipient_weights: dict, experience: list[Record]):
        """3. Qualify E_t ∪ M_t and distil it into the recipient (``recovery.recover``). Returns
        (qualified, dropped, the recovery outcome, the proposal S_t^+'s weights), the proposal loaded."""
        c = self.config
        memory = [] if (not c.archive.enabled or c.archive.current_round_only) else list(self.archive.records)
        qualified, dropped = qualify(memory + experience)
        load_weights(self.policy, recipient_weights)
        outcome = RecoveryOutcome(None)
        if c.recovery.enabled and qualified:
            self.engine.sync_weights(self.policy)  # sharded: the replica holds θ_sel for teachers and student
            outcome = recover(self.policy, self.agent, self.context.tokenizer, self.math_config, qualified, c.recovery,
                              full_model=self.no_grad_policy())
            self.meter.add("recover", outcome.tokens)
        proposal = outcome.weights if outcome.weights is not None else recipient_weights
        load_weights(self.policy, proposal)
        return qualified, dropped, outcome, proposal

    def confirm(self, t: int, root: dict, proposal: dict) -> Verdict:
        """4. HEIRCOMMIT: the paired comparison S_t^+ vs S_t on fresh confirmation items (and the
        audit's true gain when enabled); commit if v > τ_t, decided on rank 0. The policy ends holding
        S_{t+1} on every rank and the engine is synced to it."""
        c, cc, seed = self.config, self.config.commit, self.context.seed
        v, tau, commit, wins, losses, diffs, played, decision = math.nan, math.nan, True, 0, 0, None, 0, None
        unchanged = all(torch.equal(proposal[k], root[k]) for k in root)
        if self.sharded_over_ranks:  # each rank compared its own shards: unchanged only if on every rank
            unchanged = dist.max_over_ranks(int(not unchanged)) == 0
        audit_items = []
        if c.audit_settings.enabled and not unchanged:
            audit_items = self.ledger.draw("audit", c.audit_settings.pool_size)
        if cc.enabled and unchanged:  # the root itself (no branch won, nothing recovered): nothing to judge
            v, commit = 0.0, False
            if cc.bound != "sequential":
                tau = threshold(cc.mode, max(1, self.decisions), cc.pool_size, cc.sigma, cc.delta, cc.bound, discordant=0)
        elif cc.enabled:
            self.decisions += 1
            decision = self.decisions
            items = self.ledger.draw("confirmation", self._span())

            def play_pair(batch: int | None, batch_items) -> tuple[torch.Tensor, torch.Tensor]:
                batches = () if batch is None else (batch,)
                new = self._play(proposal, batch_items, cc.samples, derived_seed(seed, t, CONFIRM_STREAM, 0, *batches), "confirm")
                old = self._play(root, batch_items, cc.samples,
                                 derived_seed(seed, t, CONFIRM_STREAM, int(not cc.common_seeds), *batches), "confirm")
                return new, old

            if cc.bound == "sequential":  # batches until an e-process decides; no bar fixed in advance (τ nan)
                test = SequentialTest(decision_delta(cc.delta, decision), cc.max_items, cc.futility)
                new, old = judge_in_batches(test, items, cc.batch_items, play_pair, dist.broadcast_object)
                commit = test.verdict == "commit"
            else:
                new, old = play_pair(None, items)
                tau = commit_threshold(cc.mode, cc.bound, decision, cc.sigma, cc.delta, new, old)
            paired = paired_gain(new, old)
            v, wins, losses, played = paired.gain, paired.wins, paired.losses, paired.m
            commit = commit if cc.bound == "sequential" else v > tau
            if c.audit_settings.enabled:  # what the benchmark replays each acceptance rule on
                diffs = [round(x, 6) for x in (new.double() - old.double()).tolist()]
        true_gain = None
        if audit_items:
            a, items = c.audit_settings, audit_items
            new = self._play(proposal, items, a.samples, derived_seed(seed, t, AUDIT_STREAM, 0), "audit")
            old = self._play(root, items, a.samples, derived_seed(seed, t, AUDIT_STREAM, int(not c.commit.common_seeds)), "audit")
            true_gain = paired_gain(new, old).gain
        commit = dist.broadcast_object(commit)  # decided once, on rank 0
        load_weights(self.policy, proposal if commit else root)
        if not self.sharded_over_ranks:  # replicas: S_{t+1} is rank 0's on every rank (shards: one owner each)
            dist.broadcast_parameters(self.policy)
        self.engine.sync_weights(self.policy)
        return Verdict(v, tau, commit, unchanged, true_gain, wins, losses, diffs, played, decision)

    def archive_experience(self, experience: list[Record]) -> None:
        """5. E_t enters M_{t+1} whether or not the round committed; saved atomically (rank 0)."""
        c = self.config
        if c.archive.enabled:
            self.archive.add(experience)
            if dist.is_main():
                self.archive.save(self.run_dir / c.archive.file)
        return None

    def _finish_round(self, row: dict) -> None:
        self.round = row["round"]
        self.rows.append(row)
        if dist.is_main():
            console.print(round_line(row))
            with (self.run_dir / "rounds.jsonl").open("a") as handle:
                handle.write(json.dumps(row, default=float) + "\n")
        metrics = {"round": row["round"], "commit/decision": float(row["commit"]), "commit/gain": row["v"],
                   "commit/threshold": row["tau"], "recovery/n_repair": row["n_repair"],
                   "recovery/n_keep": row["n_keep"], "recovery/gain": row["recovery_gain"],
                   "archive/size": row["archive_size"], "compute/units": row["units"],
                   "screen/recipient_score": row["screen"][row["recipient"]]}
        metrics |= {f"screen/{k}": v for k, v in row["screen"].items()}
        if not math.isnan(row["teacher_success"]):
            metrics["recovery/teacher_success"] = row["teacher_success"]
        if row["heldout"] is not None:
            metrics["heldout_success"] = row["heldout"]
        if row["true_gain"] is not None:
            metrics["audit/true_gain"] = row["true_gain"]
        for key in ("success", "reward"):  # the explore rollouts, where training.png's left panel reads them
            if key in row["host_stats"]:
                metrics[key] = row["host_stats"][key]
        for key in ("scout_reward", "valid", "admitted", "attempts"):
            if key in row["host_stats"]:
                metrics[f"host/{key}"] = row["host_stats"][key]
        # the round is replicated: the same values on every rank (no reduction)
        self.record({k: v for k, v in metrics.items() if v is not None and not _isnan(v)}, reduce=False)
        self.log("commits", float(sum(r["commit"] for r in self.rows)), prog_bar=True, on_step=True, logger=False)
        optimizer = self.optimizers()  # the round counter: a step without gradients changes nothing
        optimizer.zero_grad(set_to_none=True)
        optimizer.step()
        if self.round >= self.config.rounds:
            self.trainer.should_stop = True

    def on_train_end(self) -> None:
        if not self.rows or not dist.is_main():
            return
        commits = sum(r["commit"] for r in self.rows)
        console.print(f"[bold]EVOHEIR[/bold]: {len(self.rows)} rounds, {commits} committed, "
                      f"{len(self.rows) - commits} rolled back; compute {self.meter.total_units():.1f} units "
                      f"vs 100 for the single-stream host; archive {len(self.archive)} records {self.archive.strata()}")
        if self.heldout0 is not None and self.rows[-1]["heldout"] is not None:
            console.print(f"held-out accuracy: round 0 {self.heldout0 * 100:.1f}% → final root "
                          f"{self.rows[-1]['heldout'] * 100:.1f}%")
        summary = {"rounds": self.rows, "heldout_round0": self.heldout0, "compute_units": self.meter.total_units(),
                   "compute_tokens": dict(self.meter.total), "config": asdict(self.config)}
        if self.config.audit_settings.enabled:
            summary["audit"] = summarize_audit([{"commit": r["commit"], "true_gain": r["true_gain"]}
                                                for r in self.rows if r["true_gain"] is not None])
            for rule, stats in summary["audit"].items():
                console.print(f"audit {rule}: " + ", ".join(f"{k} {v:.3f}" for k, v in stats.items()))
        (self.run_dir / "evoheir_summary.json").write_text(json.dumps(summary, indent=1, default=float))
        png = plot_rounds(self.rows, self.heldout0, self.run_dir / "rounds.png",
                          f"EVOHEIR ({self.config.host} host, {self.config.commit.mode} commit)")
        console.print(f"rounds plot: {png}")

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        """Rounds done, pool cursors and used items (fresh pools after a resume), the archive (and
        its rejection counts), the compute meter's totals."""
        super().on_save_checkpoint(checkpoint)
        checkpoint["evoheir"] = {
            "round": self.round, "decisions": self.decisions, "rows": self.rows, "heldout0": self.heldout0,
            "cursor": dict(self.ledger.cursor), "used": [[k[0], k[1], v] for k, v in self.ledger.used.items()],
            "archive": [r.as_dict() for r in self.archive.records], "archive_rejected": dict(self.archive.rejected),
            "meter": {"total": dict(self.meter.total), "baseline_total": self.meter.baseline_total},
        }

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        super().on_load_checkpoint(checkpoint)
        state = checkpoint.get("evoheir")
        if state is None:
            return
        self.round, self.rows, self.heldout0 = state["round"], state["rows"], state["heldout0"]
        self.decisions = state.get("decisions", self.round)  # older checkpoints numbered decisions by round
        self.ledger.cursor.update(state["cursor"])
        self.ledger.used = {(split, index): owner for split, index, owner in state["used"]}
        self.archive.records = [Record(**row) for row in state["archive"]]
        self.archive.rejected = Counter(state.get("archive_rejected", {}))
        if "meter" in state:
            self.meter.total = Counter(state["meter"]["total"])
            self.meter.baseline_total = state["meter"]["baseline_total"]

    def _rewrite_round_files(self) -> None:
        """``rounds.jsonl`` and the archive file hold this run's rounds only: none for a fresh run (one
        started with overwrite=true in an earlier run's folder does not append to its rounds), the
        checkpoint's after a resume (a killed run may have written rounds past its last checkpoint; they
        are replayed)."""
        with (self.run_dir / "rounds.jsonl").open("w") as handle:
            handle.writelines(json.dumps(row, default=float) + "\n" for row in self.rows)
        if self.config.archive.enabled:
            self.archive.save(self.run_dir / self.config.archive.file)

    def snapshot_extra(self) -> dict:
        return {"round": self.round}

    def restore_extra(self, state: dict) -> None:
        self.round = state.get("round", self.round)


def _accumulate(stats: dict, key: str, value) -> None:
    if isinstance(value, dict):
        inner = stats.setdefault(key, {})
        for k, v in value.items():
            inner[k] = inner.get(k, 0) + v
    elif isinstance(value, bool | int):
        stats[key] = stats.get(key, 0) + value
    elif isinstance(value, float):
        stats.setdefault("_" + key, []).append(value)
        vals = [x for x in stats["_" + key] if not math.isnan(x)]
        stats[key] = sum(vals) / len(vals) if vals else math.nan


def _isnan(x) -> bool:
    return isinstance(x, float) and math.isnan(x)
