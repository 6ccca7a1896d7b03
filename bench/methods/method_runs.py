"""Shared by the method comparisons under bench/: start a results record, train one configuration
in this process and read back what a comparison tables (held-out success before/after, per task type, rollouts spent,
wall time and training time), and summarise runs per method as mean and standard deviation over seeds."""

from __future__ import annotations

import json
import platform
import statistics
import sys
import time
from pathlib import Path

import torch
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.cli import train
from coevo.core.cli.components import build_component, env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import validate

ROOT = Path(__file__).resolve().parents[2]


def start_record(module: str, **lists) -> dict:
    """A results record: the exact command (``module``: the script as ``python -m`` runs it), the machine (one torch thread: set here), empty lists."""
    torch.set_num_threads(1)
    return {"command": " ".join([".venv/bin/python -m", module, *sys.argv[1:]]),
            "machine": f"{platform.processor() or platform.machine()}, {torch.get_num_threads()} torch thread(s)",
            **{name: list(value) for name, value in lists.items()}}


# what the held-out evaluation before training depends on: the warm-started model (built from the
# agent, warmstart, env and model settings; its own seed, not the run's) and the evaluation (its own
# sample seed), the engine, and the algorithm's name (an algorithm may bring its own warm-start data)
BEFORE_DEPENDS_ON = ("agent", "warmstart", "eval", "env", "model", "rollout", "algo.name")
_before_seen: dict[str, tuple[dict, str]] = {}  # those settings (as JSON) -> (the evaluation, its run dir)


def before_key(cfg) -> str:
    """The settings the evaluation before training is a function of, as canonical JSON."""
    return json.dumps({key: OmegaConf.to_container(OmegaConf.select(cfg, key), resolve=True)
                       if OmegaConf.is_config(OmegaConf.select(cfg, key)) else OmegaConf.select(cfg, key)
                       for key in BEFORE_DEPENDS_ON}, sort_keys=True, default=str)


def reuse_before_of(run_dir: Path) -> None:
    """Let later runs with the same ``BEFORE_DEPENDS_ON`` settings reuse ``run_dir``'s evaluation
    before training (its ``config.yaml`` and ``eval_before.json``): a comparison split over processes."""
    saved = OmegaConf.load(run_dir / "config.yaml")
    _before_seen[before_key(saved)] = (json.loads((run_dir / "eval_before.json").read_text()), str(run_dir))


def algorithm_warm_start(overrides: list[str]):
    """``(cfg, settings, algo_cfg, make_env, folder)``: the train config ``overrides`` compose and the
    folder of the warm start its algorithm builds (with the algorithm's own data; built and cached here)."""
    cfg = compose_config("train", overrides, repository=str(ROOT / "configs"))
    settings = validate(cfg, TrainSchema, "train")
    algo_cls, algo_cfg = build_component(registry.algorithms, cfg.algo, "algo")
    _, env_cfg, make_env = env_factory(cfg.env)
    folder = train.warm_start_folder(settings, cfg, make_env, env_cfg, train.expert_source(algo_cls, algo_cfg))
    return cfg, settings, algo_cfg, make_env, Path(folder).resolve()


def from_warm_start_of(overrides: list[str]) -> list[str]:
    """Overrides that start any method from the warm start ``overrides`` would build: its folder as a
    Hugging Face model, fully fine-tuned, with no warm start of its own. Methods whose algorithms
    bring different warm-start data (RSIPO's writing examples) then share weights."""
    folder = algorithm_warm_start(overrides)[-1]
    return ["model=hf", f"model.path={folder}", "model.lora.enabled=false", "warmstart.enabled=false"]


def run_method(method: str, seed: int, steps: int, overrides: list[str], run_dir: Path) -> dict:
    """Train ``overrides`` for ``steps`` optimizer steps with ``seed`` into ``run_dir``; its numbers.

    The evaluation before training is played once per distinct ``BEFORE_DEPENDS_ON`` settings in
    this process and reused by later runs (``before_from`` names the run that played it): every run
    of a comparison starts from the same cached warm start, so it is the same numbers."""
    # one torch thread, as start_record says (train's default, auto, takes every core: two comparisons
    # side by side on two cores then ran 4 threads and each step 5-8 times slower than alone)
    common = [f"seed={seed}", f"trainer.max_steps={steps}", f"run_dir={run_dir}", "overwrite=true",
              "trainer.progress_bar=false", "trainer.checkpoint_every=1000", "trainer.cpu_threads=1"]
    cfg = compose_config("train", [*overrides, *common], repository=str(ROOT / "configs"))
    seen = _before_seen.get(before_key(cfg)) if cfg.eval.before else None
    if seen is not None:
        cfg = compose_config("train", [*overrides, *common, "eval.before=false"], repository=str(ROOT / "configs"))
    start = time.perf_counter()
    result = train.run(cfg)
    if seen is not None:
        result["before"] = seen[0]
    elif result["before"] is not None:
        _before_seen[before_key(cfg)] = (result["before"], str(run_dir))
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines() if line.strip()]
    rollouts = rows[-1].get("train/budget/rollouts_total") or sum(
        r.get("train/budget/rollouts", 0) or 0 for r in rows) or (
        steps // cfg.algo.get("updates_per_batch", 1) * cfg.algo.tasks_per_step * cfg.algo.group_size)
    # rollouts and updates only: comparable between runs that did and did not play the evaluation before
    train_seconds = sum((r.get("train/rollout_seconds") or 0) + (r.get("train/update_seconds") or 0) for r in rows)
    return {"method": method, "seed": seed, "steps": steps, "seconds": round(time.perf_counter() - start, 1),
            "train_seconds": round(train_seconds, 1),
            "before": result["before"]["success"], "after": result["after"]["success"],
            "before_greedy": result["before"].get("greedy/success"), "after_greedy": result["after"].get("greedy/success"),
            "after_per_type": {k: v for k, v in result["after"].items() if k.startswith("success/")},
            "rollouts": rollouts, "run_dir": str(run_dir), **({"before_from": seen[1]} if seen else {})}


def summarise(runs: list[dict], methods) -> dict:
    """Per method: runs, mean rollouts, seconds and training seconds, mean ± sd of the held-out success after training."""
    table = {}
    for method in methods:
        mine = [r for r in runs if r["method"] == method]
        if not mine:
            continue
        counted = [r["rollouts"] for r in mine if r.get("rollouts") is not None]  # None: not counted (older records)
        table[method] = {"n": len(mine), "rollouts": statistics.mean(counted) if counted else None,
                         "seconds": statistics.mean(r["seconds"] for r in mine)}
        trained = [r["train_seconds"] for r in mine if r.get("train_seconds") is not None]
        if trained:
            table[method]["train_seconds"] = statistics.mean(trained)
        for key in ("after", "after_greedy"):
            values = [r[key] for r in mine if r.get(key) is not None]
            if values:
                table[method][f"{key}_mean"] = statistics.mean(values)
                table[method][f"{key}_std"] = statistics.stdev(values) if len(values) > 1 else 0.0
    return table
