"""Ranks that do not meet in a collective call fail with one line naming the rank and the call,
never hang: a real 2-rank job (``trainer=fsdp_cpu``) whose last rank runs one forward more, and the
messages torch gives for a timed-out wait and a vanished peer."""

import time

import pytest
import torch
from conftest import CONFIG_DIR, FAST

from coevo.core.cli.collective_errors import describe_collective_failure
from coevo.core.testing.ddp import FSDP, train_ddp


@pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU (gloo) path of trainer=fsdp")
def test_an_unequal_forward_count_fails_naming_the_rank_and_the_call(tmp_path):
    base = [o for o in FAST if not o.startswith("algo.tasks_per_step")] + ["algo.tasks_per_step=4"]
    start = time.perf_counter()
    with pytest.raises(AssertionError) as failed:
        train_ddp(CONFIG_DIR, ["algo.name=unequal_forwards", "algo.skip_zero_advantage=false", "trainer.max_steps=2",
                               "trainer.check_collectives=true", "trainer.collective_timeout=120", "eval.before=false",
                               "eval.after=false"],
                  tmp_path / "cache", tmp_path / "run", base, trainer=FSDP, timeout=240)
    seconds = time.perf_counter() - start
    output = str(failed.value)
    assert "coevo-train exited 1" in output
    for rank in (0, 1):  # each rank names itself, the coevo function whose collective failed and both calls
        assert f"error (training): rank {rank} of 2: the ranks made different collective calls in " in output
    assert "(rank 0: allgather, rank 1: allgather_base)" in output or "(rank 1: allgather_base, rank 0: allgather)" in output
    assert "Traceback" not in output
    assert seconds < 120  # at once, well before the timeout


def _raised(message: str) -> RuntimeError:
    def collective():  # (outside coevo's source tree: "an unknown function")
        raise RuntimeError(message)

    try:
        collective()
    except RuntimeError as exc:
        return exc


@pytest.mark.parametrize(("message", "expected"), [
    ("[gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 30000ms for recv operation to complete",
     "rank 0 of 1: a collective call in an unknown function waited 30 s for the other ranks"),
    ("[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLGATHER, "
     "Timeout(ms)=600000) ran for 600021 milliseconds before timing out.", "waited 600 s for the other ranks"),
    ("[gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:23771: Connection reset by peer.",
     "rank 0 of 1: another rank stopped during a collective call in"),
])
def test_collective_failures_become_one_line(message, expected):
    line = describe_collective_failure(_raised(message))
    assert expected in line


def test_other_errors_are_left_alone():
    assert describe_collective_failure(_raised("CUDA out of memory")) is None
    assert describe_collective_failure(ValueError("Timed out waiting 5ms")) is None
