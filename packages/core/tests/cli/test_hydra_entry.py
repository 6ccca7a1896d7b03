"""``coevo-train`` hands its command line to Hydra with the packages' configs on the search path:
Hydra's own flags still work after overrides (``--cfg job`` prints every key of the composed
config), and a second process started with the same arguments (a DDP rank) composes the same."""

import os
import subprocess
import sys

from omegaconf import OmegaConf

from coevo.core.cli.config_sources import search_path_override


def _train(*args):
    env = {k: v for k, v in os.environ.items() if k != "COEVO_CONFIG_DIR"}
    return subprocess.run([sys.executable, "-m", "coevo.core.cli.train", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def test_cfg_job_prints_the_composed_config_after_overrides():
    done = _train("env=boxes", "algo.group_size=3", "--cfg", "job")
    assert done.returncode == 0, done.stderr[-2000:]
    printed = OmegaConf.create(done.stdout)
    assert printed.algo.group_size == 3 and printed.env.name == "boxes"
    assert printed.algo.kl_coef == 0.05 and printed.trainer.max_steps == 12  # GRPOConfig's, cpu.yaml's


def test_a_relaunched_process_keeps_its_search_path():
    done = _train(search_path_override(), "env=boxes", "--cfg", "job")
    assert done.returncode == 0, done.stderr[-2000:]
    assert OmegaConf.create(done.stdout).env.name == "boxes"
