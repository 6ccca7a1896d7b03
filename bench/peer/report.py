"""Summaries of the runs of both sides: medians per step, token rates, MFU, the training check."""

from __future__ import annotations

import statistics


def summarize(runs: list[dict], config, peak: float) -> dict:
    """Medians over every step except each run's first (warm-up), and whether the runs trained."""
    from .flops import training_flops

    steady = [row for run in runs for row in run["rows"][1:]]
    med = lambda key: statistics.median(row[key] for row in steady)  # noqa: E731
    flops = [training_flops(config, r["trained_tokens"], r["trained_tokens_sq"]) for r in steady]
    halves = [_halves(run["rows"]) for run in runs]
    return {
        "steps_timed": len(steady),
        "step_seconds": med("step_seconds"),
        "rollout_seconds": med("generate_seconds"),
        "update_seconds": med("update_seconds"),
        "generated_tokens_per_step": med("generated_tokens"),
        "trained_tokens_per_step": med("trained_tokens"),
        "rollout_s_per_1k_generated": statistics.median(1e3 * r["generate_seconds"] / r["generated_tokens"]
                                                        for r in steady),
        "update_s_per_1k_trained": statistics.median(1e3 * r["update_seconds"] / r["trained_tokens"] for r in steady),
        "generated_tok_s": statistics.median(r["generated_tokens"] / r["step_seconds"] for r in steady),
        "trained_tok_s": statistics.median(r["trained_tokens"] / r["step_seconds"] for r in steady),
        "train_flops_per_step": statistics.median(flops),
        "mfu_step": statistics.median(f / r["step_seconds"] / peak for f, r in zip(flops, steady)),
        "mfu_update": statistics.median(f / r["update_seconds"] / peak for f, r in zip(flops, steady)),
        "reward_first_half": statistics.mean(h[0] for h in halves),
        "reward_second_half": statistics.mean(h[1] for h in halves),
        "params_changed": min(run["params_changed"] for run in runs),
        "params_total": runs[0]["params_total"],
        "threads": sorted({row["threads"] for run in runs for row in run["rows"]}),
    }


def _halves(rows: list[dict]) -> tuple[float, float]:
    half = len(rows) // 2
    first, second = rows[:half] or rows, rows[half:]
    return (statistics.mean(r["reward"] for r in first), statistics.mean(r["reward"] for r in second))


def table(coevo: dict, trl: dict) -> str:
    """The side-by-side table with coevo / TRL ratios."""
    lines = [f"{'':30} {'coevo':>10} {'TRL':>10} {'coevo/TRL':>10}"]
    rows = [
        ("step time (s, median)", "step_seconds", "{:.3f}"),
        ("  rollout (s)", "rollout_seconds", "{:.3f}"),
        ("  update (s)", "update_seconds", "{:.3f}"),
        ("generated tokens / step", "generated_tokens_per_step", "{:.0f}"),
        ("rollout s / 1k generated tok", "rollout_s_per_1k_generated", "{:.3f}"),
        ("update s / 1k trained tok", "update_s_per_1k_trained", "{:.3f}"),
        ("generated tokens / s", "generated_tok_s", "{:.0f}"),
        ("trained tokens / s", "trained_tok_s", "{:.0f}"),
        ("MFU, whole step", "mfu_step", "{:.2%}"),
        ("MFU, update phase", "mfu_update", "{:.2%}"),
        ("reward, 1st half of run", "reward_first_half", "{:.3f}"),
        ("reward, 2nd half of run", "reward_second_half", "{:.3f}"),
    ]
    for label, key, fmt in rows:
        a, b = coevo[key], trl[key]
        ratio = f"{a / b:.3f}" if b and "reward" not in key else ""
        lines.append(f"{label:30} {fmt.format(a):>10} {fmt.format(b):>10} {ratio:>10}")
    lines.append(f"{'parameters changed':30} {coevo['params_changed']:>6}/{coevo['params_total']:<3} "
                 f"{trl['params_changed']:>6}/{trl['params_total']:<3}")
    return "\n".join(lines)
