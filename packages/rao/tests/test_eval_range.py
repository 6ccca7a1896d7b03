"""``eval.depth`` / ``eval.size`` through RAO's presets: the out-of-distribution split (or the
report's extra size row) is evaluated at the requested difficulty."""


from coevo.core.cli.components import env_factory
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.eval_range import apply_eval_range
from coevo.core.testing.fast_configs import repository_configs
from coevo.rao.evaluation import beyond_range, scaled_env_factory

CONFIG_DIR = repository_configs(__file__)


def _env(*overrides):
    cfg = compose_config("train", ["algo=rao", *overrides], repository=CONFIG_DIR)
    cfg = apply_eval_range(cfg, cfg.eval.before or cfg.eval.after)  # RAO: core's flat eval is off
    return env_factory(cfg.env)[2]


def test_eval_depth_is_the_depth_of_the_out_of_distribution_split():
    make_env = _env("env=algebra", "eval.depth=12")
    env = make_env()
    assert env.depth_of("eval_out_of_distribution") == 12 and env.depth_of("eval_in_distribution") == 4
    assert beyond_range(make_env, "depth") == 12
    assert beyond_range(_env("env=algebra"), "depth") is None  # unset: the env's default (2 x depth)


def test_eval_size_adds_a_longctx_report_size_that_can_be_scaled_to():
    make_env = _env("env=longctx", "eval.size=16")
    assert beyond_range(make_env, "num_chunks") == 16
    # the report plays each size in-distribution; an explicit ood value never blocks a row
    for value in (4, 16, 32):
        scaled = scaled_env_factory(make_env, "num_chunks", value)()
        assert scaled.config.num_chunks == value and scaled.config.ood_num_chunks == 0
