"""LoRA adapters through peft and the reference policy (adapters off / frozen copy)."""

from __future__ import annotations

import torch

from coevo.core.policy.lora import LoraSettings, ReferencePolicy, apply_lora, is_peft


def _logits(model, ids):
    with torch.no_grad():
        return model(input_ids=ids).logits


def _ids(tokenizer):
    return torch.tensor([tokenizer.encode("You see a red box, a blue box.", add_special_tokens=False)])


def test_apply_lora_disabled_returns_the_model(fresh_tiny_model):
    assert apply_lora(fresh_tiny_model, LoraSettings(enabled=False)) is fresh_tiny_model
    assert not is_peft(fresh_tiny_model)


def test_apply_lora_only_lora_params_are_trainable(fresh_tiny_model):
    model = apply_lora(fresh_tiny_model, LoraSettings(enabled=True, r=4, alpha=8))
    assert is_peft(model)
    trainable = [name for name, p in model.named_parameters() if p.requires_grad]
    frozen = [name for name, p in model.named_parameters() if not p.requires_grad]
    # q, k, v, o projections of 2 layers, each with lora_A and lora_B
    assert len(trainable) == 2 * 4 * 2
    assert all("lora_" in name for name in trainable)
    assert not any("lora_" in name for name in frozen)
    assert any("embed_tokens" in name for name in frozen)
    a = next(p for name, p in model.named_parameters() if "q_proj.lora_A" in name)
    assert a.shape == (4, 32)  # rank 4 x hidden 32


def test_reference_policy_with_lora_disables_adapters(fresh_tiny_model, tokenizer):
    ids = _ids(tokenizer)
    base = _logits(fresh_tiny_model, ids)
    model = apply_lora(fresh_tiny_model, LoraSettings(enabled=True))
    # lora_B starts at zero: the adapted model equals the base model
    torch.testing.assert_close(_logits(model, ids), base)
    ref = ReferencePolicy(model)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.fill_(0.5)
    changed = _logits(model, ids)
    assert (changed - base).abs().max() > 1e-3
    with ref.model() as reference:
        assert not torch.is_grad_enabled()
        torch.testing.assert_close(reference(input_ids=ids).logits, base)
    # the adapters are on again afterwards
    torch.testing.assert_close(_logits(model, ids), changed)
    assert torch.is_grad_enabled()


def test_reference_policy_full_finetuning_is_a_frozen_copy(fresh_tiny_model, tokenizer):
    ids = _ids(tokenizer)
    base = _logits(fresh_tiny_model, ids)
    ref = ReferencePolicy(fresh_tiny_model)
    with torch.no_grad():
        for p in fresh_tiny_model.parameters():
            p.add_(0.05)
    assert (_logits(fresh_tiny_model, ids) - base).abs().max() > 1e-3
    with ref.model() as reference:
        assert reference is not fresh_tiny_model
        assert not reference.training
        assert all(not p.requires_grad for p in reference.parameters())
        torch.testing.assert_close(reference(input_ids=ids).logits, base)
    assert all(p.requires_grad for p in fresh_tiny_model.parameters())  # the live model still trains


def test_frozen_reference_follows_the_live_policy_to_its_device(fresh_tiny_model):
    # the trainer moves the policy to its device (a GPU) after the reference copy was made
    reference = ReferencePolicy(fresh_tiny_model)
    fresh_tiny_model.to("meta")
    with reference.model() as frozen:
        assert {p.device.type for p in frozen.parameters()} == {"meta"}
        assert not any(p.requires_grad for p in frozen.parameters())
