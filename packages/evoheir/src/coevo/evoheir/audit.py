"""Update audit: how good is an acceptance rule at keeping useful and refusing harmful updates?

Each proposed update has a true gain g (paired success gain on a large held-out pool) and a
decision. Harmful: g < 0; useful: g > 0. For a rule accepting the set A of N proposals:

- harmful-commit share = |A ∩ harmful| / |A| (nan if nothing was accepted),
- commit coverage = |A| / N,
- useful-update retention = |A ∩ useful| / |useful|.

Commit-all accepts everything. Random-at-the-same-rate accepts each proposal with probability
|A_heircommit| / N; its expected harmful commits are rate·|harmful| and its expected harmful share
the overall harmful fraction.
"""

from __future__ import annotations

import math


def summarize_audit(rows: list[dict]) -> dict[str, dict[str, float]]:
    """``rows``: {"commit": bool, "true_gain": float}; returns per-rule metrics."""
    n = len(rows)
    if n == 0:
        return {}
    harmful = [r["true_gain"] < 0 for r in rows]
    useful = [r["true_gain"] > 0 for r in rows]
    n_harm, n_useful = sum(harmful), sum(useful)

    def rule(accepted: list[bool]) -> dict[str, float]:
        k = sum(accepted)
        bad = sum(a and h for a, h in zip(accepted, harmful))
        good = sum(a and u for a, u in zip(accepted, useful))
        return {"accepted": float(k), "harmful_commits": float(bad),
                "harmful_share": bad / k if k else math.nan, "coverage": k / n,
                "useful_retention": good / n_useful if n_useful else math.nan}

    heir = rule([r["commit"] for r in rows])
    rate = heir["coverage"]
    random = {"accepted": rate * n, "harmful_commits": rate * n_harm,
              "harmful_share": n_harm / n if rate > 0 else math.nan, "coverage": rate,
              "useful_retention": rate if n_useful else math.nan}
    return {"commit_all": rule([True] * n), "random_at_rate": random, "heircommit": heir,
            "proposals": {"n": float(n), "harmful": float(n_harm), "useful": float(n_useful)}}
