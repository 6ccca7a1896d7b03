"""Fast CPU test configurations shared by every coevo package's tests.

``compose_fast`` composes the repository's Hydra ``train`` config with a tiny Qwen2 (hidden 32,
2 layers), a 40-episode warm start and a 6-task evaluation, writing under the caller's folders, so
a whole train → evaluate → report run takes seconds. ``boxes_corpus`` is the text of core's
``boxes`` environment for training a test tokenizer. Packages add their own overrides on top.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from omegaconf import DictConfig

from coevo.core.cli.config_sources import REPOSITORY_MARKER, compose_config
from coevo.core.env.actions import format_action
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv

TINY_MODEL = [
    "model.hidden_size=32",
    "model.num_layers=2",
    "model.num_heads=2",
    "model.num_kv_heads=1",
    "model.intermediate_size=64",
    "model.vocab_size=300",
]
ONE_THREAD = "trainer.cpu_threads=1"  # bit-reproducible runs whatever the machine's load (compose_fast)
FAST_WARMSTART = ["warmstart.episodes=40", "warmstart.sft.epochs=2", "warmstart.sft.batch_size=16"]
FAST_BOXES = ["env=boxes", *TINY_MODEL, *FAST_WARMSTART, "eval.num_tasks=6", "trainer.progress_bar=false"]


def available_env() -> list[str]:
    """``[]`` where ``train.yaml``'s default env (household, from coevo-envs) is installed, else
    ``["env=boxes"]``: core's tests also run in a venv holding coevo-core alone."""
    from coevo.core import registry

    return [] if "household" in registry.envs.names() else ["env=boxes"]


def repository_configs(test_file: str | Path) -> str:
    """The repository's ``configs/`` folder (experiment presets), found upwards from a test file."""
    for folder in Path(test_file).resolve().parents:
        if (folder / "configs" / REPOSITORY_MARKER).is_dir():
            return str(folder / "configs")
    raise FileNotFoundError(f"no configs/{REPOSITORY_MARKER}/ above {test_file}")


def compose_fast(config_dir: str, overrides: Iterable[str], cache_dir: Path, run_dir: Path,
                 base: Iterable[str] = FAST_BOXES) -> DictConfig:
    """The ``train`` config (every installed package's presets, then ``config_dir``'s): one torch
    thread, ``base``, then the warm-start cache and run folders, then ``overrides`` (with
    ``resume=<folder>`` the run folder is that folder: a resume may not move a run).

    One thread (``ONE_THREAD``) because tests compare runs bit for bit (a resumed run against a
    straight one): with two threads, while two other jobs shared the machine's two cores, such a
    pair's weights differed by 1e-8 in 3 of 4 tries; with one thread they were equal every time."""
    overrides = list(overrides)
    resumed = [o.split("=", 1)[1] for o in overrides if o.startswith("resume=")]
    run_dir = Path(resumed[-1]) if resumed else run_dir
    return compose_config("train", [ONE_THREAD, *base, f"warmstart.cache_dir={cache_dir}", f"run_dir={run_dir}", *overrides],
                          repository=config_dir)


def boxes_corpus(num_tasks: int = 24, extra: Iterable[str] = ()) -> list[str]:
    """Texts of the boxes env (first observations, commands as replies, memory lines, observations)
    plus ``extra``, for training a test tokenizer."""
    env = BoxesEnv(BoxesConfig(num_boxes=4))
    texts = [env.invalid_observation, *extra]
    for index in range(num_tasks):
        texts.append(env.reset(env.task("train", index)))
        while True:
            texts += env.admissible_actions()
            texts += [format_action(a) for a in env.admissible_actions()]
            texts.append("Memory: " + env.memory())
            result = env.step(env.expert_action())
            texts.append(result.observation)
            if result.done:
                break
    return texts
