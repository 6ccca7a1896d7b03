"""The hidden state of one household episode: what is where, what is open, what the agent holds.

``Layout`` is fixed for the episode (the room and the goal); ``World`` adds the mutable part.
Mutation happens only in ``commands.apply_command``; ``snapshot``/``restore`` copy the mutable
part only, so steps never copy anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.envs.household.goals import Goal


@dataclass(frozen=True)
class Layout:
    """The immutable part of an episode."""

    receptacles: tuple[str, ...]  # in the order the room description lists them
    openable: frozenset[str]  # receptacles that can be opened and closed
    lamp: str  # "desklamp 1", or "" when the room has no lamp
    goal: Goal
    locations: tuple[int, ...] = ()  # ALFWorld's "loc N" of each receptacle (same order); () = use names

    def location_of(self, receptacle: str) -> str:
        """What "You arrive at …" names: "loc 14" as in ALFWorld, or the receptacle itself."""
        if not self.locations:
            return receptacle
        return f"loc {self.locations[self.receptacles.index(receptacle)]}"


@dataclass
class World:
    """The mutable part of an episode; ``contents`` keeps every receptacle's objects in order."""

    layout: Layout
    contents: dict[str, list[str]]  # receptacle → objects in/on it (the lamp included)
    opened: set[str]  # openable receptacles that are open now
    states: dict[str, frozenset[str]] = field(default_factory=dict)  # object → {"clean","hot","cool"}
    agent_at: str = ""  # receptacle the agent stands at; "" = the middle of the room
    holding: str = ""  # the object in the agent's hand; "" = nothing
    lamp_on: bool = False

    def is_accessible(self, receptacle: str) -> bool:
        """Whether objects in/on ``receptacle`` can be seen, taken and put (open, or not openable)."""
        return receptacle not in self.layout.openable or receptacle in self.opened

    def receptacle_of_lamp(self) -> str:
        lamp = self.layout.lamp
        if not lamp:
            return ""
        return next((r for r, objs in self.contents.items() if lamp in objs), "")

    def key(self) -> tuple:
        """The mutable state as a hashable value, equal for the same world however it was reached:
        each receptacle's objects as a set (the order taking and putting leave them in is not state),
        what is open, the objects' clean/hot/cool states, where the agent is, what it holds, the lamp."""
        return (
            tuple(sorted((r, tuple(sorted(objs))) for r, objs in self.contents.items())),
            tuple(sorted(self.opened)),
            tuple(sorted((o, tuple(sorted(s))) for o, s in self.states.items() if s)),
            self.agent_at,
            self.holding,
            self.lamp_on,
        )

    def snapshot(self) -> tuple:
        return (
            {r: list(objs) for r, objs in self.contents.items()},
            set(self.opened),
            dict(self.states),
            self.agent_at,
            self.holding,
            self.lamp_on,
        )

    def restore(self, snapshot: tuple) -> None:
        contents, opened, states, self.agent_at, self.holding, self.lamp_on = snapshot
        self.contents = {r: list(objs) for r, objs in contents.items()}
        self.opened = set(opened)
        self.states = dict(states)
