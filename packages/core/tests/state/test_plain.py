"""Records as plain data (``coevo.core.state.plain``): what a checkpoint keeps of the batches a rollout
worker had in flight comes back equal, through ``torch.save`` / ``torch.load(weights_only=True)``."""

import dataclasses
import io
from collections import OrderedDict

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.agent.types import Episode, Turn
from coevo.core.env.protocol import Task
from coevo.core.state.plain import TAG, from_plain, to_plain


def _episode(state_key=("room", 3), text="go to box 1") -> Episode:
    turn = Turn([1, 2], [3], [-0.5], text, "open box 1", "It opens.", 1.0, False,
                messages=[{"role": "user", "content": "hi"}], candidates=[[3], [4, 5]], choice=0,
                choice_logprob=-0.1, state_key=state_key)
    return Episode(Task("boxes", "train", 7, "near", 11), 2, [turn, dataclasses.replace(turn, state_key=None)],
                   won=True, reward=0.75)


def _through_a_checkpoint(obj):
    buffer = io.BytesIO()
    torch.save({"finished": to_plain(obj)}, buffer)
    buffer.seek(0)
    return from_plain(torch.load(buffer, weights_only=True)["finished"])


def test_episodes_come_back_equal_through_a_weights_only_checkpoint():
    played = {"episodes": [_episode(), _episode(("hall", (1, 2)), "")], "logits": torch.arange(3.0)}
    back = _through_a_checkpoint(played)
    assert back["episodes"] == played["episodes"]
    assert isinstance(back["episodes"][0].turns[0], Turn) and back["episodes"][0].turns[0].state_key == ("room", 3)
    assert torch.equal(back["logits"], played["logits"])


@settings(max_examples=50, deadline=None)
@given(text=st.text(max_size=2000), key=st.one_of(st.none(), st.integers(), st.tuples(st.text(), st.integers())))
def test_any_text_and_state_key_round_trip(text, key):
    episode = _episode(key, text)
    assert _through_a_checkpoint([episode]) == [episode]


def test_fields_are_restored_without_running_init():
    @dataclasses.dataclass(frozen=True)
    class Frozen:  # (defined here: a coevo test module, not an importable coevo class)
        x: int

    plain = {TAG: f"{Task.__module__}:Task", "env": "boxes", "split": "train", "index": 1, "task_type": "",
             "seed": 2}
    assert from_plain(plain) == Task("boxes", "train", 1, "", 2)
    assert to_plain(Frozen(3))[TAG].endswith("Frozen")


@pytest.mark.parametrize("tag", ["os:system", "collections:OrderedDict", "builtins:eval"])
def test_classes_outside_coevo_are_refused(tag):
    with pytest.raises(ValueError, match="outside coevo"):
        from_plain({TAG: tag})


def test_a_coevo_name_that_is_not_a_dataclass_is_refused():
    with pytest.raises(ValueError, match="not a dataclass"):
        from_plain({TAG: "coevo.core.state.plain:to_plain"})


@pytest.mark.parametrize("value", [object(), {1, 2}, lambda: 0])
def test_objects_that_are_not_records_are_refused_by_type(value):
    with pytest.raises(TypeError, match="cannot store"):
        to_plain({"played": [value]})


def test_dict_subclasses_become_plain_dicts():
    assert to_plain(OrderedDict(a=1)) == {"a": 1} and type(to_plain(OrderedDict(a=1))) is dict
