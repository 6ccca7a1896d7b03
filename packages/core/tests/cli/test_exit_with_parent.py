"""``make train`` killed alone must not leave the training process running (``cli/exit_with_parent.py``)."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

CHILD = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"


def _alive(pid: int) -> bool:
    """Running (a zombie no reaper collected counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _start_under_make(tmp_path, launcher: bool):
    """``make`` running a recipe shaped like the repository's ``train`` recipe; returns (make, child pid)."""
    pidfile = tmp_path / "child.pid"
    prefix = "$(PY) -m coevo.core.cli.exit_with_parent " if launcher else ""
    (tmp_path / "Makefile").write_text(f"run:\n\texec {prefix}$(PY) -c \"{CHILD}\" {pidfile}\n")
    make = subprocess.Popen(["make", "-s", "-C", str(tmp_path), "run", f"PY={sys.executable}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not (pidfile.is_file() and pidfile.read_text()):
        assert time.monotonic() < deadline, "the child did not start"
        time.sleep(0.05)
    return make, int(pidfile.read_text())


def _gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(shutil.which("make") is None or not sys.platform.startswith("linux"), reason="needs make, Linux")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killing_make_alone_ends_the_child(tmp_path, sig):
    make, child = _start_under_make(tmp_path, launcher=True)
    try:
        os.kill(make.pid, sig)  # make only, not its process group
        make.wait(timeout=10)
        assert _gone_within(child, 5), f"child {child} outlived make"
    finally:
        if _alive(child):
            os.kill(child, signal.SIGKILL)


@pytest.mark.skipif(shutil.which("make") is None or not sys.platform.startswith("linux"), reason="needs make, Linux")
def test_without_the_launcher_the_child_is_orphaned(tmp_path):
    # the control: what `make train` did before (the test above is not vacuous)
    make, child = _start_under_make(tmp_path, launcher=False)
    try:
        os.kill(make.pid, signal.SIGKILL)
        make.wait(timeout=10)
        assert not _gone_within(child, 1)
    finally:
        os.kill(child, signal.SIGKILL)


def test_the_repository_recipes_use_the_launcher():
    makefile = next(p / "Makefile" for p in Path(__file__).resolve().parents if (p / "Makefile").is_file())
    text = makefile.read_text()
    for module in ("coevo.core.cli.train", "coevo.core.cli.eval"):
        (line,) = [line for line in text.splitlines() if f"-m {module}" in line]
        assert line.strip().startswith("exec ") and "$(WITH_PARENT)" in line, line
    assert "WITH_PARENT = -m coevo.core.cli.exit_with_parent" in text
