"""``coevo-eval``: evaluate a trained policy on a split of an environment, per task type.

Launch: ``make eval ARGS="checkpoint=runs/<run> env=household eval.split=eval_out_of_distribution"``.
``checkpoint`` is a run folder (its ``policy/`` export is used, and its env/agent config unless
overridden) or any local Hugging Face model folder.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import hydra
from omegaconf import DictConfig, OmegaConf
from rich.console import Console

from coevo.core import registry
from coevo.core.cli.components import engine_component, env_factory
from coevo.core.cli.config_dir import find_config_dir
from coevo.core.cli.eval_range import apply_eval_range
from coevo.core.cli.schema import EvalSchema
from coevo.core.config import ConfigError, validate
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
    settings: EvalSchema = validate(cfg, EvalSchema, "eval")
    folder = model_folder(settings.checkpoint)
    cfg = apply_eval_range(cfg, flat_eval=True)
    _, _, make_env = env_factory(cfg.env)
    _, engine_cfg = engine_component(cfg.get("rollout"))
    model, tokenizer = load_pretrained(folder)
    e, engine_name = settings.eval, cfg.rollout.name if cfg.get("rollout") else "hf"

    def play(mode: str, samples: int) -> dict:
        return evaluate(model, tokenizer, make_env, settings.agent, e.split, e.num_tasks, e.batch_size, engine_name,
                        engine_cfg, mode=mode, samples_per_task=samples, sample_seed=e.sample_seed)[0]

    summary = with_greedy(play, e.mode, e.samples_per_task, e.also_greedy)
    title = (f"{folder} on {cfg.env.name}/{settings.eval.split} ({settings.eval.num_tasks} tasks, "
             f"{settings.eval.describe()})")
    console.print(success_table(None, summary, title))
    console.print(json.dumps({k: round(v, 4) for k, v in summary.items()}))
    return summary


def with_run_settings(cfg: DictConfig, overrides: list[str]) -> DictConfig:
    """Use a run folder's saved env and agent settings unless the command line overrides them."""
    run_config = Path(str(cfg.checkpoint)) / "config.yaml"
    if not run_config.is_file():
        return cfg
    saved = OmegaConf.load(run_config)
    cfg = OmegaConf.merge(cfg, {})  # a writable copy
    keys = [o.split("=", 1)[0].lstrip("+~") for o in overrides]
    if not any(k == "env" or k.startswith("env.") for k in keys):
        cfg.env = saved.env
    agent_overrides = [o.lstrip("+") for o in overrides if o.lstrip("+").startswith("agent.")]
    cfg.agent = OmegaConf.merge(saved.agent, OmegaConf.from_dotlist(agent_overrides).get("agent", {}))
    return cfg


def _main(cfg: DictConfig) -> None:
    from hydra.core.hydra_config import HydraConfig

    try:
        run(with_run_settings(cfg, list(HydraConfig.get().overrides.task)))
    except (ConfigError, ModelLoadError, registry.RegistryError, ValueError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        sys.exit(2)


def main() -> None:
    warnings.filterwarnings("ignore", message=".*does not have many workers.*")
    hydra.main(config_path=find_config_dir("eval.yaml"), config_name="eval", version_base="1.3")(_main)()


if __name__ == "__main__":
    main()
