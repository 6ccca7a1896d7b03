"""Hypothesis runs without its example database; a hand-built document for exact answers."""

import pytest
from hypothesis import settings

from coevo.envs.longctx.document import Document, Record

settings.register_profile("coevo-envs", database=None)
settings.load_profile("coevo-envs")


@pytest.fixture
def small_document() -> Document:
    """Three chunks of two records:

    chunk 0: 0 oslo red 10 | 1 lima red 20
    chunk 1: 2 oslo blue 5 | 3 oslo red 30
    chunk 2: 4 lima blue 7 | 5 rome red 1
    """
    rows = [("oslo", "red", 10), ("lima", "red", 20), ("oslo", "blue", 5), ("oslo", "red", 30),
            ("lima", "blue", 7), ("rome", "red", 1)]
    return Document(tuple(Record(i, *row) for i, row in enumerate(rows)), records_per_chunk=2)
