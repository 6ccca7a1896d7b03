"""What the agent knows, read only from the observation texts it received.

``ObservationMemory.observe(text)`` parses ALFWorld's wording (it never sees the world), and
``render()`` gives the compact line an agent prompt can carry instead of a long history::

    seen: cabinet 1 (closed), countertop 1 (nothing), fridge 1 (apple 1); holding: apple 1 (hot)

The observable oracle decides from this memory too, so it cannot know more than the agent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from coevo.envs.household.catalog import LAMP, STATE_CANCELS, STATE_OF_VERB, kind_of
from coevo.envs.household.goals import Goal, parse_goal

_GOAL = re.compile(r"Your task is to: (.+?)\.?$", re.M)
_OVERVIEW = re.compile(r"Looking quickly around you, you see (.+?)\.$", re.M)
_ARRIVE = re.compile(r"^You arrive at (.+?)\. ")
_CLOSED = re.compile(r"The (.+?) is closed\.")
_OPEN = re.compile(r"The (.+?) is open\. In it, you see (.+?)\.$")
_SURFACE = re.compile(r"On the (.+?), you see (.+?)\.$")
_CLOSE = re.compile(r"^You close the (.+?)\.$")
_TAKE = re.compile(r"^You pick up the (.+?) from the (.+?)\.$")
_PUT = re.compile(r"^You put the (.+?) in/on the (.+?)\.$")
_TRANSFORM = re.compile(r"^You (clean|heat|cool) the (.+?) using the (.+?)\.$")
_TOGGLE = re.compile(r"^You turn (on|off) the (.+?)\.$")
_CARRYING = re.compile(r"^You are carrying: a (.+?)\.$")


def parse_list(text: str) -> list[str]:
    """``"a apple 1, and a mug 2"`` → ``["apple 1", "mug 2"]``; ``"nothing"`` → ``[]``."""
    if text == "nothing":
        return []
    return [item.removeprefix("and ").removeprefix("a ") for item in text.split(", ")]


@dataclass
class ObservationMemory:
    goal: Goal | None = None
    receptacles: list[str] = field(default_factory=list)  # as the room overview listed them
    contents: dict[str, list[str]] = field(default_factory=dict)  # receptacle → objects seen in/on it
    seen_closed: set[str] = field(default_factory=set)  # receptacles last seen closed
    states: dict[str, set[str]] = field(default_factory=dict)  # object → {"clean", "hot", "cool"}
    at: str = ""  # receptacle the agent stands at ("" = middle of the room)
    holding: str = ""
    lamp_on: bool = False

    def observe(self, text: str) -> None:
        """Update from one observation (the intro or the answer to a command)."""
        if text.startswith("-= Welcome"):
            self._observe_intro(text)
            return
        if m := _ARRIVE.match(text):
            # "You arrive at loc 14. On the desk 1, …": the receptacle is named by the next sentence
            described = _CLOSED.search(text) or _OPEN.search(text) or _SURFACE.search(text)
            self.at = described.group(1) if described else m.group(1)
        if m := _CLOSED.search(text):
            self.seen_closed.add(m.group(1))
        elif m := _OPEN.search(text) or _SURFACE.search(text):
            self.contents[m.group(1)] = parse_list(m.group(2))
            self.seen_closed.discard(m.group(1))
        elif m := _CLOSE.match(text):
            self.seen_closed.add(m.group(1))
        elif m := _TAKE.match(text):
            obj, receptacle = m.groups()
            if obj in self.contents.get(receptacle, ()):
                self.contents[receptacle].remove(obj)
            self.holding = obj
        elif m := _PUT.match(text):
            obj, receptacle = m.groups()
            self.contents.setdefault(receptacle, []).append(obj)
            self.holding = ""
        elif m := _TRANSFORM.match(text):
            verb, obj, _ = m.groups()
            state = STATE_OF_VERB[verb]
            self.states[obj] = (self.states.get(obj, set()) - {STATE_CANCELS[state]}) | {state}
        elif m := _TOGGLE.match(text):
            self.lamp_on = m.group(1) == "on"
        elif m := _CARRYING.match(text):
            self.holding = m.group(1)
        elif text == "You are not carrying anything.":
            self.holding = ""

    def _observe_intro(self, text: str) -> None:
        self.__init__()  # a new episode
        if m := _GOAL.search(text):
            self.goal = parse_goal(m.group(1))
        if m := _OVERVIEW.search(text):
            self.receptacles = parse_list(m.group(1))

    # -- derived knowledge ----------------------------------------------------------------------
    def is_explored(self, receptacle: str) -> bool:
        return receptacle in self.contents

    def lamp(self) -> tuple[str, str]:
        """(lamp name, receptacle it stands on), or ("", "") if no desklamp was seen yet."""
        for receptacle, objects in self.contents.items():
            for obj in objects:
                if kind_of(obj) == LAMP:
                    return obj, receptacle
        return "", ""

    def copy(self) -> ObservationMemory:
        return ObservationMemory(
            goal=self.goal,
            receptacles=list(self.receptacles),
            contents={r: list(objs) for r, objs in self.contents.items()},
            seen_closed=set(self.seen_closed),
            states={o: set(s) for o, s in self.states.items()},
            at=self.at,
            holding=self.holding,
            lamp_on=self.lamp_on,
        )

    def render(self) -> str:
        """``seen: <receptacle> (<contents>|closed), ...; unexplored: ...; holding: <object> (<states>)``.

        ``unexplored`` lists the receptacles of the room overview whose contents were not seen
        yet, so that "where to look next" is a choice from a short list rather than a set
        difference the agent must compute over its history.
        """
        seen, unexplored = [], []
        for receptacle in self.receptacles:
            if receptacle in self.contents:
                objects = ", ".join(self.contents[receptacle]) or "nothing"
                seen.append(f"{receptacle} ({objects})")
            elif receptacle in self.seen_closed:
                seen.append(f"{receptacle} (closed)")
            if receptacle not in self.contents:
                unexplored.append(receptacle)
        holding = self.holding or "nothing"
        if self.holding and self.states.get(self.holding):
            holding += f" ({', '.join(sorted(self.states[self.holding]))})"
        return f"seen: {', '.join(seen) or 'nothing'}; unexplored: {', '.join(unexplored) or 'nothing'}; holding: {holding}"
