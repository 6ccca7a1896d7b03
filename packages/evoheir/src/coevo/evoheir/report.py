"""What EVOHEIR prints per round, and the PNG of the rounds."""

from __future__ import annotations

import math
from pathlib import Path

from coevo.core.reporting import save_figure


def _known(value) -> bool:
    return value is not None and not math.isnan(value)


def _f(x: float, signed: bool = True) -> str:
    if not _known(x):
        return "-"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def round_line(row: dict) -> str:
    """One round as text: candidates and screening scores, recipient, |D_repair|/|D_keep|, Recovery
    gain, v vs τ_t, COMMIT/ROLLBACK, archive size, compute units."""
    scores = ", ".join(f"{name} {_f(score)}" for name, score in row["screen"].items())
    host = row.get("host_stats", {})
    scout = ""
    if "attempts" in host:
        scout = (f" | scout {host['valid']}/{host['attempts']} valid, {host['admitted']} admitted"
                 f" (rejected {host['rejected'] or 'none'})")
    decision = "COMMIT" if row["commit"] else "ROLLBACK"
    if row.get("unchanged"):
        decision += " (proposal = root: no update to judge)"
    line = (
        f"round {row['round']}{scout} | screen: {scores} → recipient {row['recipient']} | "
        f"D_repair {row['n_repair']} / D_keep {row['n_keep']}"
        + (" (nothing qualified)" if row["qualified"] == 0 else "")
        + (f" (teacher reads {row['teacher_success'] * 100:.0f}%)" if _known(row.get("teacher_success")) else "")
        + f" | recovery gain {_f(row['recovery_gain'])} | v {_f(row['v'])} vs τ {_f(row['tau'], False)} → {decision}"
        f" | archive {row['archive_size']} | compute {row['units']:.1f} units (single stream 100)"
    )
    if row.get("true_gain") is not None:
        line += f" | audit true gain {_f(row['true_gain'])}"
    if row.get("heldout") is not None:
        line += f" | held-out {row['heldout'] * 100:.1f}%"
    return line


def plot_rounds(rows: list[dict], heldout0: float | None, out_png: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rounds = [r["round"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    ax = axes[0]
    ax.plot(rounds, [r["v"] for r in rows], "o-", label="confirmation gain v")
    ax.plot(rounds, [r["tau"] for r in rows], "k--", label="τ_t")
    for r in rows:
        ax.annotate("C" if r["commit"] else "R", (r["round"], r["v"] if not math.isnan(r["v"]) else 0),
                    color="tab:green" if r["commit"] else "tab:red", textcoords="offset points", xytext=(0, 6))
    ax.set_title("Confirm: v vs τ (C commit, R rollback)")
    ax.set_xlabel("round")
    ax.legend()
    ax.grid(alpha=0.3)
    ax = axes[1]
    names = sorted({n for r in rows for n in r["screen"]})
    for name in names:
        ax.plot(rounds, [r["screen"].get(name, math.nan) for r in rows], "o-", label=f"screen {name}")
    ax.plot(rounds, [r["recovery_gain"] for r in rows], "s:", label="recovery gain")
    ax.set_title("root-relative screening scores")
    ax.set_xlabel("round")
    ax.legend()
    ax.grid(alpha=0.3)
    ax = axes[2]
    held = [r.get("heldout") for r in rows]
    if any(h is not None for h in held):
        xs = ([0] if heldout0 is not None else []) + rounds
        ys = ([heldout0] if heldout0 is not None else []) + [h if h is not None else math.nan for h in held]
        ax.plot(xs, ys, "o-", color="tab:purple", label="held-out accuracy")
    ax2 = ax.twinx()
    ax2.bar(rounds, [r["archive_size"] for r in rows], alpha=0.25, color="tab:gray", label="archive size")
    ax.set_title("held-out accuracy (line) and archive size (bars)")
    ax.set_xlabel("round")
    ax.grid(alpha=0.3)
    return save_figure(fig, out_png, title)
