"""The splits of a file-backed environment (math, search), on hand-built rows."""

import pytest

from coevo.envs.file_splits import split_rows, task_index

FILES = {"train.jsonl": tuple(range(10)), "eval.jsonl": ("e0", "e1"), "ood.jsonl": ("o0",)}


def test_the_last_rows_are_held_out_without_an_eval_file():
    assert split_rows("train", FILES.get, "train.jsonl", "", "", 3) == (0, 1, 2, 3, 4, 5, 6)
    assert split_rows("eval_in_distribution", FILES.get, "train.jsonl", "", "", 3) == (7, 8, 9)
    assert split_rows("eval_in_distribution", FILES.get, "train.jsonl", "", "", 40) == (5, 6, 7, 8, 9)  # at most half
    assert split_rows("eval_out_of_distribution", FILES.get, "train.jsonl", "", "", 3) == ()


def test_eval_and_ood_files_give_their_own_rows():
    assert split_rows("train", FILES.get, "train.jsonl", "eval.jsonl", "ood.jsonl", 3) == FILES["train.jsonl"]
    assert split_rows("eval_in_distribution", FILES.get, "train.jsonl", "eval.jsonl", "ood.jsonl", 3) == ("e0", "e1")
    assert split_rows("eval_out_of_distribution", FILES.get, "train.jsonl", "eval.jsonl", "ood.jsonl", 3) == ("o0",)


def test_train_cycles_and_other_splits_are_bounded():
    assert task_index("train", 12, 5) == 2
    assert task_index("train", 12, None) == 12  # generated: unbounded
    assert task_index("eval_in_distribution", 4, 5) == 4
    with pytest.raises(IndexError, match="out of range for split 'eval_in_distribution' of size 5"):
        task_index("eval_in_distribution", 5, 5)
    with pytest.raises(IndexError):
        task_index("train", -1, 5)
