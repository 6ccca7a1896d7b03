"""The observable oracle: an expert that acts only on what the agent has observed.

It is fed observation texts (``observe``) and the admissible commands (``act``) and nothing
else, so it provably cannot use the hidden state. It plays like a tidy person:

1. search for the goal object: receptacles where that kind is usually kept first (apples in the
   fridge, mugs in cabinets — ``common_sense``, at the room's scale), then the rest in the order the room
   description lists them; never the target receptacles (the object is not there yet); open what
   is closed; take the object as soon as it has been seen;
2. clean/heat/cool it at the first sinkbasin/microwave/fridge listed; or, for look_at tasks, carry
   it to the desklamp (searching lamp holders first if it has not been seen) and use it;
3. go to the first listed receptacle of the target kind, open it if needed, put the object.

Every choice is a deterministic function of the memory, so the behaviour is imitable.
"""

from __future__ import annotations

from coevo.envs.household.catalog import APPLIANCE_OF_TASK, OPENABLE_KINDS, VERB_OF_APPLIANCE, kind_of
from coevo.envs.household.common_sense import SMALL, CommonSense
from coevo.envs.household.goals import REQUIRED_STATE
from coevo.envs.household.observation_memory import ObservationMemory


class ObservableOracle:
    """Chooses the next command from observations only."""

    def __init__(self, memory: ObservationMemory | None = None, common_sense: CommonSense = SMALL):
        self.memory = memory if memory is not None else ObservationMemory()
        self.common_sense = common_sense  # where kinds are usually kept, at the room's scale

    def observe(self, observation: str) -> None:
        self.memory.observe(observation)

    def act(self, admissible: list[str]) -> str:
        """The next command; always one of ``admissible`` (falls back to "look")."""
        action = self._choose(admissible)
        return action if action in admissible else "look"

    # -- decision -------------------------------------------------------------------------------
    def _choose(self, admissible: list[str]) -> str:
        m = self.memory
        goal = m.goal
        if goal is None:
            return "look"
        holding_goal_object = bool(m.holding) and kind_of(m.holding) == goal.object_kind
        if m.holding and not holding_goal_object:
            return self._put_down(admissible)
        if not holding_goal_object:
            found = self._goal_objects_to_fetch()
            if found:
                obj, receptacle = found[0]
                return self._at(receptacle, f"take {obj} from {receptacle}", admissible)
            return self._search(self._object_search_order())

        if goal.task_type == "look_at_obj_in_light":
            lamp, holder = m.lamp()
            if not lamp:
                return self._search(self._lamp_search_order())
            return self._at(holder, f"use {lamp}", admissible)

        state = REQUIRED_STATE.get(goal.task_type)
        if state and state not in m.states.get(m.holding, ()):
            appliance = self._first_of_kind(APPLIANCE_OF_TASK[goal.task_type])
            verb = VERB_OF_APPLIANCE[kind_of(appliance)]
            return self._at(appliance, f"{verb} {m.holding} with {appliance}", admissible)
        target = self._first_of_kind(goal.target_kind)
        return self._at(target, f"put {m.holding} in/on {target}", admissible)

    def _at(self, receptacle: str, action: str, admissible: list[str]) -> str:
        """``action`` at ``receptacle``: go there first, open it if the action is not possible yet."""
        if self.memory.at != receptacle:
            return f"go to {receptacle}"
        if action not in admissible and f"open {receptacle}" in admissible:
            return f"open {receptacle}"
        return action

    def _search(self, order: list[str]) -> str:
        for receptacle in order:
            if not self.memory.is_explored(receptacle):
                return self._at(receptacle, f"open {receptacle}", [])
        return "look"

    def _put_down(self, admissible: list[str]) -> str:
        """Holding something useless (e.g. handed over mid-episode): put it back somewhere."""
        m = self.memory
        if m.at and f"put {m.holding} in/on {m.at}" in admissible:
            return f"put {m.holding} in/on {m.at}"
        if m.at and f"open {m.at}" in admissible:
            return f"open {m.at}"
        surfaces = [r for r in m.receptacles if kind_of(r) not in OPENABLE_KINDS and r != m.at]
        return f"go to {(surfaces or m.receptacles)[0]}"

    # -- what the memory says -------------------------------------------------------------------
    def _goal_objects_to_fetch(self) -> list[tuple[str, str]]:
        """Seen goal objects that still need moving, as (object, receptacle), in listing order."""
        m = self.memory
        goal = m.goal
        assert goal is not None
        target = self._first_of_kind(goal.target_kind) if goal.target_kind else ""
        state = REQUIRED_STATE.get(goal.task_type)
        found = []
        for receptacle in m.receptacles:
            for obj in m.contents.get(receptacle, ()):
                if kind_of(obj) != goal.object_kind:
                    continue
                done = kind_of(receptacle) == goal.target_kind and (
                    receptacle == target or goal.task_type != "pick_two_obj_and_place"
                )
                if done and (state is None or state in m.states.get(obj, ())):
                    continue
                found.append((obj, receptacle))
        return found

    def _object_search_order(self) -> list[str]:
        m = self.memory
        goal = m.goal
        assert goal is not None
        usual = self.common_sense.usual_places.get(goal.object_kind, ())
        candidates = [r for r in m.receptacles if kind_of(r) != goal.target_kind]
        return sorted(candidates, key=lambda r: _rank(kind_of(r), usual))

    def _lamp_search_order(self) -> list[str]:
        holders = self.common_sense.lamp_holders
        return sorted(self.memory.receptacles, key=lambda r: _rank(kind_of(r), holders))

    def _first_of_kind(self, kind: str) -> str:
        return next((r for r in self.memory.receptacles if kind_of(r) == kind), "")


def _rank(kind: str, preferred: tuple[str, ...]) -> int:
    return preferred.index(kind) if kind in preferred else len(preferred)
