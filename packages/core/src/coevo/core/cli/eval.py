"""``coevo-eval``: evaluate a trained policy on a split of an environment, per task type.

Launch: ``make eval ARGS="checkpoint=runs/<run> env=household eval.split=eval_out_of_distribution"``.
``checkpoint`` is a run folder (its ``policy/`` export is used, and its env/agent config unless
overridden) or any local Hugging Face model folder.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from omegaconf import DictConfig, OmegaConf
from rich.console import Console
from rich.markup import escape

from coevo.core.cli.components import engine_component, env_factory
from coevo.core.cli.errors import InputError, debug_flag, run_guarded, stage
from coevo.core.cli.eval_range import apply_eval_range
from coevo.core.cli.hydra_entry import run_hydra
from coevo.core.cli.notices import quiet_third_party
from coevo.core.cli.preflight import eval_task_count
from coevo.core.cli.schema import EvalSchema
from coevo.core.config import validate
from coevo.core.evaluation import evaluate, with_greedy
from coevo.core.policy.builders import ModelLoadError, load_pretrained
from coevo.core.reporting import success_table

console = Console()


def model_folder(checkpoint: str) -> Path:
    """The model folder of ``checkpoint`` (a run folder's ``policy/`` or the folder itself)."""
    path = Path(checkpoint)
    if (path / "policy" / "config.json").is_file():
        return path / "policy"
    if (path / "config.json").is_file():
        return path
    raise ModelLoadError(
        f"checkpoint: '{path}' is neither a coevo run folder (with policy/) nor a Hugging Face model "
        f"folder (with config.json); pass checkpoint=<run folder> or checkpoint=<model folder>"
    )


def run(cfg: DictConfig) -> dict:
    with stage("config"):
        settings: EvalSchema = validate(cfg, EvalSchema, "eval")
        cfg = apply_eval_range(cfg, flat_eval=True)
        _, engine_cfg = engine_component(cfg.get("rollout"))
    with stage("data"):
        _, _, make_env = env_factory(cfg.env)
    with stage("config"):
        num_tasks = eval_task_count(make_env, settings.eval.split, settings.eval.num_tasks)
    with stage("checkpoint"):
        folder = model_folder(settings.checkpoint)
        model, tokenizer = load_pretrained(folder, key="checkpoint")
    e, engine_name = settings.eval, cfg.rollout.name if cfg.get("rollout") else "hf"

    def play(mode: str, samples: int) -> dict:
        return evaluate(model, tokenizer, make_env, settings.agent, e.split, e.num_tasks, e.batch_size, engine_name,
                        engine_cfg, mode=mode, samples_per_task=samples, sample_seed=e.sample_seed)[0]

    with stage("evaluation"):
        summary = with_greedy(play, e.mode, e.samples_per_task, e.also_greedy)
    title = (f"{folder} on {cfg.env.name}/{settings.eval.split} ({num_tasks} tasks, "
             f"{settings.eval.describe()})")
    console.print(success_table(None, summary, escape(title), single="success"))
    console.print(json.dumps({k: round(v, 4) for k, v in summary.items()}), markup=False)
    return summary


def with_run_settings(cfg: DictConfig, overrides: list[str]) -> DictConfig:
    """A run folder's saved env and agent settings as the defaults, the command line's on top.

    ``env=<name>`` on the command line chooses another environment (its preset, then its
    ``env.*`` overrides); otherwise the run's own env is kept and ``env.*`` overrides change it
    (``make eval CKPT=<run on boxes> ARGS="env.max_steps=3"`` evaluates on boxes). ``agent.*``
    likewise.
    """
    if OmegaConf.is_missing(cfg, "checkpoint"):
        raise InputError("checkpoint: missing; pass checkpoint=<run folder or model folder> "
                         "(make eval CKPT=runs/<run>)")
    run_config = Path(str(cfg.checkpoint)) / "config.yaml"
    if not run_config.is_file():
        return cfg
    try:
        saved = OmegaConf.load(run_config)
    except Exception as exc:  # noqa: BLE001 - a damaged run folder: one line naming the file
        raise InputError(f"checkpoint: '{run_config}' is not a readable run config ({exc}); "
                         f"pass checkpoint=<a run folder written by coevo-train>") from None
    cfg = OmegaConf.merge(cfg, {})  # a writable copy
    keys = [o.split("=", 1)[0] for o in overrides]
    for group in ("env", "agent"):
        if group == "env" and any(k.lstrip("+~") == "env" for k in keys):
            continue  # another environment chosen: its preset with the command line's env.* on top
        merged = OmegaConf.merge(saved.get(group) or {}, {})
        for key in keys:
            plain = key.lstrip("+~")
            if not plain.startswith(f"{group}."):
                continue
            if key.startswith("~"):
                parent, _, leaf = plain[len(group) + 1:].rpartition(".")
                node = OmegaConf.select(merged, parent) if parent else merged
                if isinstance(node, DictConfig) and leaf in node:
                    node.pop(leaf)
            else:
                OmegaConf.update(merged, plain[len(group) + 1:], OmegaConf.select(cfg, plain), force_add=True)
        cfg[group] = merged
    return cfg


def _main(cfg: DictConfig) -> None:
    from hydra.core.hydra_config import HydraConfig

    overrides = list(HydraConfig.get().overrides.task)

    def body() -> dict:
        with stage("checkpoint"):
            run_cfg = with_run_settings(cfg, overrides)
        return run(run_cfg)

    run_guarded(body, console, debug_flag(cfg))


def main() -> None:
    quiet_third_party()
    warnings.filterwarnings("ignore", message=".*does not have many workers.*")
    run_hydra("eval", _main, console)


if __name__ == "__main__":
    main()
