"""The paired comparison on a constructed case, and evaluation that leaves training state alone."""

import random

import pytest
import torch

from coevo.evoheir.paired import evaluation_guard, load_weights, paired_gain


def test_paired_gain_constructed_case():
    # per-item success of the proposal and the root on the same 4 items
    new = torch.tensor([1.0, 1.0, 0.0, 0.5])
    old = torch.tensor([0.0, 1.0, 0.0, 1.0])
    result = paired_gain(new, old)
    # differences [1, 0, 0, -0.5]: mean 0.125; deviations .875, -.125, -.125, -.625, squares sum
    # 1.1875, /3 = 0.395833, sqrt = 0.629153
    assert result.gain == pytest.approx(0.125)
    assert result.std == pytest.approx(0.629153, abs=1e-6)
    assert (result.new_success, result.old_success, result.m) == (0.625, 0.5, 4)
    assert paired_gain(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 1.0])).std == pytest.approx(2 ** 0.5)
    with pytest.raises(ValueError):
        paired_gain(torch.tensor([1.0]), torch.tensor([1.0, 0.0]))


def test_evaluation_guard_restores_weights_rng_and_mode():
    model = torch.nn.Linear(3, 2)
    model.train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    torch.manual_seed(5)
    random.seed(5)
    expected = (torch.rand(2), random.random())
    torch.manual_seed(5)
    random.seed(5)
    with evaluation_guard(model):
        assert not model.training
        load_weights(model, {"weight": torch.zeros(2, 3)})  # the root's weights swapped in
        torch.rand(100), random.random()  # sampling during evaluation
    assert model.training
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert torch.equal(torch.rand(2), expected[0]) and random.random() == expected[1]
