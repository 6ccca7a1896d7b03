"""RSIPO's training-dynamics report: a PNG (success, ω per type, Δ per type, teacher better/worse
shares, skill categories) and a console table of Δ and ω per type over the run (by thirds).

Both read ``metrics.jsonl`` (written by core's MetricsHistory), so they also work after a resume.
"""

from __future__ import annotations

import math
from pathlib import Path

from rich.table import Table

from coevo.core.reporting import _moving_average, read_metrics, save_figure


def _series(rows: list[dict], key: str) -> tuple[list[int], list[float]]:
    pairs = [(r["step"], r[key]) for r in rows if key in r]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _types(rows: list[dict], prefix: str) -> list[str]:
    found: dict[str, None] = {}
    for row in rows:
        for key in row:
            if key.startswith(prefix):
                found[key.removeprefix(prefix)] = None
    return list(found)


def plot_dynamics(metrics_path: Path, out_png: Path, title: str) -> Path | None:
    rows = read_metrics(metrics_path)
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    panels = [
        (axes[0, 0], "success", [("train/success", "student"), ("train/replay/success", "replay with skill")]),
        (axes[0, 1], "trust ω per type", [(f"train/omega/{t}", t) for t in _types(rows, "train/omega/")]
         + [("train/omega_mean", "mean")]),
        (axes[0, 2], "replay gain Δ per type", [(f"train/gain/{t}", t) for t in _types(rows, "train/gain/")]),
        (axes[1, 0], "teacher vs student (tasks)", [("train/teacher_better_share", "teacher better"),
                                                   ("train/teacher_worse_share", "teacher worse"),
                                                   ("train/omega_zero_share", "ω = 0")]),
        (axes[1, 1], "skills", [("train/skill/procedural_share", "procedural"), ("train/skill/format_share", "format"),
                                ("train/skill/valid_share", "well-formed")]),
        (axes[1, 2], "loss terms", [("train/pg_loss", "L_RLVR"), ("train/opsd_loss", "L_OPSD"),
                                    ("train/skill_loss", "L_skill")]),
    ]
    for ax, name, series in panels:
        for key, label in series:
            steps, values = _series(rows, key)
            if steps:
                ax.plot(steps, _moving_average(values, 3), label=label)
        ax.set_title(name)
        ax.set_xlabel("optimizer step")
        ax.grid(alpha=0.3)
        if ax.lines:
            ax.legend(fontsize=8)
    return save_figure(fig, out_png, title, dpi=100)


def _mean(values: list[float]) -> float:
    clean = [v for v in values if not math.isnan(v)]
    return sum(clean) / len(clean) if clean else math.nan


def dynamics_table(metrics_path: Path, title: str) -> Table | None:
    """Mean Δ and ω per type in the first, middle and last third of the run."""
    rows = read_metrics(metrics_path)
    types = _types(rows, "train/gain/")
    if not rows or not types:
        return None
    thirds = [rows[: max(1, len(rows) // 3)], rows[len(rows) // 3 : 2 * len(rows) // 3], rows[2 * len(rows) // 3 :]]
    table = Table(title=title)
    table.add_column("task type")
    for part in ("first", "middle", "last"):
        table.add_column(f"Δ {part} third", justify="right")
    for part in ("first", "middle", "last"):
        table.add_column(f"ω {part} third", justify="right")
    for task_type in types + ["ALL"]:
        gain_key = "train/gain_mean" if task_type == "ALL" else f"train/gain/{task_type}"
        omega_key = "train/omega_mean" if task_type == "ALL" else f"train/omega/{task_type}"
        cells = [f"{_mean([r[gain_key] for r in part if gain_key in r]):+.3f}" for part in thirds]
        cells += [f"{_mean([r[omega_key] for r in part if omega_key in r]):.3f}" for part in thirds]
        table.add_row(task_type, *cells)
    return table
