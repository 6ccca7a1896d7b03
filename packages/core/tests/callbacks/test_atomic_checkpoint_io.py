"""``AtomicCheckpointIO``: the old checkpoint stays whole and no temporary file is left when a write fails."""

import pytest
import torch

from coevo.core.callbacks.atomic_checkpoint_io import AtomicCheckpointIO


class _Unpicklable:
    def __reduce__(self):
        raise RuntimeError("cannot pickle (a full disk, a bad object: any failure mid-write)")


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    io = AtomicCheckpointIO()
    path = tmp_path / "last.ckpt"
    io.save_checkpoint({"step": 1}, path)
    with pytest.raises(RuntimeError, match="cannot pickle"):
        io.save_checkpoint({"step": 2, "bad": _Unpicklable()}, path)
    assert torch.load(path, weights_only=True) == {"step": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["last.ckpt"]
