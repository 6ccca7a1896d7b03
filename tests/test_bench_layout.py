"""bench/ by question (bench/README.md): scripts run as modules from the repository root without
touching ``sys.path``, each JSON record sits next to the script that writes it, and a study's record
keeps its runs as entries with their settings inside (``bench.records``)."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"


def _records_module():
    spec = importlib.util.spec_from_file_location("bench_records", BENCH / "records.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_bench_script_changes_sys_path():
    patching = [str(p.relative_to(REPO)) for p in BENCH.rglob("*.py")
                if re.search(r"sys\.path\.(insert|append)", p.read_text())]
    assert patching == []


def test_every_record_sits_next_to_its_script():
    records = list(BENCH.rglob("*.json"))
    assert records
    assert [str(p.relative_to(REPO)) for p in records if not p.with_suffix(".py").is_file()] == []
    assert not (BENCH / "results").exists()


def test_a_study_keeps_its_runs_as_entries_with_their_settings():
    for path in BENCH.rglob("*.json"):
        record = json.loads(path.read_text())
        if not (isinstance(record, dict) and "entries" in record):
            continue
        names = [e["entry"] for e in record["entries"]]
        assert len(names) == len(set(names)) >= 2, path
        assert record["study"] == path.stem and (REPO / record["script"]).is_file(), path
        assert all(isinstance(e["settings"], dict) for e in record["entries"]), path


def test_save_entry_replaces_its_entry_and_keeps_the_others(tmp_path):
    records = _records_module()
    study = tmp_path / "study.json"
    study.write_text(json.dumps({"study": "study", "question": "q", "script": "s.py", "entries": [
        {"entry": "a", "settings": {}, "n": 1}, {"entry": "b", "settings": {}, "n": 2}]}))
    records.save_entry(study, "a", {"n": 3}, ["--steps", "8", "--seeds", "0", "1", "--entry", "a", "algo.lr=1e-3"])
    records.save_entry(study, "c", {"n": 4}, [])
    entries = json.loads(study.read_text())["entries"]
    assert [(e["entry"], e["n"]) for e in entries] == [("a", 3), ("b", 2), ("c", 4)]
    assert entries[0]["settings"] == {"steps": "8", "seeds": ["0", "1"], "overrides": {"algo.lr": "1e-3"}}


def test_a_script_runs_as_a_module_from_the_repository_root():
    done = subprocess.run([sys.executable, "-m", "bench.peer.peer_trl", "--help"], cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "--entry" in done.stdout
