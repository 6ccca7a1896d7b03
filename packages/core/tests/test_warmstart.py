"""The warm start is built once and cached; its key follows the settings and the expert data."""

import json
import shutil
from dataclasses import replace

import pytest
import torch
from safetensors.torch import load_file

from coevo.core.agent.prompt import PromptSettings
from coevo.core.algos.sft import SFTSettings
from coevo.core.config import ConfigError
from coevo.core.expert_data import collect_expert_examples
from coevo.core.policy.builders import TinyBuilder, TinyBuilderConfig
from coevo.core.testing.boxes_env import BoxesConfig, BoxesEnv
from coevo.core.warmstart import WarmStartSettings, check_compiler, warm_start

BUILDER = TinyBuilder(TinyBuilderConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1,
                                        intermediate_size=32, vocab_size=300))
PROMPT = PromptSettings(system_prompt="", memory=True)


class LoudBoxesEnv(BoxesEnv):
    """Boxes with different wording: the same settings, different expert data."""

    def step(self, action):
        result = super().step(action)
        result.observation = result.observation.upper()
        return result


def _settings(tmp_path):
    return WarmStartSettings(episodes=6, sft=SFTSettings(epochs=1, batch_size=8), cache_dir=str(tmp_path))


def test_second_call_reuses_the_cache(tmp_path):
    settings = _settings(tmp_path)
    env_cfg = {"num_boxes": 3}
    folder = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {"h": 32}, env_cfg, PROMPT, settings)
    marker = folder / "warmstart.json"
    assert marker.is_file() and (folder / "model.safetensors").is_file()
    stamp = marker.stat().st_mtime_ns
    again = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {"h": 32}, env_cfg, PROMPT, settings)
    assert again == folder and marker.stat().st_mtime_ns == stamp  # not rebuilt
    other = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {"h": 32}, env_cfg, PROMPT,
                       replace(settings, seed=1))
    assert other != folder


def test_changed_expert_data_changes_the_key(tmp_path):
    settings = _settings(tmp_path)
    a = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT, settings)
    b = warm_start(LoudBoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT, settings)
    assert a != b


def test_an_algorithms_expert_source_replaces_the_env_expert(tmp_path):
    # an algorithm's own demonstrations (RAO: recursive oracle) are what SFT trains on, and their
    # cache_key separates the cache entry from the env expert's
    calls = []

    def source(env, prompt, num_episodes, split, first_index):
        calls.append(num_episodes)
        return collect_expert_examples(env, prompt, num_episodes, split, first_index)

    source.cache_key = {"demo": "v1"}
    settings = _settings(tmp_path)
    plain = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT, settings)
    custom = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT, settings, source)
    assert custom != plain
    assert calls == [2, settings.episodes]  # fingerprint, then the training data


def test_the_key_does_not_depend_on_where_the_cache_lives(tmp_path):
    env_cfg = {"num_boxes": 3}
    first = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {"h": 32}, env_cfg, PROMPT,
                       _settings(tmp_path / "here"))
    second = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {"h": 32}, env_cfg, PROMPT,
                        _settings(tmp_path / "elsewhere"))
    assert first.name == second.name and first.parent != second.parent


def test_the_examples_hold_the_experts_whole_reply():
    class ShowingWork(BoxesEnv):
        def expert_reply(self, action: str) -> str:
            return f"<think>because</think><action>{action}</action>"

    plain = collect_expert_examples(BoxesEnv(BoxesConfig()), PromptSettings(), 2)
    shown = collect_expert_examples(ShowingWork(BoxesConfig()), PromptSettings(), 2)
    assert shown.won == plain.won == 2 and len(shown.examples) == len(plain.examples)
    for a, b in zip(plain.examples, shown.examples):
        assert b[-1]["content"] == a[-1]["content"].replace("<action>", "<think>because</think><action>")
        assert a[-1]["content"].startswith("<action>")


def test_announces_building_then_cached(tmp_path):
    # the caller's "(building…)" / "(cached)" line follows what the cache lookup found, before any work
    settings, seen = _settings(tmp_path), []
    first = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT, settings, announce=seen.append)
    assert seen == [False] and (first / "warmstart.json").is_file()
    warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT, settings, announce=seen.append)
    assert seen == [False, True]


@pytest.mark.skipif(not any(shutil.which(name) for name in ("g++", "c++", "clang++")),
                    reason="torch.compile on CPU needs a C++ compiler")
def test_a_compiled_sft_learns_the_same_weights_as_eager(tmp_path):
    # warmstart.sft.compile changes how the steps run (inductor kernels), not what they compute: from the
    # same seed, data and batches, the two models end within float rounding of each other
    eager = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT, _settings(tmp_path))
    settings = _settings(tmp_path)
    compiled = warm_start(BoxesEnv(BoxesConfig(num_boxes=3)), BUILDER, {}, {}, PROMPT,
                          replace(settings, sft=replace(settings.sft, compile=True)))
    assert compiled != eager  # its own cache entry (eager keeps the key it had before the field existed)
    a, b = load_file(eager / "model.safetensors"), load_file(compiled / "model.safetensors")
    assert a.keys() == b.keys()  # plain names: nothing of the compiled wrapper is saved
    moved = max(float((a[k] - b[k]).abs().max()) for k in a)
    assert moved < 1e-4
    stats = [json.loads((folder / "warmstart.json").read_text())["final_sft_loss"] for folder in (eager, compiled)]
    assert stats[0] == pytest.approx(stats[1], abs=1e-4)


def test_compile_without_a_cpp_compiler_is_refused_by_name(monkeypatch):
    settings = WarmStartSettings(sft=SFTSettings(compile=True))
    monkeypatch.delenv("CXX", raising=False)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(ConfigError, match=r"warmstart\.sft\.compile.*C\+\+ compiler.*compile=false"):
        check_compiler(settings)
    check_compiler(replace(settings, sft=SFTSettings(compile=False)))  # eager needs none
    check_compiler(replace(settings, enabled=False))  # no warm start is built
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/g++" if name == "g++" else None)
    check_compiler(settings)
