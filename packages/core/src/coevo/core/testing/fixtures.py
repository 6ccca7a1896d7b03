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


@pytest.fixture(scope="module")
def local_ray():
    """A real local Ray instance on the loopback interface for a module's tests (``rollout.async``;
    the ``async`` extra), shut down after them. Import it into the test module that uses it."""
    import os

    from coevo.core.rollout.async_settings import RaySettings
    from coevo.core.workers.async_rollouts import LOOPBACK_NODE, connect

    os.environ.setdefault(LOOPBACK_NODE, "0")
    ray = pytest.importorskip("ray")
    assert connect(RaySettings())  # this call started it
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    yield ray
    ray.shutdown()
