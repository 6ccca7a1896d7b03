"""Difficulty bands of TextCraft-Synth: a band is a range of the target's crafting depth.

As in the authors' task generator: ``easy`` 2–3, ``medium`` 4–6 (the paper trains here),
``hard`` 7–9 and ``extreme`` 10–12 (it tests there). A task asks for 1 to ``max_count`` of one
target: 3 up to medium, 2 from hard on (the deep targets' base materials grow fast with the count).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Band:
    name: str
    low: int  # shallowest target depth
    high: int  # deepest target depth
    max_count: int  # a task asks for 1 to max_count of its target


BANDS = {b.name: b for b in (Band("easy", 2, 3, 3), Band("medium", 4, 6, 3), Band("hard", 7, 9, 2),
                              Band("extreme", 10, 12, 2))}
