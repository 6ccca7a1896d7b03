"""The end-of-run report: success of the recursive vs the flat agent per task size, with tree
statistics, as a rich table and a PNG (success vs size; training success of both agents)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from rich.table import Table

from coevo.core.reporting import save_figure


def _pct(x: float | None) -> str:
    return "-" if x is None or math.isnan(x) else f"{x * 100:.0f}%"


def _num(x: float | None, digits: int = 1) -> str:
    return "-" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def report_table(rows: list[dict], title: str) -> Table:
    """One row per size: success of each agent, then the recursive agent's tree statistics."""
    table = Table(title=title)
    agents = [k for k in ("before", "recursive", "flat") if any(k in r for r in rows)]
    table.add_column("size")
    for agent in agents:
        table.add_column({"before": "warm start (rec.)", "recursive": "recursive", "flat": "flat"}[agent],
                         justify="right")
    for col in ("depth", "nodes", "children/parent", "child success", "refused", "env steps", "s/tree"):
        table.add_column(col, justify="right")
    for row in rows:
        rec = row.get("recursive", {})
        cells = [row["label"]] + [_pct(row.get(a, {}).get("success")) for a in agents]
        cells += [_num(rec.get("tree/depth")), _num(rec.get("tree/nodes")), _num(rec.get("tree/children_per_parent")),
                  _pct(rec.get("delegation/success")) if rec.get("delegation/children") else "-",
                  _num(rec.get("refused/all"), 2), _num(rec.get("env_steps")), _num(rec.get("seconds_per_tree"), 2)]
        table.add_row(*cells)
    return table


def write_report(rows: list[dict], path: Path) -> Path:
    path.write_text(json.dumps(rows, indent=1, default=float))
    return path


def knob_label(rows: list[dict]) -> str:
    """The x-axis title: the size knob (and the window multiple) or "split"."""
    first = rows[0]["label"] if rows else ""
    if "=" not in first:
        return "split"
    return first.split("=")[0] + (" (multiple of the context window)" if "window" in first else "")


def plot_report(rows: list[dict], metrics: list[dict], out_png: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    x = range(len(rows))
    for agent, style in (("recursive", "o-"), ("flat", "s--"), ("before", "^:")):
        values = [r.get(agent, {}).get("success", math.nan) for r in rows]
        if any(not math.isnan(v) for v in values):
            ax.plot(list(x), values, style, label=agent if agent != "before" else "recursive, warm start")
    ax.set_xticks(list(x), [r.get("short", r["label"]) for r in rows])
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(knob_label(rows))
    ax.set_ylabel("held-out success (greedy)")
    ax.set_title("success vs size")
    ax.grid(alpha=0.3)
    ax.legend()
    ax = axes[1]
    steps = [m["step"] for m in metrics]
    for key, label in (("train/success", "recursive"), ("train/flat/success", "flat")):
        values = [m.get(key, math.nan) for m in metrics]
        if steps and any(not math.isnan(v) for v in values):
            ax.plot(steps, values, label=label)
    ax.set_xlabel("optimizer step")
    ax.set_ylabel("training success (sampled)")
    ax.set_title("training rollouts")
    ax.grid(alpha=0.3)
    ax.legend()
    return save_figure(fig, out_png, title)
