"""Compute accounting in units relative to a single-stream baseline.

Cost is counted in forward-token passes: a generated or scored token costs 1, a trained token 3
(forward + backward). The single-stream baseline of a round is what the host alone would spend:
one branch's exploration (branch 1). A round's units = 100 × its total cost / that baseline, so
a plain host run is 100 units per round (the paper reports 123.7 for full EVOHEIR vs 100).
"""

from __future__ import annotations

from collections import Counter


class ComputeMeter:
    PHASES = ("explore", "screen", "recover", "confirm", "audit", "heldout")

    def __init__(self):
        self.round: Counter = Counter()
        self.total: Counter = Counter()
        self.baseline_round = 0
        self.baseline_total = 0

    def start_round(self) -> None:
        self.round = Counter()
        self.baseline_round = 0

    def add(self, phase: str, tokens: int, baseline: bool = False) -> None:
        self.round[phase] += tokens
        self.total[phase] += tokens
        if baseline:
            self.baseline_round += tokens
            self.baseline_total += tokens

    @staticmethod
    def _units(cost: int, baseline: int) -> float:
        return 100.0 * cost / baseline if baseline > 0 else float("nan")

    def round_units(self, exclude=("audit", "heldout")) -> float:
        """This round's cost (diagnostics excluded) relative to its single-stream baseline."""
        return self._units(sum(v for k, v in self.round.items() if k not in exclude), self.baseline_round)

    def total_units(self, exclude=("audit", "heldout")) -> float:
        return self._units(sum(v for k, v in self.total.items() if k not in exclude), self.baseline_total)
