"""``save_folder_atomically``: a sharded checkpoint folder replaces the previous one only when complete.

The folders are written with torch.distributed.checkpoint itself (one process, no process group: DCP's
own single-process mode), as FSDP's sharded checkpoint is. A kill mid-write is a real SIGKILL of a
child process; what it leaves behind is removed by the next run's claim and ``last.ckpt`` stays the
previous complete checkpoint.
"""

import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.distributed.checkpoint as dcp

from coevo.core.callbacks.atomic_checkpoint_io import save_folder_atomically
from coevo.core.cli.run_dir import claim_run_dir, has_checkpoint, prepare_run_dir
from coevo.core.cli.run_lock import release_run_dir


def _one_process_barrier():
    """The barrier of a job of one process: nothing to wait for."""


def _write_dcp(step: int):
    def write(tmp):
        tmp.mkdir(parents=True, exist_ok=True)
        dcp.save({"model": {"w": torch.full((4,), float(step))}}, checkpoint_id=tmp)
        torch.save({"global_step": step}, tmp / "meta.pt")
    return write


def _read(path) -> tuple[int, torch.Tensor]:
    state = {"model": {"w": torch.zeros(4)}}
    dcp.load(state, checkpoint_id=path)
    return torch.load(path / "meta.pt", weights_only=True)["global_step"], state["model"]["w"]


def test_a_complete_folder_replaces_the_previous_one_and_nothing_is_left(tmp_path):
    last = tmp_path / "checkpoints" / "last.ckpt"
    save_folder_atomically(last, 7, _write_dcp(1), True, _one_process_barrier)
    save_folder_atomically(last, 7, _write_dcp(2), True, _one_process_barrier)
    step, w = _read(last)
    assert step == 2 and torch.equal(w, torch.full((4,), 2.0))
    assert sorted(p.name for p in last.parent.iterdir()) == ["last.ckpt"]


def test_a_failed_write_keeps_the_previous_folder_and_leaves_no_temporary(tmp_path):
    last = tmp_path / "last.ckpt"
    save_folder_atomically(last, 7, _write_dcp(1), True, _one_process_barrier)

    def half_then_fail(tmp):
        _write_dcp(2)(tmp)
        raise OSError("No space left on device (any failure after some shards were written)")

    with pytest.raises(OSError, match="No space left"):
        save_folder_atomically(last, 7, half_then_fail, True, _one_process_barrier)
    assert _read(last)[0] == 1
    assert [p.name for p in tmp_path.iterdir()] == ["last.ckpt"]


def _claim(run) -> list[str]:
    """What claiming the run folder (as the next run does) said; the lock released again."""
    said = []
    try:
        claim_run_dir(run, said.append)
    finally:
        release_run_dir(run)
    return said


KILLED_MID_WRITE = textwrap.dedent("""
    import os, signal, sys
    from pathlib import Path
    import torch, torch.distributed.checkpoint as dcp
    from coevo.core.callbacks.atomic_checkpoint_io import save_folder_atomically

    def write(tmp):
        tmp.mkdir(parents=True)
        dcp.save({"model": {"w": torch.full((4,), 2.0)}}, checkpoint_id=tmp)  # the shards, no meta.pt yet
        os.kill(os.getpid(), signal.SIGKILL)

    save_folder_atomically(Path(sys.argv[1]), os.getpid(), write, True, lambda: None)
""")


def test_a_sharded_checkpoint_killed_mid_write_is_cleaned_up_and_last_stays(tmp_path):
    run = tmp_path / "run"
    last = run / "checkpoints" / "last.ckpt"
    save_folder_atomically(last, 1, _write_dcp(1), True, _one_process_barrier)
    (run / "config.yaml").write_text("seed: 0\n")
    killed = subprocess.run([sys.executable, "-c", KILLED_MID_WRITE, str(last)], capture_output=True, text=True)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    (leftover,) = [p for p in last.parent.iterdir() if p.name != "last.ckpt"]
    assert leftover.name.startswith("last.ckpt.tmp-") and (leftover / ".metadata").is_file()
    assert _read(last)[0] == 1  # the kill did not touch the complete checkpoint

    assert prepare_run_dir("unused", str(run), overwrite=False) == (run, last)
    said = _claim(run)
    assert sorted(p.name for p in last.parent.iterdir()) == ["last.ckpt"]
    assert "removed 1 unfinished write" in said[0] and leftover.name in said[0]
    assert _read(last)[0] == 1


def test_a_kill_between_the_two_renames_puts_the_previous_checkpoint_back(tmp_path):
    # replace_folder moves last.ckpt aside, then renames the new folder in: a kill in between leaves
    # no last.ckpt, the previous one as last.ckpt.old-<pid> and the new one as last.ckpt.tmp-<pid>
    run = tmp_path / "run"
    last = run / "checkpoints" / "last.ckpt"
    save_folder_atomically(last, 1, _write_dcp(1), True, _one_process_barrier)
    _write_dcp(2)(last.with_name("last.ckpt.tmp-4242"))
    os.replace(last, last.with_name("last.ckpt.old-4242"))
    assert has_checkpoint(run)  # a resume is offered, and the claim below makes it whole
    said = _claim(run)
    assert sorted(p.name for p in last.parent.iterdir()) == ["last.ckpt"]
    assert _read(last)[0] == 1 and "put back checkpoints/last.ckpt" in said[0]
