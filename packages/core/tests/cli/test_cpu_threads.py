"""``trainer.cpu_threads``: auto = usable cores per process on the node; bad values are refused."""

import os

import pytest

from coevo.core.cli.schema import TrainerSettings, cpu_thread_count


def test_auto_splits_the_usable_cores_between_the_processes_of_a_node(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert cpu_thread_count("auto", 1) == 4
    assert cpu_thread_count("auto", 2) == 2
    assert cpu_thread_count("auto", 8) == 1  # never below one thread
    assert cpu_thread_count("auto", "auto") == 4  # devices=auto (GPUs): one process per GPU, not CPU-bound
    assert cpu_thread_count(3, 2) == 3 and cpu_thread_count(None, 1) is None


@pytest.mark.parametrize("bad", [0, -1, "many", 1.5])
def test_bad_thread_counts_name_the_key(bad):
    with pytest.raises(ValueError, match="trainer.cpu_threads"):
        TrainerSettings(cpu_threads=bad)
