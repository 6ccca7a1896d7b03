"""Generated documents: the default draw is unchanged, and ``values_per_field`` narrows each field."""

import random

import pytest

from coevo.envs.longctx.document import generate_document
from coevo.envs.longctx.env import LongCtxEnv


def _values(document, field):
    return {r.value(field) for r in document.records}


def test_values_per_field_limits_each_document_to_k_values():
    for seed in range(20):
        doc = generate_document(random.Random(seed), num_chunks=20, records_per_chunk=10, values_per_field=2)
        assert 1 <= len(_values(doc, "city")) <= 2 and 1 <= len(_values(doc, "colour")) <= 2
    # 200 records over all 8 cities / 6 colours: more than 2 of each appear
    full = generate_document(random.Random(0), num_chunks=20, records_per_chunk=10)
    assert len(_values(full, "city")) > 2 and len(_values(full, "colour")) > 2


def test_values_per_field_zero_is_the_default_draw():
    assert generate_document(random.Random(5), 3, 4) == generate_document(random.Random(5), 3, 4, values_per_field=0)


def test_a_two_value_document_matches_a_count_question_often():
    """The point of the knob: the filter value is on about half the records, not a few."""
    env = LongCtxEnv(LongCtxEnv.Config(num_chunks=4, records_per_chunk=3, question_kinds=["count"], values_per_field=2))
    dense = []
    for index in range(60):
        env.reset(env.task("train", index))
        question = env.question
        dense.append(sum(r.value(question.field) == question.value for r in env.document.records) / 12)
    assert 0.4 < sum(dense) / len(dense) < 0.8


@pytest.mark.parametrize("bad", [-1, -5])
def test_a_negative_values_per_field_is_refused(bad):
    with pytest.raises(ValueError, match="values_per_field"):
        LongCtxEnv(LongCtxEnv.Config(values_per_field=bad))
    with pytest.raises(ValueError, match="values_per_field"):
        generate_document(random.Random(0), 1, 1, values_per_field=bad)
