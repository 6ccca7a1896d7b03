"""The end-of-run report: a per-type success table (before/after) and a PNG of the training curves."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path

from rich.table import Table


def success_table(before: dict[str, float] | None, after: dict[str, float] | None, title: str,
                  single: str | None = None) -> Table:
    """Success per task type, with only the columns that have values: before, after and change
    when both are given; otherwise one column, headed ``single`` (e.g. "success" for a lone
    evaluation such as ``coevo-eval``'s) or else "before"/"after" (a run with ``eval.before=false``)."""
    keys = [k for k in (after or before or {}) if k.startswith("success/")]
    rows = [(k.removeprefix("success/"), k) for k in keys] + [("ALL", "success")]
    if "greedy/success" in (after or before or {}):  # eval.mode=sample with eval.also_greedy
        rows.append(("ALL, greedy (each task once)", "greedy/success"))
    table = Table(title=title)
    table.add_column("task type")
    if before is None or after is None:
        table.add_column(single or ("after" if after is not None else "before"), justify="right")
        for label, key in rows:
            table.add_row(label, _pct((after or before or {}).get(key, math.nan)))
        return table
    table.add_column("before", justify="right")
    table.add_column("after", justify="right")
    table.add_column("change", justify="right")
    for label, key in rows:
        b = before.get(key, math.nan)
        a = after.get(key, math.nan)
        change = a - b if not (math.isnan(a) or math.isnan(b)) else math.nan
        table.add_row(label, _pct(b), _pct(a), _pct(change, signed=True))
    return table


def _pct(value: float, signed: bool = False) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value * 100:+.1f}%" if signed else f"{value * 100:.1f}%"


def read_metrics(path: Path) -> list[dict]:
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def plot_training(metrics_path: Path, out_png: Path, before: dict | None, after: dict | None, title: str,
                  label: Callable[[str], str] = str) -> Path:
    """Reward and success per step (with a moving average) and per-type eval success before/after;
    ``label`` names a task type on the axis (the environment's ``task_type_label``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_metrics(metrics_path)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    ax = axes[0]
    steps = [r["step"] for r in rows]
    for key, color in (("train/success", "tab:green"), ("train/reward", "tab:blue")):
        values = [r.get(key, math.nan) for r in rows]
        if steps:
            ax.plot(steps, values, color=color, alpha=0.3)
            ax.plot(steps, _moving_average(values, 5), color=color, label=key.split("/")[1] + " (avg 5)")
    ax.set_xlabel("optimizer step")
    ax.set_title("training rollouts")
    ax.legend()
    ax.grid(alpha=0.3)
    ax = axes[1]
    keys = [k for k in (after or before or {}) if k.startswith("success/")] + ["success"]
    labels = ["ALL" if k == "success" else label(k.removeprefix("success/")) for k in keys]
    x = range(len(keys))
    width = 0.4
    ax.bar([i - width / 2 for i in x], [(before or {}).get(k, 0) for k in keys], width, label="before")
    ax.bar([i + width / 2 for i in x], [(after or {}).get(k, 0) for k in keys], width, label="after")
    ax.set_xticks(list(x), labels, rotation=30, ha="right")
    ax.set_ylim(0, 1)
    ax.set_title("held-out success per task type")
    ax.legend()
    return save_figure(fig, out_png, title)


def save_figure(fig, out_png: Path, title: str, dpi: int = 110) -> Path:
    """Title ``fig``, lay it out, write it to ``out_png`` (making its folder) and close it; the
    run's report plots (core's, RSIPO's, RAO's, EVOHEIR's) all end here."""
    import matplotlib.pyplot as plt

    fig.suptitle(title)
    fig.tight_layout()
    out_png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out_png, dpi=dpi)
    plt.close(fig)
    return out_png


def _moving_average(values: list[float], window: int) -> list[float]:
    out = []
    for i in range(len(values)):
        chunk = [v for v in values[max(0, i - window + 1) : i + 1] if not math.isnan(v)]
        out.append(sum(chunk) / len(chunk) if chunk else math.nan)
    return out
