"""``make train ALGO=rao ARGS="env=textcraft_synth"`` (issue 46, item 4): the presets
``algo_env/rao_textcraft_synth.yaml`` (the paper's budgets and credit, any model) and
``algo_env_model/rao_textcraft_synth_tiny.yaml`` (CPU sizes for the tiny model) compose as stated, the
oracle wins every tree under the preset's own recursion settings (so the warm start demonstrates winning
trees within its budgets), and a two-step run trains both agents and reports medium and hard."""

import json

from conftest import CONFIG_DIR, FAST
from omegaconf import OmegaConf
from rao_script import PROMPT

from coevo.core import registry
from coevo.core.cli import train
from coevo.core.cli.config_sources import compose_config
from coevo.core.cli.schema import TrainSchema
from coevo.core.config import build_component, validate
from coevo.core.testing.fast_configs import ONE_THREAD, TINY_MODEL
from coevo.rao.deciders import OracleDecider
from coevo.rao.runner import TreeRunner
from coevo.rao.treestats import tree_stats

PRESET = ["algo=rao", "env=textcraft_synth"]


def _compose(*overrides):
    return compose_config("train", [*PRESET, *overrides], repository=CONFIG_DIR)


def test_the_preset_sets_the_papers_credit_and_budgets_for_the_tiny_model():
    cfg = _compose()
    settings = validate(cfg, TrainSchema, "train")
    _, env = build_component(registry.envs, cfg.env, "env")
    _, algo = build_component(registry.algorithms, cfg.algo, "algo")
    assert (cfg.model.name, settings.agent.mode, settings.warmstart.enabled) == ("tiny", "generate", True)
    assert (env.band, env.ood_band, env.max_steps, env.budget_mode) == ("medium", "hard", 25, "per_agent")
    assert (algo.loss, algo.kl_coef, algo.baseline, algo.depth_weighting) == ("cispo", 0.0, "root_loo",
                                                                             "inverse_frequency")
    assert algo.flat_baseline == "train"  # the flat agent: same warm start, same tasks and steps, no delegation
    budget, delegation = algo.recursion.budget, algo.recursion.delegation
    assert (budget.mode, budget.agent_steps, budget.max_depth) == ("per_agent", env.max_steps, 6)
    assert (delegation.options, delegation.show_options, delegation.max_children) == ("none", False, 1)
    assert list(algo.report.splits) == ["eval_in_distribution", "eval_out_of_distribution"]  # medium, hard
    assert algo.report.num_tasks <= min(env.eval_in_distribution_size, env.eval_out_of_distribution_size)
    assert (algo.tasks_per_step, algo.group_size, settings.trainer.max_steps) == (4, 4, 4)


def test_the_tiny_sizes_stay_off_real_models_and_the_gpu_preset_overrides_them():
    real = _compose("model=hf", "model.path=/nonexistent")
    validate(real, TrainSchema, "train")
    assert (real.algo.loss, real.algo.baseline, real.algo.recursion.budget.max_depth) == ("cispo", "root_loo", 6)
    tiny = _compose()
    sizes = ("trainer.max_steps", "agent.sampling.max_new_tokens", "algo.recursion.budget.max_nodes",
             "warmstart.episodes")
    assert all(OmegaConf.select(real, k) != OmegaConf.select(tiny, k) for k in sizes), sizes
    gpu = _compose("experiment=rao_textcraft_synth_qwen3_4b", "model.path=/nonexistent")
    assert (gpu.algo.tasks_per_step, gpu.algo.group_size, gpu.agent.sampling.max_new_tokens) == (16, 8, 1024)


def test_the_oracle_wins_every_medium_and_hard_tree_under_the_presets_recursion():
    """Within 8 agents a tree (the tiny preset's node cap): medium targets of depth 5-6 are split (the
    oracle crafts depth 4 itself, env.expert_leaf_depth=4), every hard tree delegates up to the cap and the
    agents that may no longer launch craft their sub-goals themselves, within their 25 steps."""
    cfg = _compose()
    _, env_cfg = build_component(registry.envs, cfg.env, "env")
    _, algo = build_component(registry.algorithms, cfg.algo, "algo")
    cls = registry.envs.get("textcraft_synth")
    delegating = {}
    for split in ("eval_in_distribution", "eval_out_of_distribution"):
        envs = [cls(env_cfg) for _ in range(8)]
        trees = TreeRunner(PROMPT, algo.recursion).run([envs[0].task(split, i) for i in range(8)], envs,
                                                       OracleDecider(4))
        stats = tree_stats(trees)
        assert stats["success"] == 1.0 and stats["refused/all"] == 0.0, (split, stats)
        assert stats["tree/depth_max"] <= 6 and max(len(t.nodes) for t in trees) <= 8
        delegating[split] = stats["tree/delegating"]
    assert 0 < delegating["eval_in_distribution"] < 1 and delegating["eval_out_of_distribution"] == 1.0


def test_a_two_step_run_trains_both_agents_and_reports_medium_and_hard(tmp_path):
    sizes = [o for o in FAST if o.startswith(("warmstart.sft.batch_size", "trainer."))]
    cfg = _compose(*TINY_MODEL, ONE_THREAD, *sizes, "warmstart.episodes=2", "warmstart.sft.epochs=1",
                   "trainer.max_steps=2", "algo.tasks_per_step=1", "algo.group_size=2", "algo.report.num_tasks=1",
                   "agent.sampling.max_new_tokens=16", "algo.recursion.budget.agent_steps=3", "env.max_steps=3",
                   f"warmstart.cache_dir={tmp_path / 'cache'}", f"run_dir={tmp_path / 'run'}")
    assert OmegaConf.select(cfg, "algo.loss") == "cispo"
    assert train.run(cfg)["steps"] == 2
    metrics = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [m["step"] for m in metrics] == [1, 2]
    assert all("train/success" in m and "train/flat/success" in m for m in metrics)
    report = json.loads((tmp_path / "run" / "rao_report.json").read_text())
    assert len(report) == 2 and all({"recursive", "flat"} <= set(row) for row in report)
    assert (tmp_path / "run" / "flat_policy").is_dir()


def _failures_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "bench" / "methods" / "rao" / "rao_textcraft_synth_failures.py"
    spec = importlib.util.spec_from_file_location("rao_textcraft_synth_failures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_failure_bench_sorts_each_turn_by_what_went_wrong():
    """bench/methods/rao/rao_textcraft_synth_failures.py: recipe lookups, counts, budget requests and malformed replies
    each land in their own row, with the env's reason (which the agent's observation does not carry)."""
    from rao_script import ScriptDecider

    from coevo.rao.settings import BudgetSettings, DelegationSettings, RecursionSettings

    bench = _failures_module()
    env = bench.RecordingEnv(bench.RecordingEnv.Config())
    target = env.reset(env.task("train", 0)) and env.spec.target
    script = iter([f"<action>info {target}, zz9_i9</action>",              # an unknown item
                   "<delegate>craft 2 m0_i0</delegate>",                     # a base material as a sub-goal
                   f"<delegate>craft 1 {target} in 99 steps</delegate>",     # more steps than allowed
                   f"<action>craft 1 {target} from 1 m0_i0</action>",       # not its recipe
                   "hello", "<action>finish</action>"])
    recursion = RecursionSettings(DelegationSettings(max_children=1, options="none"),
                                  BudgetSettings(max_depth=6, agent_steps=25))
    trees = TreeRunner(PROMPT, recursion).run([env.task("train", 0)], [env], ScriptDecider(lambda r: next(script)))
    kinds = bench.turn_kinds(trees)
    turns, launches = kinds["turns"], kinds["launches"]
    assert turns["info error: unknown item ITEM"] == 1 and turns["malformed"] == 1 and turns["launch"] == 2
    assert any(k.startswith("craft error: ") for k in turns), turns
    assert turns["finish ok, finished without the goal"] == 1
    assert launches["written"] == 2 and launches["with a budget (in N steps)"] == 1
    refused = [k for k in launches if k.startswith("refused: ")]
    assert len(refused) == 2 and any("N steps" in k for k in refused), launches
    assert kinds["nodes"] == {"root": 1}
