"""One line for a collective call that failed because the ranks did not meet: which rank, where.

Every forward of a policy sharded by FSDP, every gradient reduction and every object gather is a
collective call: all ranks must make it, in the same order. When they do not (one rank ran a
forward the others did not) the waiting rank's call fails after ``trainer.collective_timeout``
seconds (gloo: "Timed out waiting 30000ms for recv operation"; NCCL's watchdog: "collective
operation timeout"), and a rank whose partner has died fails at once ("Connection closed by peer").
With ``trainer.check_collectives=true`` torch compares every call's kind and shapes across the
ranks first ("Detected mismatch between collectives"), so a mismatch fails at once instead of
aborting the process (gloo: "Received data size doesn't match") or waiting for the timeout.
``describe_collective_failure`` turns these into a line naming this rank, the coevo function whose
collective failed (the innermost coevo frame of the traceback) and what to do.
"""

from __future__ import annotations

import re
import traceback

from coevo.core import distributed as dist

_TIMEOUT = re.compile(r"timed out waiting \d+\s*ms|collective operation timeout", re.I)
_WAITED_MS = re.compile(r"timed out waiting (\d+)\s*ms|Timeout\(ms\)=(\d+)", re.I)
_MISMATCH = re.compile(r"Rank (\d+) is running collective: CollectiveFingerPrint\(SequenceNumber=\d+, OpType=(\w+)")
_PEER_GONE = re.compile(r"connection (closed|reset) by peer|NCCL communicator was aborted", re.I)


def _innermost_coevo_frame(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/coevo/" in f.filename.replace("\\", "/")]
    if not frames:
        return "an unknown function"
    frame = frames[-1]
    path = frame.filename.replace("\\", "/")
    return f"{frame.name} ({path[path.rindex('/coevo/') + 1:]}:{frame.lineno})"


def describe_collective_failure(exc: BaseException) -> str | None:
    """The line for a timed-out collective or a vanished peer; ``None`` for any other exception."""
    if not isinstance(exc, RuntimeError):
        return None
    text = str(exc)
    where = _innermost_coevo_frame(exc)
    who = f"rank {dist.rank()} of {dist.world_size()}"
    calls = _MISMATCH.findall(text)
    if "Detected mismatch between collectives" in text:  # trainer.check_collectives=true
        made = ", ".join(f"rank {r}: {op.lstrip('_').lower()}" for r, op in calls) or "different calls"
        return (f"{who}: the ranks made different collective calls in {where} ({made}): they ran different "
                f"numbers of forward passes or collectives (a bug: report it with the algorithm and trainer)")
    if _TIMEOUT.search(text):
        waited_ms = _WAITED_MS.search(text)
        ms = next((g for g in waited_ms.groups() if g), None) if waited_ms else None
        waited = f"{int(ms) / 1000:g} s" if ms else "trainer.collective_timeout"
        return (f"{who}: a collective call in {where} waited {waited} for the other ranks, which did not make "
                f"it: the ranks ran different numbers of forward passes or collectives (a bug: report it with "
                f"the algorithm and trainer), or another rank is stuck; if a rank is only slow (e.g. building "
                f"the warm start), raise trainer.collective_timeout")
    if _PEER_GONE.search(text):
        return (f"{who}: another rank stopped during a collective call in {where}; its own error, printed "
                f"above or in its log, says why")
    return None
