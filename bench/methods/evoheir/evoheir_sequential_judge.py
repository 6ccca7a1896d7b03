"""HEIRCOMMIT's sequential judge against the fixed-pool rules, on the same proposals and the same items.

Runs ``algo=evoheir`` with the audit on (as ``evoheir_native_audit.py``: each round's proposal is
also played on ``--audit-items`` fresh items, its true gain) and a confirmation pool of ``--confirm``
items, whose paired differences every audited round records in draw order (``confirm_diffs`` in
``rounds.jsonl``). Each acceptance rule is then applied to the same proposals, reading the same
items in the same order:

- fixed m (64 … ``--confirm``): the first m items; empirical (v > 0), the paper's sub-Gaussian
  bar and the exact sign test, certified at δ_t = δ/(t(t+1));
- sequential: ``coevo.evoheir.sequential`` in batches of ``--batch`` items with a budget of
  ``--confirm`` items (``judge_in_batches``, the code a run uses), stopping when an e-process
  reaches 1/δ_t, or (``--futility`` α > 0) rolling back once the evidence against a gain reaches 1/α.

For each rule: harmful share (of its commits, true gain < 0), useful retention (of the updates with
true gain > 0), coverage, and plays per decision (items × policies × answers per item: mean, max).
The run's own decisions follow the empirical rule at m = ``--confirm``, so every rule is audited on
the same proposals (a run deciding with another rule would propose other updates after its first
different decision).

    .venv/bin/python -m bench.methods.evoheir.evoheir_sequential_judge --seeds 0 1 --rounds 20 --confirm 2048 --audit-items 1024 \
        --out evoheir_sequential_judge.json
    .venv/bin/python -m bench.methods.evoheir.evoheir_sequential_judge --read RUN_DIR ... --out NAME.json   # existing runs (NAME.json: next to this script)

Goal (issue 45): harmful share 0 and useful retention ≥ 0.8 with mean plays per decision ≤ ¼ of
the fixed rule's at m = 2,048.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import torch
from omegaconf import OmegaConf

from bench.methods.evoheir.evoheir_native_audit import ROOT, run_folders
from coevo.evoheir.audit import summarize_audit
from coevo.evoheir.sequential import SequentialTest, judge_in_batches
from coevo.evoheir.threshold import decision_delta, sign_threshold, threshold

FIXED_SIZES = (64, 256, 1024, 2048)


def fixed_rules(diffs: list[float], t: int, m: int, sigma: float, delta: float) -> dict[str, bool]:
    """The three fixed-pool rules on the first ``m`` items."""
    head = diffs[:m]
    v = sum(head) / m
    discordant = sum(1 for d in head if d != 0)
    rules = {f"empirical_m{m}": v > 0, f"subgaussian_m{m}": v > threshold("certified", t, m, sigma, delta)}
    if all(d in (-1.0, 0.0, 1.0) for d in head):  # the sign test is exact for one answer per item
        rules[f"sign_m{m}"] = v > sign_threshold(discordant, delta, t, m)
    return rules


def sequential_rule(diffs: list[float], t: int, delta: float, batch: int, futility: float) -> tuple[bool, int]:
    """(commit, items played) of the sequential judge reading ``diffs`` in order."""
    test = SequentialTest(decision_delta(delta, t), len(diffs), futility)
    values = torch.tensor(diffs, dtype=torch.float64)

    def play_pair(_, items):  # the recorded paired differences of these items (the root's side as 0)
        return values[items], torch.zeros(len(items), dtype=torch.float64)

    judge_in_batches(test, list(range(len(diffs))), batch, play_pair)
    return test.verdict == "commit", test.played


def proposals(run_dir: Path, delta: float, batch: int, futilities: list[float]) -> list[dict]:
    """Every audited round with a recorded confirmation sequence, each rule's decision and plays."""
    cfg = OmegaConf.load(run_dir / "config.yaml").algo.commit
    answers = 2 * int(cfg.samples)  # plays per item: both policies, ``samples`` answers each
    out = []
    for line in (run_dir / "rounds.jsonl").read_text().splitlines():
        r = json.loads(line)
        diffs = r.get("confirm_diffs")
        if r.get("true_gain") is None or not diffs:
            continue
        t = r.get("decision") or r["round"]  # older runs numbered decisions by round (never fewer)
        row = {"run": run_dir.name, "round": r["round"], "t": t, "true_gain": r["true_gain"], "v": r["v"]}
        plays = {}
        for m in FIXED_SIZES:
            if m <= len(diffs):
                decided = fixed_rules(diffs, t, m, float(cfg.sigma), delta)
                row |= decided
                plays |= {rule: m * answers for rule in decided}
        for futility in futilities:
            rule = f"sequential_futility{futility:g}"
            row[rule], played = sequential_rule(diffs, t, delta, batch, futility)
            plays[rule] = played * answers
        row["plays"] = plays
        out.append(row)
    return out


def rule_table(rows: list[dict]) -> dict:
    """Per rule: the audit summary and plays per decision (mean, max); commit-all once."""
    rules = [k for k in rows[0]["plays"]]
    table = {}
    for rule in rules:
        summary = summarize_audit([{"commit": r[rule], "true_gain": r["true_gain"]} for r in rows])
        table.setdefault("commit_all", summary["commit_all"])
        table.setdefault("proposals", summary["proposals"])
        plays = [r["plays"][rule] for r in rows]
        table[rule] = {**summary["heircommit"], "plays_mean": sum(plays) / len(plays), "plays_max": max(plays)}
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=[0, 1])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--confirm", type=int, default=2048, help="confirmation items per round (the budget)")
    parser.add_argument("--audit-items", type=int, default=1024)
    parser.add_argument("--delta", type=float, default=0.1, help="total error budget of the certified rules")
    parser.add_argument("--batch", type=int, default=64, help="the sequential judge's items per look")
    parser.add_argument("--futility", type=float, nargs="*", default=[0.0, 0.3, 0.5],
                        help="the sequential judge's futility levels (0: roll back only at 1/δ_t)")
    parser.add_argument("--folder", default="runs/bench-evoheir-sequential")
    parser.add_argument("--read", nargs="*", default=None, help="summarise these run folders instead of launching")
    parser.add_argument("--out", default=None, help="file name next to this script (bench/methods/evoheir/)")
    parser.add_argument("overrides", nargs="*", help="extra Hydra overrides for every run")
    args = parser.parse_args()
    start = time.perf_counter()
    runs = run_folders(args)
    rows = [row for run in runs for row in proposals(run, args.delta, args.batch, args.futility)]
    if not rows:
        raise SystemExit("no audited round with a recorded confirmation sequence (confirm_diffs) in these runs")
    table = rule_table(rows)
    print(f"proposals {table['proposals']}")
    for rule, s in table.items():
        if rule in ("proposals",):
            continue
        line = (f"{rule:18s} accepted {s['accepted']:5.1f}  harmful share {s['harmful_share']:.3f}  "
                f"coverage {s['coverage']:.3f}  useful retention {s['useful_retention']:.3f}")
        if "plays_mean" in s:
            line += f"  plays/decision mean {s['plays_mean']:7.1f} max {s['plays_max']}"
        print(line)
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        record = {"command": "python -m bench.methods.evoheir.evoheir_sequential_judge " + " ".join(sys.argv[1:]),
                  "commit": commit.stdout.strip(), "date": time.strftime("%Y-%m-%d %H:%M"),
                  "machine": platform.platform(), "seconds": round(time.perf_counter() - start, 1),
                  "runs": [str(r) for r in runs], "delta": args.delta, "batch": args.batch,
                  "futility": args.futility, "rules": table,
                  "rounds": rows}
        Path(__file__).with_name(args.out).write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()
