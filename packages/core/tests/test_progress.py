"""``coevo.core.progress``: quiet for short work and on ranks other than 0; periodic lines and a
closing line for long work without a terminal; an activity's heartbeat yields to a track inside it."""

import time

import pytest

from coevo.core import progress


@pytest.fixture
def fast(monkeypatch):
    """Thresholds short enough to cross in a test, and a console created on the captured stdout."""
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.05)
    monkeypatch.setattr(progress, "LINE_SECONDS", 0.05)
    monkeypatch.setattr(progress, "_console", None)


def _slow(n, seconds=0.03):
    for i in range(n):
        time.sleep(seconds)
        yield i


def test_short_work_prints_nothing(capsys):
    assert list(progress.track(range(5), "counting")) == [0, 1, 2, 3, 4]
    with progress.activity("a blink"):
        pass
    assert capsys.readouterr().out == ""


def test_a_long_track_prints_counts_and_a_closing_line(fast, capsys):
    assert list(progress.track(_slow(6), "slow units", total=6)) == list(range(6))
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1].startswith("slow units: 6 done in ")
    counts = [int(line.split(": ")[1].split("/")[0]) for line in lines[:-1]]
    assert counts == sorted(counts) and counts[-1] <= 6 and all(line.split("/")[1].startswith("6 (") for line in lines[:-1])


def test_a_long_activity_beats_while_it_blocks_and_gives_its_duration(fast, capsys):
    with progress.activity("converting"):
        time.sleep(0.3)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("converting … (") and len(lines) >= 3
    assert lines[-1].startswith("converting: done in ")


def test_an_activity_is_quiet_while_a_track_inside_reports(fast, capsys):
    with progress.activity("loading"):
        list(progress.track(_slow(8), "episodes", total=8))
    lines = capsys.readouterr().out.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("episodes: "))
    last = next(i for i, line in enumerate(lines) if line.startswith("episodes: 8 done in "))
    assert not any(line.startswith("loading … (") for line in lines[first:last])


def test_other_ranks_print_nothing(fast, monkeypatch, capsys):
    monkeypatch.setattr(progress.dist, "is_main", lambda: False)
    assert list(progress.track(_slow(4), "units", total=4)) == [0, 1, 2, 3]
    with progress.activity("work"):
        time.sleep(0.2)
    assert capsys.readouterr().out == ""
