"""``StreamedCopy``: what an engine that streams a sharded policy (``vllm``) hands ``RolloutModule``
in place of a full replica: the sharded policy itself, wrapped, for evaluation after training (the
next engine streams it), and one clear error for anything that needs the full weights on one rank
(no-grad forwards, a frozen deep copy)."""

import copy

import pytest
import torch

from coevo.core.config import ConfigError
from coevo.core.rollout.sharded_export import StreamedCopy

NEEDS_FULL_COPY = "'rollout.name': rollout=vllm keeps no full copy .* 2 processes.*rollout=hf"


def test_refresh_hands_over_the_sharded_policy_and_full_copies_are_refused():
    streamed = StreamedCopy(world_size=2)
    policy = torch.nn.Linear(2, 2)
    handed = streamed.refresh(policy)
    assert handed.policy is policy
    with pytest.raises(ConfigError, match=NEEDS_FULL_COPY):
        streamed.model  # noqa: B018
    with pytest.raises(ConfigError, match=NEEDS_FULL_COPY):
        copy.deepcopy(handed)
