"""One run per run folder (``cli/run_lock.py``), and the leftovers of killed writes (``cli/run_dir.py``)."""

import os
import signal
import subprocess
import sys

import pytest

from coevo.core.cli import train
from coevo.core.cli.run_dir import claim_run_dir
from coevo.core.cli.run_lock import LOCK_NAME, RunDirError, lock_run_dir, release_run_dir

HOLD = "import sys, time; from pathlib import Path; from coevo.core.cli.run_lock import lock_run_dir; " \
       "lock_run_dir(Path(sys.argv[1])); print('locked', flush=True); time.sleep(120)"


@pytest.fixture
def holder(tmp_path):
    """Another process holding ``tmp_path / 'run'``'s lock."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path / "run")], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "locked"
    yield proc
    proc.kill()
    proc.wait()


def test_a_second_run_on_a_locked_folder_is_refused_before_touching_it(compose_train, holder, tmp_path):
    run = tmp_path / "run"
    (run / "config.yaml").write_text("previous: run\n")
    with pytest.raises(RunDirError, match=f"is in use by process {holder.pid}"):
        lock_run_dir(run)
    with pytest.raises(RunDirError, match=f"is in use by process {holder.pid}"):  # even with overwrite=true
        train.run(compose_train("trainer.max_steps=1", "overwrite=true", "warmstart.enabled=false"))
    assert (run / "config.yaml").read_text() == "previous: run\n"


def test_a_stale_lock_of_a_killed_process_is_reclaimed(holder, tmp_path):
    run = tmp_path / "run"
    holder.send_signal(signal.SIGKILL)  # kill -9: no cleanup, its pid stays in the lock file
    holder.wait()
    assert (run / LOCK_NAME).read_text().strip() == str(holder.pid)
    said = []
    lock_run_dir(run, said.append)
    try:
        assert said == [f"run_dir: reclaimed the lock of process {holder.pid}, which stopped without releasing it"]
        assert (run / LOCK_NAME).read_text().strip() == str(os.getpid())
        lock_run_dir(run, said.append)  # already ours: nothing happens
        assert len(said) == 1
    finally:
        release_run_dir(run)
    assert (run / LOCK_NAME).read_text() == ""  # released: the next run has nothing to reclaim


def test_claim_removes_leftovers_of_killed_writes(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "last.ckpt").write_bytes(b"whole")
    (run / "checkpoints" / "step4.ckpt.tmp-4242").write_bytes(b"half")  # AtomicCheckpointIO
    (run / "policy.tmp-4242").mkdir()  # the policy export's temporary folder
    (run / "policy.tmp-4242" / "model.safetensors").write_bytes(b"half")
    (run / "archive.json.tmp").write_text("{")  # EVOHEIR's archive
    (run / "notes.tmp.txt").write_text("mine")  # not a leftover
    said = []
    try:
        claim_run_dir(run, said.append)
    finally:
        release_run_dir(run)
    left = sorted(str(p.relative_to(run)) for p in run.rglob("*"))
    assert left == [LOCK_NAME, "checkpoints", "checkpoints/last.ckpt", "notes.tmp.txt"]
    assert said and said[0].startswith("run_dir: removed 3 unfinished write(s)")
