"""``bench/scaling/gpu_check.py`` on the CPU: the argument parsing and ``--dry-run`` (config composed and
validated, parameters counted), and the whole measured path with ``--cpu`` on a small shape."""

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "scaling" / "gpu_check.py"


def _gpu_check():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dry_run_plans_a_half_billion_parameter_qwen2(tmp_path):
    gpu_check = _gpu_check()
    out = tmp_path / "plan.json"
    result = gpu_check.main(["--dry-run", "--vllm", "--out", str(out), "--run-dir", str(tmp_path / "run")])
    assert json.loads(out.read_text()) == json.loads(json.dumps(result))
    model = result["plan"]["model"]
    assert 0.4e9 < model["parameters_at_vocab"] < 0.6e9
    assert result["plan"]["rollout"] == "vllm" and "trainer=fsdp" in result["overrides"]
    assert not (tmp_path / "run").exists()  # nothing trained
    with pytest.raises(SystemExit):
        gpu_check.parse_args(["--hidden", "1000", "--heads", "16"])


def test_cpu_smoke_run_measures_rollout_and_training(tmp_path):
    gpu_check = _gpu_check()
    result = gpu_check.main(["--cpu", "--hidden", "64", "--layers", "2", "--heads", "2", "--kv-heads", "1",
                             "--intermediate", "128", "--vocab", "300", "--steps", "2", "--tasks", "2", "--group",
                             "2", "--max-new-tokens", "8", "--run-dir", str(tmp_path / "run"),
                             "--out", str(tmp_path / "result.json")])
    assert len(result["steps"]) == 2 and result["steps_timed"] == 1
    assert result["rollout_tokens_per_s"] > 0 and result["train_tokens_per_s"] > 0
    assert result["steps"][-1]["train/train_tokens"] > 0
    assert (tmp_path / "result.json").is_file()
