"""The wheels carry their configs: in a fresh venv holding only the wheels of coevo-core, coevo-envs
and coevo-rsipo (and their dependencies), ``coevo-train algo=rsipo`` runs from a folder outside
the repository, and ``coevo-train algo=rao`` says which package to install.

Slow (a venv with torch is built, ~2 min here): marked ``slow``; part of ``make test``'s end-to-end run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("core", "envs", "rsipo")
FAST = [
    "env.num_objects=1", "model.hidden_size=32", "model.num_layers=2", "model.num_heads=2",
    "model.num_kv_heads=1", "model.intermediate_size=64", "model.vocab_size=400",
    "warmstart.episodes=8", "warmstart.sft.epochs=1", "trainer.max_steps=1", "trainer.progress_bar=false",
    "algo.tasks_per_step=2", "algo.group_size=2", "algo.opsd_turns=4", "eval.num_tasks=2", "eval.batch_size=2",
    "eval.samples_per_task=1", "eval.also_greedy=false",
]


def _run(cmd, cwd, env=None, timeout=900) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    """``(python, coevo-train, a working folder outside the repository, env)``."""
    base = tmp_path_factory.mktemp("wheels")
    pip_env = {**os.environ, "PIP_NO_COMPILE": "1"}  # no .pyc for torch's thousands of files
    wheels = base / "dist"
    sources = [shutil.copytree(ROOT / "packages" / p, base / "src" / p, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__")) for p in PACKAGES]  # setuptools builds inside the source folder
    built = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                  *map(str, sources)], cwd=base, env=pip_env)
    assert built.returncode == 0, built.stderr[-3000:]
    venv = base / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)], cwd=base).returncode == 0
    python = venv / "bin" / "python"
    torch = _run(["bash", str(ROOT / ".ci" / "install_torch.sh"), str(python)], cwd=base, env=pip_env)
    assert torch.returncode == 0, torch.stderr[-3000:]
    installed = _run([str(python), "-m", "pip", "install", "-q", *map(str, sorted(wheels.glob("*.whl")))], cwd=base,
                     env=pip_env)
    assert installed.returncode == 0, installed.stderr[-3000:]
    outside = base / "work"
    outside.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("COEVO_CONFIG_DIR", "PYTHONPATH", "VIRTUAL_ENV")}
    env |= {"OMP_NUM_THREADS": "1", "PATH": f"{venv / 'bin'}:{env.get('PATH', '')}"}
    return python, venv / "bin" / "coevo-train", outside, env


@pytest.mark.slow
def test_the_wheels_hold_their_configs_and_no_repository_file(wheel_venv):
    python, _, outside, env = wheel_venv
    listing = _run([str(python), "-c", "import coevo.core, coevo.rsipo, importlib.resources as r; "
                    "print(sorted(p.name for p in r.files('coevo.rsipo.configs').joinpath('algo').iterdir())); "
                    "print(coevo.core.__file__)"], cwd=outside, env=env)
    assert listing.returncode == 0, listing.stderr[-3000:]
    algos, core_file = listing.stdout.splitlines()
    assert "rsipo.yaml" in algos and "skill_grpo.yaml" in algos
    assert str(ROOT) not in core_file  # the wheel's copy, not the checkout


@pytest.mark.slow
def test_coevo_train_rsipo_runs_outside_the_repository(wheel_venv):
    _, train, outside, env = wheel_venv
    run_dir = outside / "runs" / "rsipo"
    done = _run([str(train), "algo=rsipo", f"run_dir={run_dir}", *FAST], cwd=outside, env=env)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    assert rows and "train/loss" in rows[-1]
    assert (run_dir / "eval_after.json").is_file()


@pytest.mark.slow
def test_an_algorithm_of_a_package_not_installed_names_the_install(wheel_venv):
    _, train, outside, env = wheel_venv
    done = _run([str(train), "algo=rao"], cwd=outside, env=env, timeout=300)
    assert done.returncode == 2, done.stdout + done.stderr
    message = done.stdout + done.stderr
    assert "algo=rao" in message and "pip install coevo-rao" in message
    assert "Traceback" not in message
