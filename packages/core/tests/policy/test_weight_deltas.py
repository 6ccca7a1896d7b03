"""``add_to_weights`` on an unsharded model: adding a trained LoRA student's deltas gives exactly the
weights peft's own ``merge_and_unload`` gives (bit for bit), and a name the model lacks is an error.
The sharded path is exercised over two gloo ranks by EVOHEIR's recovery (evoheir ``test_fsdp.py``:
the sharded rounds equal a single process's)."""

import copy

import pytest
import torch

from coevo.core.policy.lora import LoraSettings, apply_lora
from coevo.core.policy.weight_deltas import add_to_weights
from coevo.core.rollout.weight_export import lora_deltas
from coevo.core.testing.gloo import tiny_model


def test_adding_lora_deltas_equals_peft_merge_bit_for_bit():
    model = tiny_model()
    student = apply_lora(copy.deepcopy(model), LoraSettings(True, 8, 16, 0.0, ["q_proj", "v_proj"]))
    optimizer = torch.optim.AdamW([p for p in student.parameters() if p.requires_grad], lr=1e-2)
    ids = torch.randint(0, 300, (2, 9), generator=torch.Generator().manual_seed(0))  # [2, 9]
    for _ in range(3):  # B starts at 0: train so that the deltas are not zero
        loss = student(input_ids=ids).logits.pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    deltas = lora_deltas(student)
    assert len(deltas) == 4 and all(float(d.abs().max()) > 0 for d in deltas.values())  # 2 layers x q, v
    before = {k: v.detach().clone() for k, v in model.named_parameters()}
    merged = dict(copy.deepcopy(student).merge_and_unload().named_parameters())
    add_to_weights(model, deltas)
    for name, value in model.named_parameters():
        assert torch.equal(value, merged[name]), name
        assert torch.equal(value, before[name]) == (name not in deltas), name


def test_a_delta_for_a_missing_parameter_is_an_error():
    with pytest.raises(KeyError, match="no parameters named"):
        add_to_weights(tiny_model(), {"model.nope.weight": torch.zeros(1)})
