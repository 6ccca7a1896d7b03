"""``StreamedCopy``: what an engine that streams a sharded policy (``vllm``) hands ``RolloutModule``
in place of a full replica: the sharded policy itself for evaluation after training (the next
engine streams it), and one clear error for no-grad forwards of the full weights on one rank."""

import pytest
import torch

from coevo.core.config import ConfigError
from coevo.core.rollout.sharded_weights import StreamedCopy


def test_refresh_hands_over_the_sharded_policy_and_model_is_refused():
    copy = StreamedCopy(world_size=2)
    policy = torch.nn.Linear(2, 2)
    assert copy.refresh(policy) is policy
    with pytest.raises(ConfigError, match="'rollout.name': rollout=vllm keeps no full copy .* 2 processes.*rollout=hf"):
        copy.model  # noqa: B018
