"""``eval.depth`` / ``eval.size`` land on the env's out-of-distribution field, or fail clearly."""

import pytest
from omegaconf import OmegaConf

from coevo.core.cli import train
from coevo.core.cli.eval_range import apply_eval_range
from coevo.core.config import ConfigError


def _cfg(env: dict, **evaluation):
    cfg = OmegaConf.create({"env": env, "eval": {"split": "eval_in_distribution", "depth": None, "size": None,
                                                 **evaluation}})
    OmegaConf.set_struct(cfg, True)  # as Hydra composes it
    return cfg


def test_depth_sets_ood_depth():
    cfg = apply_eval_range(_cfg({"name": "algebra", "depth": 4, "ood_depth": 0}, depth=12), flat_eval=False)
    assert cfg.env.ood_depth == 12 and cfg.env.depth == 4


def test_size_prefers_ood_size_then_chunks():
    maze = apply_eval_range(_cfg({"name": "maze", "size": 6, "ood_size": 0}, size=10), flat_eval=False)
    assert maze.env.ood_size == 10
    longctx = apply_eval_range(_cfg({"name": "longctx", "num_chunks": 8, "ood_num_chunks": 0}, size=16),
                               flat_eval=False)
    assert longctx.env.ood_num_chunks == 16


def test_unset_knobs_change_nothing():
    cfg = apply_eval_range(_cfg({"name": "algebra", "depth": 4, "ood_depth": 0}), flat_eval=True)
    assert cfg.env.ood_depth == 0


def test_an_env_without_the_knob_is_named():
    with pytest.raises(ConfigError) as info:
        apply_eval_range(_cfg({"name": "boxes", "num_boxes": 3}, depth=5), flat_eval=False)
    assert "eval.depth" in str(info.value) and "boxes" in str(info.value) and "env.ood_depth" in str(info.value)


def test_flat_eval_needs_the_out_of_distribution_split():
    cfg = _cfg({"name": "algebra", "depth": 4, "ood_depth": 0}, depth=12)
    with pytest.raises(ConfigError, match="eval.split=eval_out_of_distribution"):
        apply_eval_range(cfg, flat_eval=True)
    cfg.eval.split = "eval_out_of_distribution"
    assert apply_eval_range(cfg, flat_eval=True).env.ood_depth == 12


def test_train_refuses_a_knob_the_env_lacks_before_any_work(compose_train, tmp_path):
    with pytest.raises(ConfigError, match="eval.size"):
        train.run(compose_train("eval.size=9", "eval.split=eval_out_of_distribution"))
    assert not (tmp_path / "cache").exists()  # refused before the warm start
