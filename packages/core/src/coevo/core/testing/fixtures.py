"""pytest fixtures shared by every coevo package's tests (import them into a ``conftest.py``)."""

from __future__ import annotations

import pytest
import torch


@pytest.fixture(scope="session", autouse=True)
def single_torch_thread():
    """One intra-op thread for the whole session: the tiny models gain nothing from more, and on a
    busy 2-core machine OpenMP's spinning threads slow every small matmul down by two orders of
    magnitude."""
    previous = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(previous)
