"""bench/methods/headline_runs.py reads a `make train` log and its run folder into a record entry, and
docs/results_tables.py's ``headline_runs`` table states each seed and the spread (worked by hand below)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from pathlib import Path

import pytest

from bench.methods import headline_runs

REPO = Path(__file__).resolve().parents[1]


def _tables_module():
    spec = importlib.util.spec_from_file_location("results_tables", REPO / "docs" / "results_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _fake_run(checkout: Path, seed: int, before: float, after: float, wall: int) -> Path:
    """A checkout with the log and run folder a `make train ALGO=grpo ARGS=seed=<seed>` leaves behind."""
    run = checkout / "runs" / f"grpo-household-{seed}"
    run.mkdir(parents=True)
    (run / "config.yaml").write_text(f"seed: {seed}\nenv:\n  name: household\ntrainer:\n  cpu_threads: 2\n")
    (run / "eval_before.json").write_text(json.dumps({"success": before, "greedy/success": before, "note": "x"}))
    (run / "eval_after.json").write_text(json.dumps({"success": after, "greedy/success": after + 0.1}))
    log = checkout / f"hl-grpo-s{seed}.log"
    log.write_text("\n".join([
        f"== grpo seed {seed} start 2026-12-06T14:06:19 load 0.27 0.90 1.08",
        ".venv/bin/python -m pip install -q -e packages/core",
        "warm start: supervised fine-tuning on expert trajectories (building…)",
        "  model folder .cache/coevo/warmstart/f0c1885aef3ca086 (1,052,672 parameters, ",  # wrapped as printed
        "SFT loss 0.230, built in 246.6 s)",
        f"TensorBoard logs: runs/grpo-household-{seed}/tb   (tensorboard --logdir",
        f"== rc 0 wall {wall} s end 2026-12-06T14:26:33 load 4.48 5.09 4.24"]) + "\n")
    return log


def test_an_entry_holds_the_command_settings_and_both_evaluations(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    entry = headline_runs.entry_of(_fake_run(tmp_path, 1, 0.25, 0.5, 1214), fresh_clone=True)
    assert (entry["algo"], entry["seed"], entry["torch_threads"], entry["wall_seconds"]) == ("grpo", 1, 2, 1214)
    assert entry["command"] == 'make train ALGO=grpo ARGS="seed=1"'
    assert entry["before"] == {"success": 0.25, "greedy/success": 0.25}  # numbers only
    assert entry["after"]["greedy/success"] == pytest.approx(0.6)
    assert (entry["warm_start"], entry["venv_built"], entry["fresh_clone"]) == ("built", True, True)
    log = tmp_path / "hl-grpo-s1.log"  # the Makefile installs through .ci/pip.sh (uv) since stop 53
    log.write_text(log.read_text().replace(".venv/bin/python -m pip install", "bash .ci/pip.sh install .venv/bin/python"))
    assert headline_runs.entry_of(log, fresh_clone=True)["venv_built"] is True
    assert (entry["warm_start_key"], entry["warm_start_sft_loss"]) == ("f0c1885aef3ca086", 0.23)
    assert entry["load_average_at_start"] == [0.27, 0.9, 1.08] and entry["load_average_at_end"][1] == 5.09


def test_a_run_with_its_own_thread_count_says_so_in_its_command(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    log = _fake_run(tmp_path, 2, 0.25, 0.5, 300)
    log.write_text(log.read_text().replace("== grpo seed 2 start", "== grpo seed 2 threads 1 start"))
    run = tmp_path / "runs" / "grpo-household-2"
    (run / "config.yaml").write_text("seed: 2\nenv:\n  name: household\ntrainer:\n  cpu_threads: 1\n")
    entry = headline_runs.entry_of(log, fresh_clone=True)
    assert entry["command"] == 'make train ALGO=grpo ARGS="seed=2 trainer.cpu_threads=1"'
    assert (entry["argv"], entry["torch_threads"]) == (["seed=2", "trainer.cpu_threads=1"], 1)


def test_a_run_with_overrides_keeps_them_in_its_command_and_its_entry_name(tmp_path):
    """headline_runs.sh's ALGO:SEED:THREADS:OVERRIDES form (rao:0:2:env=textcraft_synth) writes them on the first line."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    log = _fake_run(tmp_path, 0, 0.25, 0.5, 300)
    log.write_text(log.read_text().replace("== grpo seed 0 start", "== grpo seed 0 threads 2 start").replace(
        "load 0.27 0.90 1.08", "load 0.27 0.90 1.08 overrides env=textcraft_synth algo.report.num_tasks=4"))
    entry = headline_runs.entry_of(log, fresh_clone=True)
    assert entry["command"] == ('make train ALGO=grpo ARGS="env=textcraft_synth algo.report.num_tasks=4 seed=0 '
                                'trainer.cpu_threads=2"')
    assert entry["load_average_at_start"] == [0.27, 0.9, 1.08]
    assert headline_runs.entry_name(entry) == "grpo_textcraft_synth_4_s0_t2"


def test_the_script_writes_the_overrides_on_the_first_line(tmp_path):
    (tmp_path / "Makefile").write_text('train:\n\t@echo ARGS="$(ARGS)"\n')
    script = REPO / "bench" / "methods" / "headline_runs.sh"
    # as from a shell: under `make test-e2e` the inherited MAKELEVEL would make the inner make print its directory
    shell = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    subprocess.run(["bash", str(script), str(tmp_path), "rao:1::env=textcraft_synth,trainer.max_steps=2"], check=True,
                   env=shell)
    lines = (tmp_path / "hl-rao-env_textcraft_synth_trainer_max_steps_2-s1.log").read_text().splitlines()
    assert lines[0].endswith(" overrides env=textcraft_synth trainer.max_steps=2")
    assert lines[1] == "ARGS=env=textcraft_synth trainer.max_steps=2 seed=1" and lines[2].startswith("== rc 0 wall ")


def test_an_unfinished_log_is_refused_by_name(tmp_path):
    log = _fake_run(tmp_path, 0, 0.25, 0.5, 10)
    log.write_text(log.read_text().rsplit("== rc", 1)[0])
    with pytest.raises(SystemExit, match="not a finished headline log"):
        headline_runs.entry_of(log, fresh_clone=False)


def test_the_table_shows_every_seed_and_the_spread(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path / "clone")], check=True)
    root = tmp_path / "repo"
    (root / "bench").mkdir(parents=True)
    entries = []
    for seed, (before, after) in enumerate([(0.25, 0.5), (0.25, 0.35), (0.30, 0.40)]):
        entry = headline_runs.entry_of(_fake_run(tmp_path / "clone", seed, before, after, 600 + seed), True)
        entries.append({"entry": f"grpo_s{seed}_t2", "settings": {}, **entry})
    (root / "bench" / "headline_runs.json").write_text(json.dumps({"entries": entries}))
    table = _tables_module().headline_runs(root)
    sampled = table.splitlines()[2]
    # changes +25, +10, +10 points: mean 15, sample sd sqrt((100 + 25 + 25) / 2) = 8.66
    assert "25.0 → 50.0, 25.0 → 35.0, 30.0 → 40.0" in sampled and "+15.0 ± 8.7" in sampled
    assert "10 min 00 s (venv built, warm start built, load 0.3 → 5.1)" in sampled
    greedy = table.splitlines()[3]
    assert "| greedy | 2 | 0, 1, 2 |" in greedy and "+25.0 ± 8.7" in greedy


def test_the_readme_row_states_the_change_at_other_thread_counts(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path / "clone")], check=True)
    entries = []
    for seed, threads, after in [(0, 2, 0.5), (1, 2, 0.35), (0, 1, 0.30), (1, 1, 0.20)]:
        clone = tmp_path / "clone" / f"t{threads}"
        entry = headline_runs.entry_of(_fake_run(clone, seed, 0.25, after, 600), True)
        entries.append({"entry": f"grpo_s{seed}_t{threads}", "settings": {}, **entry, "torch_threads": threads})
    root = tmp_path / "repo"
    (root / "bench").mkdir(parents=True)
    (root / "bench" / "headline_runs.json").write_text(json.dumps({"entries": entries}))
    readme = _tables_module().readme_headline(root)
    # 2 threads: +25 and +10 (mean 17.5, sd 10.6); 1 thread: +5 and -5 (mean 0, sd 7.1)
    assert "| 0/1 (2 threads; 1 thread: +0.0 ± 7.1) | sampled 25.0% → 50.0 / 35.0% | +17.5 ± 10.6 |" in readme


def _rao_entry(clone: Path, seed: int, sizes: list[tuple[int, float, float]], sft_loss: str) -> dict:
    """A finished `make train ALGO=rao` run's entry: ``sizes`` are (window multiple, recursive, flat) success."""
    log = _fake_run(clone, seed, 0.25, 0.5, 780)
    log.write_text(log.read_text().replace("grpo seed", "rao seed").replace("SFT loss 0.230", f"SFT loss {sft_loss}"))
    run = clone / "runs" / f"grpo-household-{seed}"
    (run / "config.yaml").write_text("env:\n  name: longctx\nalgo:\n  report:\n    json: rao_report.json\n")
    (run / "rao_report.json").write_text(json.dumps([
        {"label": f"x={m}", "short": f"{m} ({m}x)", "value": m, "make_env": None,
         "recursive": {"success": rec, "tree/nodes": 3.0}, "flat": {"success": flat}} for m, rec, flat in sizes]))
    return {"entry": f"rao_s{seed}_t2", **headline_runs.entry_of(log, fresh_clone=True)}


def test_rao_runs_show_recursive_against_flat_at_every_size(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path / "clone")], check=True)
    entries = [_rao_entry(tmp_path / "clone", 0, [(1, 1.0, 0.95), (2, 0.95, 0.2), (4, 0.9, 0.0), (8, 0.65, 0.0)], "0.005"),
               _rao_entry(tmp_path / "clone", 1, [(1, 1.0, 0.0), (2, 0.8, 0.0), (4, 0.7, 0.0), (8, 0.4, 0.05)], "0.270")]
    assert [row["recursive"]["success"] for row in entries[0]["report"]] == [1.0, 0.95, 0.9, 0.65]
    assert entries[1]["warm_start_sft_loss"] == 0.27
    root = tmp_path / "repo"
    (root / "bench").mkdir(parents=True)
    (root / "bench" / "headline_runs.json").write_text(json.dumps({"entries": entries}))
    tables = _tables_module()
    docs = tables.headline_runs(root)
    assert ("at 1x/2x/4x/8x: recursive 100/95/90/65% vs flat 95/20/0/0%; recursive 100/80/70/40% vs flat 0/0/0/5%"
            in docs)
    # recursive - flat at 8x: 65 and 35 points, mean 50, sample sd sqrt((15^2 + 15^2) / 1) = 21.2
    assert "recursive − flat at 8x: +50.0 ± 21.2" in docs and "warm-start SFT loss 0.005 / 0.270" in docs
    readme = tables.readme_headline(root)
    assert "greedy at 8x window: recursive 65 / 40% vs flat 0 / 5% | +50.0 ± 21.2 vs flat | SFT loss 0.005 / 0.270 |" in readme


def test_evoheir_runs_keep_its_own_held_out_line(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    log = _fake_run(tmp_path, 0, 0.25, 0.5, 278)
    (tmp_path / "runs" / "grpo-household-0" / "evoheir_summary.json").write_text(json.dumps(
        {"heldout_round0": 0.27, "rounds": [{"heldout": 0.34}, {"heldout": 0.32}]}))
    entry = headline_runs.entry_of(log, fresh_clone=True)
    assert (entry["before"]["rounds/heldout"], entry["after"]["rounds/heldout"]) == (0.27, 0.32)  # round 0, last round
    assert entry["before"]["success"] == 0.25  # core's evaluation is kept beside it


def _textcraft_synth_log(clone: Path, seed: int, medium: tuple[float, float], hard: tuple[float, float]) -> Path:
    """The log and run folder of ``rao:<seed>::env=textcraft_synth``: the report's medium and hard rows
    (recursive, flat success)."""
    log = _fake_run(clone, seed, 0.25, 0.5, 1100 + seed)
    log.write_text(log.read_text().replace("grpo seed", "rao seed").replace(
        "load 0.27 0.90 1.08", "load 0.27 0.90 1.08 overrides env=textcraft_synth"))
    run = clone / "runs" / f"grpo-household-{seed}"
    (run / "config.yaml").write_text("env:\n  name: textcraft_synth\nalgo:\n  report:\n    json: rao_report.json\n")
    (run / "rao_report.json").write_text(json.dumps([
        {"label": label, "split": split, "value": None, "recursive": {"success": rec, "tree/nodes": 1.25},
         "flat": {"success": flat, "tree/nodes": 1.0}}
        for label, split, (rec, flat) in (("in distribution", "eval_in_distribution", medium),
                                          ("out of distribution", "eval_out_of_distribution", hard))]))
    return log


def test_the_textcraft_synth_record_names_its_entries_by_seed(tmp_path, monkeypatch):
    from bench.methods.rao import rao_textcraft_synth

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.setattr(rao_textcraft_synth, "RECORD", tmp_path / "rao_textcraft_synth.json")
    monkeypatch.setattr("bench.records.ROOT", tmp_path)
    log = _textcraft_synth_log(tmp_path, 1, (0.1, 0.0), (0.0, 0.0))
    monkeypatch.setattr("sys.argv", ["rao_textcraft_synth", str(log), "--fresh-clone"])
    rao_textcraft_synth.main()
    record = json.loads((tmp_path / "rao_textcraft_synth.json").read_text())
    assert [e["entry"] for e in record["entries"]] == ["rao_textcraft_synth_s1_t2"]
    assert record["entries"][0]["command"] == 'make train ALGO=rao ARGS="env=textcraft_synth seed=1"'
    grpo = _fake_run(tmp_path / "other", 0, 0.25, 0.5, 10)
    monkeypatch.setattr("sys.argv", ["rao_textcraft_synth", str(grpo)])
    with pytest.raises(SystemExit, match="not rao on textcraft_synth"):
        rao_textcraft_synth.main()


def test_the_textcraft_synth_table_states_each_band_per_seed_and_the_gap(tmp_path):
    """RAO's TextCraft-Synth record (``rao:<seed>::env=textcraft_synth`` runs): medium and hard rows of the report."""
    subprocess.run(["git", "init", "-q", str(tmp_path / "clone")], check=True)
    entries = []
    for seed, (medium, hard) in enumerate([((0.10, 0.05), (0.05, 0.0)), ((0.20, 0.05), (0.0, 0.0))]):
        entry = headline_runs.entry_of(_textcraft_synth_log(tmp_path / "clone" / f"s{seed}", seed, medium, hard), True)
        entries.append({"entry": headline_runs.entry_name(entry), **entry})
    entries[1]["extreme"] = {"tasks": 10, "recursive": {"success": 0.1}, "flat": {"success": 0.0}}
    assert [e["entry"] for e in entries] == ["rao_textcraft_synth_s0_t2", "rao_textcraft_synth_s1_t2"]
    root = tmp_path / "repo"
    (root / "bench" / "methods" / "rao").mkdir(parents=True)
    (root / "bench" / "methods" / "rao" / "rao_textcraft_synth.json").write_text(json.dumps({"entries": entries}))
    lines = _tables_module().rao_textcraft_synth(root).splitlines()
    assert lines[2].startswith("| 0 | 2 | 18 min 20 s (venv built, warm start built, load 0.3 → 5.1) | 0.230 |")
    assert lines[2].endswith("| 10% vs 5% (1.2 agents a tree) | 5% vs 0% (1.2 agents a tree) | - |")
    assert lines[3].endswith("| 0% vs 0% (1.2 agents a tree) | 10% vs 0% (10 tasks) |")
    # medium gaps +5 and +15 points: mean 10, sd sqrt((25 + 25) / 1) = 7.07; hard +5 and 0: mean 2.5, sd 3.54
    assert lines[4] == ("| all |  | 18 min |  | recursive − flat: +10.0 ± 7.1 points | "
                        "recursive − flat: +2.5 ± 3.5 points |  |")
