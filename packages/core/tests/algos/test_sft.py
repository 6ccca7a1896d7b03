"""The warm start's SFT loss: agent tokens only, and the LM head skipping the untrained prefix."""

import pytest
import torch

from coevo.core.algos.optim import OptimSettings
from coevo.core.algos.sft import SFTModule, first_trained_position, masked_nll
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model
from coevo.core.policy.tokenizer import train_bpe_tokenizer
from coevo.core.testing.fast_configs import boxes_corpus


def test_first_trained_position_is_the_first_column_with_an_agent_token():
    mask = torch.tensor([[0, 0, 0, 1, 1], [0, 0, 1, 1, 0]])
    assert first_trained_position(mask) == 2
    assert first_trained_position(torch.zeros(2, 5, dtype=torch.long)) == 1  # nothing trained: the full pass
    assert first_trained_position(torch.tensor([[1, 1, 0]])) == 1  # position 0 has no prefix to predict it


def test_masked_nll_by_hand():
    logprobs = torch.tensor([[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]])
    mask = torch.tensor([[0, 1, 1], [0, 0, 1]])
    assert masked_nll(logprobs, mask).item() == pytest.approx((2.0 + 3.0 + 6.0) / 3)


def test_sft_loss_equals_the_full_sequence_loss():
    torch.manual_seed(0)
    tokenizer = train_bpe_tokenizer(boxes_corpus(), vocab_size=300)
    model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=2, num_heads=2, num_kv_heads=1,
                                             intermediate_size=64), tokenizer)
    ids = torch.randint(3, 300, (3, 12))  # [B, T]
    attention = torch.ones_like(ids)
    agent = torch.zeros_like(ids)
    agent[0, 7:10], agent[1, 9:12], agent[2, 8:11] = 1, 1, 1
    module = SFTModule(model, OptimSettings())
    module.log = lambda *a, **k: None  # no trainer attached
    loss = module.training_step({"input_ids": ids, "attention_mask": attention, "agent_mask": agent}, 0)
    full = masked_nll(sequence_token_logprobs(model, ids, attention), agent)  # every position through the LM head
    torch.testing.assert_close(loss, full, rtol=1e-5, atol=1e-6)
