"""The smallest CPU run of each paper preset (``configs/experiment/``) with SmolLM2-135M standing in
for the paper's model: what the preset suite trains and ``bench/throughput/preset_startup.py`` times.

Each preset keeps its algorithm, environment (the real one it names) and every paper setting; only
the sizes shrink: 1 task per step, 2 episodes per group, one optimizer step, short replies and
episodes, one-process CPU training in float32 (``trainer=cpu``; the presets select ``trainer=fsdp``
for GPUs). The data folders are read in place from the shared folder beside the repository.
"""

from __future__ import annotations

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
SHARED = REPOSITORY.parent / "shared"
ALFWORLD = SHARED / "alfworld"
QA = SHARED / "qa"

PRESETS = sorted(p.stem for p in (REPOSITORY / "configs" / "experiment").glob("*.yaml"))

#: every preset: CPU, float32, the model folder given, short replies
COMMON = ["trainer=cpu", "model.dtype=float32", "trainer.progress_bar=false", "trainer.checkpoint_every=1",
          "agent.sampling.max_new_tokens=12", "agent.prompt.max_prompt_tokens=1024"]

_RSIPO = ["algo.tasks_per_step=1", "algo.group_size=2", "algo.skill.max_new_tokens=12", "algo.opsd_turns=8",
          "trainer.max_steps=1", "eval.num_tasks=1", "eval.batch_size=1"]
# the preset evaluates on valid_unseen (eval_out_of_distribution); the shared folder holds train and
# valid_seen only, so the small run evaluates on valid_seen
_ALFWORLD = [*_RSIPO, f"env.data_dir={ALFWORLD}", "env.max_steps=3", "eval.split=eval_in_distribution"]

#: preset -> its own small sizes (on top of COMMON)
SMALL = {
    "rsipo_alfworld_qwen2.5_3b": _ALFWORLD,
    "rsipo_alfworld_qwen2.5_7b": _ALFWORLD,
    "rsipo_alfworld_qwen3_1.7b": _ALFWORLD,
    "rsipo_search_qwen2.5_3b": [*_RSIPO, f"env.qa_file={QA / 'hotpotqa_train100.jsonl'}",
                                f"env.corpus_file={QA / 'corpus.jsonl'}", "env.max_turns=2"],
    "evoheir_math_qwen3_4b": [
        "trainer.max_steps=1", "algo.rounds=1", "algo.branches=1", "algo.explore_steps=1", "algo.heldout_tasks=1",
        "algo.scout.attempts=2", "algo.scout.consensus_answers=2", "algo.scout.max_new_tokens=12",
        "algo.screen.pool_size=1", "algo.screen.samples=1", "algo.recovery.steps=1", "algo.commit.pool_size=1",
        "algo.commit.samples=1", "eval.num_tasks=1", "eval.batch_size=1", "eval.samples_per_task=1",
        "eval.mode=greedy"],
    "rao_craft_qwen3_4b": ["algo.tasks_per_step=1", "algo.group_size=2", "algo.report.num_tasks=0",
                           "algo.recursion.delegation.max_children=2", "algo.recursion.budget.max_depth=1",
                           "algo.recursion.budget.agent_steps=3", "algo.recursion.budget.max_nodes=3",
                           "trainer.max_steps=1"],
    "rao_textcraft_synth_qwen3_4b": ["algo.tasks_per_step=1", "algo.group_size=2", "algo.report.num_tasks=0",
                                     "algo.recursion.budget.max_depth=1", "algo.recursion.budget.agent_steps=3",
                                     "algo.recursion.budget.max_nodes=3", "env.max_steps=3",
                                     "agent.prompt.max_prompt_tokens=1024", "agent.sampling.max_new_tokens=16",
                                     "trainer.max_steps=1"],
}

#: the shared data folder each preset reads (its suite test is skipped where it is absent)
DATA = {name: ALFWORLD for name in SMALL if "alfworld" in name} | {"rsipo_search_qwen2.5_3b": QA}


def overrides(preset: str, model_path: str | Path, run_dir: str | Path, cache_dir: str | Path) -> list[str]:
    """The command-line overrides of ``preset``'s small CPU run with the model folder ``model_path``;
    the run writes to ``run_dir`` and caches (warm starts, search indexes) under ``cache_dir``."""
    if preset not in SMALL:
        raise KeyError(f"no small run for preset {preset!r}; add it to tests/presets/small_runs.py")
    cache = Path(cache_dir)
    return [f"experiment={preset}", f"model.path={model_path}", f"run_dir={run_dir}",
            f"warmstart.cache_dir={cache / 'warmstart'}", *COMMON, *SMALL[preset],
            *([f"env.index_dir={cache / 'search'}"] if "search" in preset else [])]
