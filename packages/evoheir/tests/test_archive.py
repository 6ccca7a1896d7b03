"""The experience archive: eligibility, cap, stratified rotation, atomic persistence."""

import json
import os

import pytest

from coevo.evoheir.archive import Archive
from coevo.evoheir.experience import Record, qualify


def rec(q, a="6", ref=None, rnd=1, src="b1", kind="word_problem"):
    return Record(q, a, ref if ref is not None else f"The answer is \\boxed{{{a}}}.", kind, rnd, src)


def test_eligibility_rules():
    records = [
        rec("A box holds 3 cookies. How many cookies are there in 2 boxes?"),
        rec("a box holds 3 cookies.  How many cookies are there in 2 boxes"),  # same question normalised
        rec("Compute $2 + 2$.", "4", ref="I think it is 4"),  # reference has no boxed answer
        rec("Compute $2 + 3$.", "5", ref="The answer is \\boxed{6}."),  # reference does not reach the label
        rec("Compute $1 + 1$.", "two"),  # not a numeric label
        rec("", "1"),  # incomplete
        rec("Compute $7 - 1$.", "6"),
        rec("Compute $7 - 1$.", "5", ref="The answer is \\boxed{5}."),  # conflicting label: both dropped
    ]
    qualified, dropped = qualify(records)
    assert [r.question for r in qualified] == ["A box holds 3 cookies. How many cookies are there in 2 boxes?"]
    assert dropped == {"reference does not reach the label": 2, "invalid": 1, "incomplete": 1,
                       "conflicting labels": 2, "duplicate": 1}


def test_conflict_with_a_held_record_evicts_both():
    archive = Archive(cap=10)
    assert archive.add([rec("Compute $3 + 3$.")]) == 1
    assert archive.add([rec("Compute $3 + 3$.")]) == 0  # duplicate
    assert archive.add([rec("Compute $3 + 3$.", "7", ref="The answer is \\boxed{7}.")]) == 0
    assert len(archive) == 0 and archive.rejected["conflicting labels"] == 2


def test_cap_and_stratified_rotation():
    archive = Archive(cap=6)
    archive.add([rec(f"Compute ${i} + 1$.", str(i + 1), rnd=1, src="b1") for i in range(5)])
    archive.add([rec(f"Compute ${i} + 2$.", str(i + 2), rnd=2, src="b2") for i in range(3)])
    # 8 records for 6 places: strata (1,b1)=5, (2,b2)=3; evict the oldest of the largest twice
    assert len(archive) == 6
    assert [r.question for r in archive.records if r.round == 1] == [f"Compute ${i} + 1$." for i in (2, 3, 4)]
    assert archive.strata() == {"b1": 3, "b2": 3, "r1": 3, "r2": 3}
    # a third round of 4 cannot push out the older rounds entirely: strata end at 2/2/2
    archive.add([rec(f"Compute ${i} + 3$.", str(i + 3), rnd=3, src="b1") for i in range(4)])
    assert sorted((r.round, r.source) for r in archive.records) == [(1, "b1")] * 2 + [(2, "b2")] * 2 + [(3, "b1")] * 2
    assert Archive(cap=256).cap == 256


def test_atomic_save_and_load(tmp_path, monkeypatch):
    archive = Archive(cap=4)
    archive.add([rec("Compute $1 + 2$.", "3")])
    path = archive.save(tmp_path / "archive.json")
    assert json.loads(path.read_text())["records"][0]["answer"] == "3"
    assert not (tmp_path / "archive.json.tmp").exists()
    assert Archive.load(path).records == archive.records
    # a crash between writing the temporary file and the rename leaves the old archive intact
    archive.add([rec("Compute $2 + 2$.", "4")])

    def crash(src, dst):
        raise OSError("killed")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        archive.save(path)
    assert len(json.loads(path.read_text())["records"]) == 1
