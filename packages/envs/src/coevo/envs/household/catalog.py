"""What a household room can contain: receptacle kinds, object kinds, their affordances and habits.

Names follow ALFWorld (lower-case, one word, numbered per room: ``cabinet 1``, ``apple 2``).
This is static common-sense knowledge, shared by the world generator and by the observable
oracle (a person knows that apples are kept in fridges without having seen this room).

Out-of-distribution reservations: the object kinds in ``OOD_OBJECT_KINDS`` and the receptacle
kinds in ``OOD_RECEPTACLE_KINDS`` never appear in a train or eval_in_distribution task.
"""

from __future__ import annotations

from dataclasses import dataclass

TASK_TYPES: tuple[str, ...] = (
    "pick_and_place_simple",
    "pick_two_obj_and_place",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
)


def task_type_label(task_type: str) -> str:
    """A task type as a plot's tick label: ``pick_heat_then_place_in_recep`` → ``pick_heat``."""
    return task_type.replace("_then_place_in_recep", "")

# The appliance each transforming task type needs, and the verb of its command.
APPLIANCE_OF_TASK: dict[str, str] = {
    "pick_clean_then_place_in_recep": "sinkbasin",
    "pick_heat_then_place_in_recep": "microwave",
    "pick_cool_then_place_in_recep": "fridge",
}
VERB_OF_APPLIANCE: dict[str, str] = {"sinkbasin": "clean", "microwave": "heat", "fridge": "cool"}
# The object state each verb produces, as ALFWorld's goal and examine texts name it.
STATE_OF_VERB: dict[str, str] = {"clean": "clean", "heat": "hot", "cool": "cool"}
# the state each new state removes (heating a cold apple makes it hot, not hot and cold)
STATE_CANCELS: dict[str, str] = {"hot": "cool", "cool": "hot", "clean": ""}

LAMP = "desklamp"  # a toggleable object standing on a lamp holder; "use desklamp 1"

OPENABLE_KINDS: frozenset[str] = frozenset({"cabinet", "drawer", "fridge", "microwave", "safe"})


@dataclass(frozen=True)
class ReceptacleKind:
    name: str
    can_be_target: bool  # may be the "put ... in <kind>" destination of a task
    holds_lamp: bool = False  # a desklamp may stand on it


RECEPTACLE_KINDS: dict[str, ReceptacleKind] = {
    r.name: r
    for r in (
        # seen in train and eval_in_distribution
        ReceptacleKind("cabinet", True),
        ReceptacleKind("drawer", True),
        ReceptacleKind("countertop", True),
        ReceptacleKind("shelf", True),
        ReceptacleKind("diningtable", True),
        ReceptacleKind("desk", True, holds_lamp=True),
        ReceptacleKind("garbagecan", True),
        ReceptacleKind("stoveburner", False),
        ReceptacleKind("fridge", False),
        ReceptacleKind("microwave", False),
        ReceptacleKind("sinkbasin", False),
        # reserved for eval_out_of_distribution
        ReceptacleKind("sidetable", True, holds_lamp=True),
        ReceptacleKind("dresser", True, holds_lamp=True),
        ReceptacleKind("coffeetable", True),
        ReceptacleKind("safe", True),
    )
}
OOD_RECEPTACLE_KINDS: frozenset[str] = frozenset({"sidetable", "dresser", "coffeetable", "safe"})


@dataclass(frozen=True)
class ObjectKind:
    name: str
    affordances: frozenset[str]  # subset of {"clean", "heat", "cool", "light"}
    usual_places: tuple[str, ...]  # receptacle kinds where it is usually kept, likeliest first


def _obj(name: str, affordances: str, places: str) -> ObjectKind:
    return ObjectKind(name, frozenset(affordances.split()), tuple(places.split()))


OBJECT_KINDS: dict[str, ObjectKind] = {
    o.name: o
    for o in (
        # seen in train and eval_in_distribution
        _obj("apple", "clean heat cool", "fridge countertop diningtable"),
        _obj("potato", "clean heat cool", "fridge countertop diningtable"),
        _obj("mug", "clean heat cool light", "cabinet countertop shelf"),
        _obj("bowl", "clean heat cool light", "cabinet shelf countertop"),
        _obj("plate", "clean heat cool", "cabinet countertop diningtable"),
        _obj("bread", "heat cool", "countertop diningtable"),
        _obj("lettuce", "clean cool", "fridge countertop"),
        _obj("spatula", "clean", "drawer countertop"),
        _obj("book", "light", "desk shelf"),
        _obj("cellphone", "light", "desk drawer"),
        _obj("cd", "light", "shelf drawer desk"),
        _obj("pen", "light", "desk drawer"),
        _obj("soapbottle", "", "cabinet garbagecan countertop"),
        # reserved for eval_out_of_distribution
        _obj("tomato", "clean heat cool", "fridge countertop coffeetable"),
        _obj("cup", "clean heat cool light", "cabinet shelf sidetable"),
        _obj("egg", "clean heat cool", "fridge countertop"),
        _obj("keychain", "light", "sidetable dresser drawer"),
        _obj("creditcard", "light", "dresser desk drawer"),
    )
}
OOD_OBJECT_KINDS: frozenset[str] = frozenset({"tomato", "cup", "egg", "keychain", "creditcard"})

# The affordance a goal object needs for each task type ("" = any pickable object).
AFFORDANCE_OF_TASK: dict[str, str] = {
    "pick_and_place_simple": "",
    "pick_two_obj_and_place": "",
    "look_at_obj_in_light": "light",
    "pick_clean_then_place_in_recep": "clean",
    "pick_heat_then_place_in_recep": "heat",
    "pick_cool_then_place_in_recep": "cool",
}


def is_out_of_distribution(split: str) -> bool:
    return split == "eval_out_of_distribution"


def receptacle_kinds_for(split: str) -> list[str]:
    """Receptacle kinds a room of ``split`` may contain (stable order)."""
    ood = is_out_of_distribution(split)
    return [k for k in RECEPTACLE_KINDS if ood or k not in OOD_RECEPTACLE_KINDS]


def goal_object_kinds_for(split: str, task_type: str) -> list[str]:
    """Object kinds that can be the goal object of ``task_type`` in ``split`` (stable order).

    Out of distribution, goal objects are always reserved (never-seen) kinds.
    """
    need = AFFORDANCE_OF_TASK[task_type]
    ood = is_out_of_distribution(split)
    return [
        k
        for k, o in OBJECT_KINDS.items()
        if (k in OOD_OBJECT_KINDS) == ood and (not need or need in o.affordances)
    ]


def distractor_kinds_for(split: str) -> list[str]:
    """Object kinds that may stand around as distractors in ``split`` (stable order)."""
    ood = is_out_of_distribution(split)
    return [k for k in OBJECT_KINDS if ood or k not in OOD_OBJECT_KINDS]


def kind_of(name: str) -> str:
    """``"cabinet 2"`` → ``"cabinet"``."""
    return name.rsplit(" ", 1)[0]
