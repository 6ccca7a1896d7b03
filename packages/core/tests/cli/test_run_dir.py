"""The advice for a run folder killed before its first checkpoint is ``overwrite=true``, never a loop."""

import pytest

from coevo.core.cli.run_dir import prepare_run_dir
from coevo.core.cli.run_lock import RunDirError, release_run_dir


def _killed_before_first_checkpoint(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("seed: 0\n")  # written at the claim; no checkpoints/ yet
    (run / "metrics.jsonl").write_text('{"step": 1}\n')
    return run


def test_rerunning_says_overwrite_not_resume(tmp_path):
    run = _killed_before_first_checkpoint(tmp_path)
    with pytest.raises(RunDirError, match="stopped before its first checkpoint .*pass overwrite=true") as info:
        prepare_run_dir(str(run), None, overwrite=False)
    assert "resume=" not in str(info.value)


def test_resuming_says_overwrite_too(tmp_path):
    run = _killed_before_first_checkpoint(tmp_path)
    with pytest.raises(RunDirError, match=f"start it again with run_dir={run} overwrite=true"):
        prepare_run_dir("unused", str(run), overwrite=False)


def test_the_advice_works(tmp_path):
    run = _killed_before_first_checkpoint(tmp_path)
    try:
        assert prepare_run_dir(str(run), None, overwrite=True) == (run, None)
    finally:
        release_run_dir(run)
    assert not (run / "config.yaml").exists() and not (run / "metrics.jsonl").exists()


def test_a_run_with_a_checkpoint_is_resumable(tmp_path):
    run = _killed_before_first_checkpoint(tmp_path)
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / "last.ckpt").write_bytes(b"")
    with pytest.raises(RunDirError, match=f"pass resume={run} to continue it"):
        prepare_run_dir(str(run), None, overwrite=False)
    assert prepare_run_dir("unused", str(run), overwrite=False) == (run, run / "checkpoints" / "last.ckpt")
