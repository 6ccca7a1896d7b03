"""The README's and the docs' results tables equal their JSON records (``docs/results_tables.py``),
and a number edited by hand in a generated table is caught; ``make docs`` writes them back."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "docs" / "results_tables.py"
BLOCK_START = re.compile(r"<!-- table: ([\w-]+) ")


def _tables(root: Path, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *(["--check"] if check else []), "--root", str(root)],
                          capture_output=True, text=True, timeout=60)


def _copy(tmp: Path) -> Path:
    """The files the tables are read from and written to: README.md, docs/*.md, bench/**/*.json."""
    shutil.copy(REPO / "README.md", tmp / "README.md")
    shutil.copytree(REPO / "docs", tmp / "docs", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    shutil.copytree(REPO / "bench", tmp / "bench", ignore=lambda folder, names: [
        n for n in names if not n.endswith(".json") and not (Path(folder) / n).is_dir() or n == "__pycache__"])
    return tmp


def test_every_generated_table_equals_its_record():
    done = _tables(REPO)
    assert done.returncode == 0, done.stderr


def test_every_markdown_file_with_results_has_its_tables():
    used = {name for path in [REPO / "README.md", *(REPO / "docs").rglob("*.md")]
            for name in BLOCK_START.findall(path.read_text())}
    assert {"readme_benchmarks", "pg_family", "fsdp_scaling", "cpu_threads_under_load"} <= used


def test_a_number_edited_by_hand_fails_and_make_docs_writes_it_back(tmp_path):
    root = _copy(tmp_path)
    readme = root / "README.md"
    text = readme.read_text()
    edited = text.replace("1,836 vs 2,007 tok/s", "1,936 vs 2,007 tok/s", 1)
    assert edited != text
    readme.write_text(edited)
    page = root / "docs" / "benchmarks.md"
    page.write_text(page.read_text().replace("| GSPO | 384 | 3 |", "| GSPO | 384 | 4 |", 1))

    done = _tables(root)
    assert done.returncode == 1
    assert "README.md: readme_benchmarks" in done.stderr and "docs/benchmarks.md: pg_family" in done.stderr

    assert _tables(root, check=False).returncode == 0  # make docs regenerates them from the records
    assert readme.read_text() == text
    assert _tables(root).returncode == 0


def test_a_changed_record_changes_its_table(tmp_path):
    root = _copy(tmp_path)
    record = root / "bench" / "scaling" / "fsdp_scaling.json"
    record.write_text(record.read_text().replace('"step_seconds": 1.906', '"step_seconds": 2.5', 1))
    done = _tables(root)
    assert done.returncode == 1 and "docs/scaling/memory.md: fsdp_scaling" in done.stderr
