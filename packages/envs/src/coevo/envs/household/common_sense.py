"""What a person knows about rooms of each scale before seeing one: where object kinds are usually
kept (likeliest first) and what a desklamp stands on.

The observable oracle searches in this order; it never sees the room. ``SCALES`` maps each value
of ``env.scale`` to its common sense: the small catalog's, or ALFWorld's counts (``vocabulary``).
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.envs.household import vocabulary
from coevo.envs.household.catalog import OBJECT_KINDS, RECEPTACLE_KINDS


@dataclass(frozen=True)
class CommonSense:
    usual_places: dict[str, tuple[str, ...]]  # object kind → receptacle kinds, likeliest first
    lamp_holders: tuple[str, ...]  # receptacle kinds a desklamp may stand on, likeliest first


SMALL = CommonSense(
    usual_places={k: o.usual_places for k, o in OBJECT_KINDS.items()},
    lamp_holders=tuple(k for k, r in RECEPTACLE_KINDS.items() if r.holds_lamp),
)
ALFWORLD = CommonSense(
    usual_places={k: tuple(places) for k, places in vocabulary.PLACES.items()},  # most often first
    lamp_holders=tuple(vocabulary.LAMP_HOLDERS),
)
SCALES: dict[str, CommonSense] = {"small": SMALL, "alfworld": ALFWORLD}
