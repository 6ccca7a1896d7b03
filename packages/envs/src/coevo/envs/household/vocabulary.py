"""ALFWorld's vocabulary and room statistics, the data behind ``env.scale=alfworld``.

Counted from the 340 shared real games (json_2.1.1: 200 train + 140 valid_seen; each game's
``game.tw-pddl`` problem: ``receptacleType``, ``objectType``, ``inReceptacle``, ``canContain``,
``openable``, ``cleanable``/``heatable``/``coolable``/``sliceable``/``pickupable``; its
``traj_data.json``: task type, ``pddl_params`` and scene number) by
``packages/envs/tests/household/alfworld_counts.py``, which renders this file. Room types follow
ALFRED's floor plans: 1-30 kitchen, 201-230 living room, 301-330 bedroom, 401-430 bathroom. Counts
are over games (a scene played by several games counts once per game), so sampling by them
reproduces the shared games' distribution. Scenery the games never let the agent take
(houseplant, television, window, ...) is left out; the desklamp is the catalog's ``LAMP``.
"""

from __future__ import annotations

from dataclasses import dataclass


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# fmt: off
MAX_STEPS = 50  # ALFWorld's episode limit

RECEPTACLE_KINDS: tuple[str, ...] = _words(
    "armchair bathtubbasin bed cabinet cart coffeemachine coffeetable countertop desk diningtable drawer "
    "dresser fridge garbagecan handtowelholder laundryhamper microwave ottoman safe shelf sidetable "
    "sinkbasin sofa stoveburner toaster toilet toiletpaperhanger towelholder tvstand"
)
OPENABLE_KINDS: frozenset[str] = frozenset(_words("cabinet drawer fridge microwave safe"))
# receptacle kinds that are the destination of some real goal ("put ... in <kind>")
TARGET_KINDS: tuple[str, ...] = _words(
    "armchair bed cabinet cart coffeemachine coffeetable countertop desk diningtable drawer dresser "
    "fridge garbagecan microwave ottoman safe shelf sidetable sofa stoveburner toilet toiletpaperhanger"
)
# receptacle kinds a desklamp stands on → games
LAMP_HOLDERS: dict[str, int] = {"sidetable": 31, "desk": 22, "dresser": 13, "shelf": 3, "coffeetable": 1}

# pickupable object kinds found in/on receptacles, with their affordances (ALFWorld's predicates)
OBJECT_KINDS: tuple[str, ...] = _words(
    "alarmclock apple book bowl box bread butterknife candle cd cellphone cloth creditcard cup dishsponge "
    "egg fork glassbottle handtowel kettle keychain knife ladle laptop lettuce mug newspaper pan "
    "papertowelroll pen pencil peppershaker pillow plate pot potato remotecontrol saltshaker soapbar "
    "soapbottle spatula spoon spraybottle statue teddybear tissuebox toiletpaper tomato towel vase watch "
    "wateringcan winebottle"
)
CLEANABLE: frozenset[str] = frozenset(_words(
    "apple bowl butterknife cloth cup dishsponge egg fork kettle knife ladle lettuce mug pan plate pot "
    "potato soapbar spatula spoon tomato"
))
HEATABLE: frozenset[str] = frozenset(_words("apple bread cup egg mug plate potato tomato"))
COOLABLE: frozenset[str] = frozenset(_words(
    "apple bowl bread cup egg lettuce mug pan plate pot potato tomato winebottle"
))
SLICEABLE: frozenset[str] = frozenset(_words("apple bread egg lettuce potato tomato"))
# the goal objects of the real look_at_obj_in_light games
LOOKABLE: frozenset[str] = frozenset(_words(
    "alarmclock book bowl box cd creditcard keychain laptop mug pen pillow statue tissuebox vase"
))
RECEPTACLE_OBJECTS: frozenset[str] = frozenset(_words("bowl box cup mug pan plate pot"))

# object kind → {receptacle kind: times an object of that kind started there}, most often first
PLACES: dict[str, dict[str, int]] = {
    "alarmclock": {"desk": 38, "sidetable": 31, "dresser": 22, "shelf": 22, "diningtable": 9},
    "apple": {
        "fridge": 71, "countertop": 66, "microwave": 40, "diningtable": 39, "garbagecan": 36,
        "sinkbasin": 35, "sidetable": 4
    },
    "book": {
        "bed": 68, "desk": 24, "drawer": 16, "countertop": 14, "diningtable": 13, "cabinet": 12,
        "dresser": 12, "sidetable": 9, "coffeetable": 4, "sofa": 4, "armchair": 2, "shelf": 1, "tvstand": 1
    },
    "bowl": {
        "cabinet": 107, "fridge": 73, "countertop": 62, "diningtable": 51, "desk": 27, "shelf": 20,
        "microwave": 10, "sinkbasin": 9, "sidetable": 6, "dresser": 3, "tvstand": 2, "coffeetable": 1
    },
    "box": {
        "diningtable": 19, "sofa": 16, "coffeetable": 11, "dresser": 8, "sidetable": 5, "shelf": 3,
        "desk": 2, "armchair": 1, "tvstand": 1
    },
    "bread": {"countertop": 136, "diningtable": 76, "fridge": 35, "sidetable": 2, "microwave": 1},
    "butterknife": {"countertop": 152, "diningtable": 87, "drawer": 25, "sinkbasin": 17, "sidetable": 1},
    "candle": {
        "toilet": 41, "countertop": 36, "cabinet": 20, "shelf": 14, "drawer": 13, "sidetable": 8,
        "diningtable": 5, "coffeetable": 4, "dresser": 4, "cart": 2
    },
    "cd": {
        "drawer": 38, "desk": 23, "dresser": 18, "sidetable": 17, "shelf": 11, "garbagecan": 10,
        "diningtable": 7, "armchair": 3, "cabinet": 2, "safe": 1
    },
    "cellphone": {
        "bed": 44, "drawer": 43, "desk": 24, "dresser": 19, "countertop": 13, "sidetable": 13,
        "armchair": 10, "diningtable": 10, "shelf": 9, "safe": 3, "coffeetable": 2, "sofa": 1, "tvstand": 1
    },
    "cloth": {
        "bathtubbasin": 34, "cabinet": 32, "countertop": 18, "drawer": 16, "sinkbasin": 11, "shelf": 9,
        "toilet": 5, "cart": 3
    },
    "creditcard": {
        "drawer": 72, "sidetable": 37, "shelf": 27, "coffeetable": 21, "dresser": 21, "armchair": 20,
        "desk": 19, "sofa": 15, "countertop": 12, "diningtable": 11, "tvstand": 6, "ottoman": 4
    },
    "cup": {
        "cabinet": 68, "countertop": 62, "fridge": 57, "diningtable": 42, "sinkbasin": 33, "microwave": 22,
        "shelf": 10, "sidetable": 3
    },
    "dishsponge": {
        "countertop": 82, "cabinet": 77, "diningtable": 52, "drawer": 41, "sinkbasin": 23, "garbagecan": 16,
        "bathtubbasin": 7, "shelf": 7, "toilet": 5, "cart": 3, "sidetable": 1
    },
    "egg": {
        "fridge": 72, "countertop": 65, "sinkbasin": 41, "garbagecan": 39, "microwave": 35,
        "diningtable": 34
    },
    "fork": {"countertop": 148, "diningtable": 78, "drawer": 58, "sinkbasin": 25, "sidetable": 5},
    "glassbottle": {
        "countertop": 28, "cabinet": 26, "diningtable": 15, "sinkbasin": 10, "fridge": 6, "garbagecan": 4,
        "shelf": 3
    },
    "handtowel": {"handtowelholder": 83, "countertop": 7},
    "kettle": {"stoveburner": 51, "countertop": 44, "cabinet": 28, "diningtable": 9, "sinkbasin": 2},
    "keychain": {
        "drawer": 44, "desk": 25, "sidetable": 24, "dresser": 23, "diningtable": 20, "shelf": 20,
        "armchair": 17, "sofa": 14, "coffeetable": 10, "safe": 10, "tvstand": 6, "cabinet": 3
    },
    "knife": {"countertop": 159, "diningtable": 68, "drawer": 51, "sinkbasin": 10, "sidetable": 1},
    "ladle": {"countertop": 52, "drawer": 19, "cabinet": 16, "diningtable": 15, "sinkbasin": 1},
    "laptop": {
        "bed": 83, "diningtable": 24, "sofa": 21, "desk": 18, "armchair": 12, "coffeetable": 12,
        "sidetable": 7, "tvstand": 6, "dresser": 4
    },
    "lettuce": {
        "countertop": 108, "diningtable": 87, "fridge": 63, "sinkbasin": 12, "garbagecan": 1,
        "sidetable": 1
    },
    "mug": {
        "countertop": 91, "coffeemachine": 58, "cabinet": 55, "fridge": 50, "diningtable": 47,
        "microwave": 28, "sinkbasin": 28, "desk": 22, "shelf": 17, "sidetable": 15, "dresser": 6
    },
    "newspaper": {
        "sofa": 14, "diningtable": 9, "coffeetable": 7, "shelf": 5, "sidetable": 5, "armchair": 4,
        "drawer": 2, "dresser": 2, "ottoman": 1
    },
    "pan": {"stoveburner": 152, "countertop": 81, "cabinet": 17, "diningtable": 13, "fridge": 8},
    "papertowelroll": {
        "countertop": 32, "diningtable": 12, "garbagecan": 10, "shelf": 6, "sidetable": 2, "toilet": 2
    },
    "pen": {
        "desk": 36, "diningtable": 24, "dresser": 23, "sidetable": 23, "drawer": 19, "shelf": 16,
        "countertop": 14, "garbagecan": 3, "coffeetable": 2, "tvstand": 1
    },
    "pencil": {
        "drawer": 36, "sidetable": 31, "desk": 30, "dresser": 21, "diningtable": 18, "shelf": 17,
        "countertop": 13, "garbagecan": 9, "coffeetable": 7
    },
    "peppershaker": {
        "countertop": 101, "cabinet": 91, "drawer": 55, "diningtable": 43, "shelf": 15, "sidetable": 9
    },
    "pillow": {"bed": 112, "sofa": 47, "armchair": 8, "ottoman": 1},
    "plate": {
        "cabinet": 120, "countertop": 74, "diningtable": 64, "fridge": 26, "shelf": 11, "sinkbasin": 7,
        "microwave": 6, "coffeetable": 2, "sidetable": 2, "tvstand": 1
    },
    "pot": {
        "stoveburner": 210, "countertop": 34, "fridge": 14, "diningtable": 13, "cabinet": 6, "shelf": 2,
        "sinkbasin": 1
    },
    "potato": {
        "countertop": 100, "fridge": 70, "diningtable": 42, "microwave": 35, "sinkbasin": 28,
        "garbagecan": 20, "sidetable": 5
    },
    "remotecontrol": {
        "sofa": 25, "coffeetable": 21, "armchair": 13, "drawer": 12, "dresser": 12, "sidetable": 10,
        "tvstand": 10, "diningtable": 7, "shelf": 5, "desk": 4, "countertop": 1, "ottoman": 1
    },
    "saltshaker": {
        "cabinet": 100, "countertop": 76, "diningtable": 59, "drawer": 56, "shelf": 11, "sidetable": 5
    },
    "soapbar": {
        "countertop": 34, "sinkbasin": 22, "toilet": 19, "cabinet": 12, "shelf": 11, "drawer": 10,
        "bathtubbasin": 9, "garbagecan": 6, "cart": 2, "sidetable": 1
    },
    "soapbottle": {
        "countertop": 131, "cabinet": 116, "diningtable": 64, "garbagecan": 50, "toilet": 33, "shelf": 24,
        "sidetable": 10, "drawer": 5, "cart": 2, "dresser": 2
    },
    "spatula": {
        "countertop": 142, "diningtable": 79, "drawer": 60, "sinkbasin": 20, "stoveburner": 2,
        "sidetable": 1
    },
    "spoon": {"countertop": 107, "drawer": 87, "diningtable": 66, "sinkbasin": 47, "sidetable": 6},
    "spraybottle": {
        "countertop": 50, "cabinet": 34, "toilet": 32, "garbagecan": 16, "shelf": 11, "cart": 8,
        "diningtable": 7, "dresser": 6, "sidetable": 6, "drawer": 1, "toaster": 1
    },
    "statue": {
        "shelf": 46, "diningtable": 29, "countertop": 27, "sidetable": 25, "coffeetable": 22, "dresser": 8,
        "tvstand": 8
    },
    "teddybear": {"bed": 18},
    "tissuebox": {
        "sidetable": 16, "shelf": 15, "diningtable": 14, "coffeetable": 9, "countertop": 9, "desk": 8,
        "drawer": 6, "dresser": 3, "cart": 2, "cabinet": 1, "garbagecan": 1, "toilet": 1, "tvstand": 1
    },
    "toiletpaper": {
        "toilet": 31, "cabinet": 25, "countertop": 19, "toiletpaperhanger": 16, "shelf": 12,
        "garbagecan": 11, "drawer": 9, "cart": 2, "sidetable": 2
    },
    "tomato": {
        "countertop": 104, "fridge": 94, "diningtable": 56, "garbagecan": 27, "sinkbasin": 20,
        "sidetable": 5
    },
    "towel": {"towelholder": 78, "countertop": 1},
    "vase": {
        "shelf": 58, "countertop": 25, "cabinet": 20, "diningtable": 11, "tvstand": 9, "coffeetable": 6,
        "sidetable": 6, "dresser": 5, "desk": 1
    },
    "watch": {
        "coffeetable": 10, "diningtable": 7, "sidetable": 7, "dresser": 5, "tvstand": 5, "drawer": 4,
        "shelf": 4
    },
    "wateringcan": {"coffeetable": 3},
    "winebottle": {
        "countertop": 45, "diningtable": 40, "cabinet": 35, "garbagecan": 18, "shelf": 7, "fridge": 3
    },
}
# object kind → receptacle kinds it can be put in/on (``canContain``, and wherever it started)
CAN_HOLD: dict[str, tuple[str, ...]] = {
    "alarmclock": _words("countertop desk diningtable dresser shelf sidetable"),
    "apple": _words("countertop diningtable fridge garbagecan microwave sidetable sinkbasin"),
    "book": _words(
        "armchair bed cabinet coffeetable countertop desk diningtable drawer dresser ottoman shelf "
        "sidetable sofa tvstand"
    ),
    "bowl": _words(
        "cabinet coffeetable countertop desk diningtable dresser fridge microwave shelf sidetable "
        "sinkbasin tvstand"
    ),
    "box": _words(
        "armchair cabinet coffeetable desk diningtable dresser ottoman shelf sidetable sofa tvstand"
    ),
    "bread": _words("countertop diningtable fridge garbagecan microwave sidetable"),
    "butterknife": _words("countertop diningtable drawer sidetable sinkbasin"),
    "candle": _words(
        "cabinet cart coffeetable countertop diningtable drawer dresser shelf sidetable toilet"
    ),
    "cd": _words(
        "armchair cabinet countertop desk diningtable drawer dresser garbagecan safe shelf sidetable"
    ),
    "cellphone": _words(
        "armchair bed coffeetable countertop desk diningtable drawer dresser ottoman safe shelf sidetable "
        "sofa tvstand"
    ),
    "cloth": _words(
        "armchair bathtubbasin cabinet cart countertop desk drawer dresser garbagecan laundryhamper shelf "
        "sidetable sinkbasin toilet"
    ),
    "creditcard": _words(
        "armchair coffeetable countertop desk diningtable drawer dresser ottoman safe shelf sidetable "
        "sofa tvstand"
    ),
    "cup": _words("cabinet countertop diningtable fridge microwave shelf sidetable sinkbasin"),
    "dishsponge": _words(
        "bathtubbasin cabinet cart countertop diningtable drawer garbagecan shelf sidetable sinkbasin "
        "toilet"
    ),
    "egg": _words("countertop diningtable fridge garbagecan microwave sidetable sinkbasin"),
    "fork": _words("countertop diningtable drawer sidetable sinkbasin"),
    "glassbottle": _words("cabinet countertop diningtable fridge garbagecan microwave shelf sinkbasin"),
    "handtowel": _words(
        "bathtubbasin cabinet cart countertop drawer garbagecan handtowelholder shelf sidetable sinkbasin "
        "toilet"
    ),
    "kettle": _words("cabinet countertop diningtable shelf sidetable sinkbasin stoveburner"),
    "keychain": _words(
        "armchair cabinet coffeetable countertop desk diningtable drawer dresser ottoman safe shelf "
        "sidetable sofa tvstand"
    ),
    "knife": _words("countertop diningtable drawer sidetable sinkbasin"),
    "ladle": _words("cabinet countertop diningtable drawer sinkbasin"),
    "laptop": _words(
        "armchair bed coffeetable countertop desk diningtable dresser ottoman sidetable sofa tvstand"
    ),
    "lettuce": _words("countertop diningtable fridge garbagecan sidetable sinkbasin"),
    "mug": _words(
        "cabinet coffeemachine countertop desk diningtable dresser fridge microwave shelf sidetable "
        "sinkbasin"
    ),
    "newspaper": _words(
        "armchair cabinet coffeetable diningtable drawer dresser garbagecan ottoman shelf sidetable sofa"
    ),
    "pan": _words("cabinet countertop diningtable fridge sidetable sinkbasin stoveburner"),
    "papertowelroll": _words("countertop diningtable garbagecan shelf sidetable toilet"),
    "pen": _words(
        "coffeetable countertop desk diningtable drawer dresser garbagecan shelf sidetable tvstand"
    ),
    "pencil": _words(
        "coffeetable countertop desk diningtable drawer dresser garbagecan shelf sidetable"
    ),
    "peppershaker": _words("cabinet countertop diningtable drawer shelf sidetable"),
    "pillow": _words("armchair bed ottoman sofa"),
    "plate": _words(
        "cabinet coffeetable countertop diningtable fridge microwave shelf sidetable sinkbasin tvstand"
    ),
    "pot": _words("cabinet countertop diningtable fridge shelf sidetable sinkbasin stoveburner"),
    "potato": _words("countertop diningtable fridge garbagecan microwave sidetable sinkbasin"),
    "remotecontrol": _words(
        "armchair coffeetable countertop desk diningtable drawer dresser ottoman shelf sidetable sofa "
        "tvstand"
    ),
    "saltshaker": _words("cabinet countertop diningtable drawer shelf sidetable"),
    "soapbar": _words(
        "bathtubbasin cabinet cart countertop drawer garbagecan shelf sidetable sinkbasin toilet"
    ),
    "soapbottle": _words(
        "cabinet cart countertop diningtable drawer dresser garbagecan shelf sidetable toilet"
    ),
    "spatula": _words("countertop diningtable drawer sidetable sinkbasin stoveburner"),
    "spoon": _words("countertop diningtable drawer sidetable sinkbasin"),
    "spraybottle": _words(
        "cabinet cart countertop diningtable drawer dresser garbagecan shelf sidetable toaster toilet"
    ),
    "statue": _words(
        "coffeetable countertop desk diningtable dresser safe shelf sidetable tvstand"
    ),
    "teddybear": _words("bed"),
    "tissuebox": _words(
        "cabinet cart coffeetable countertop desk diningtable drawer dresser garbagecan shelf sidetable "
        "toilet tvstand"
    ),
    "toiletpaper": _words(
        "cabinet cart countertop drawer dresser garbagecan shelf sidetable toilet toiletpaperhanger"
    ),
    "tomato": _words("countertop diningtable fridge garbagecan microwave sidetable sinkbasin"),
    "towel": _words("countertop towelholder"),
    "vase": _words(
        "cabinet coffeetable countertop desk diningtable dresser safe shelf sidetable tvstand"
    ),
    "watch": _words("coffeetable desk diningtable drawer dresser shelf sidetable tvstand"),
    "wateringcan": _words("cabinet coffeetable desk diningtable drawer dresser shelf sidetable"),
    "winebottle": _words("cabinet countertop diningtable fridge garbagecan shelf sidetable"),
}


@dataclass(frozen=True)
class RoomType:
    """One of ALFRED's four room types, as its real games are distributed."""

    name: str
    tasks: dict[str, int]  # task type → games
    sizes: dict[int, int]  # receptacles in the room → games
    receptacles: dict[str, tuple[int, int, float]]  # kind → (fewest, most, mean) per room
    objects: dict[str, int]  # object kind → objects of that kind over the games
    object_counts: dict[int, int]  # objects in/on receptacles (scenery excluded) → games
    lamp_share: float  # share of the games whose room has a desklamp


ROOM_TYPES: dict[str, RoomType] = {
    "kitchen": RoomType(
        "kitchen",
        tasks={
            "pick_cool_then_place_in_recep": 53, "pick_clean_then_place_in_recep": 46,
            "pick_heat_then_place_in_recep": 41, "pick_and_place_simple": 13, "pick_two_obj_and_place": 5
        },
        sizes={
            20: 15, 22: 4, 24: 12, 27: 12, 28: 6, 29: 11, 30: 6, 33: 11, 34: 10, 35: 5, 36: 14, 39: 16,
            40: 8, 41: 7, 51: 8, 52: 8, 54: 5
        },
        receptacles={
            "cabinet": (2, 27, 14.21),
            "coffeemachine": (1, 1, 1.0),
            "countertop": (1, 4, 2.3),
            "diningtable": (0, 3, 0.78),
            "drawer": (0, 27, 5.9),
            "fridge": (1, 1, 1.0),
            "garbagecan": (1, 1, 1.0),
            "microwave": (1, 1, 1.0),
            "safe": (0, 1, 0.03),
            "shelf": (0, 3, 0.63),
            "sidetable": (0, 1, 0.08),
            "sinkbasin": (1, 1, 1.0),
            "stoveburner": (4, 6, 4.08),
            "toaster": (1, 1, 1.0),
        },
        objects={
            "mug": 349, "fork": 314, "peppershaker": 314, "spoon": 313, "bowl": 310, "saltshaker": 307,
            "tomato": 306, "soapbottle": 305, "spatula": 304, "potato": 300, "cup": 297, "dishsponge": 292,
            "apple": 291, "knife": 289, "plate": 289, "egg": 286, "butterknife": 282, "pot": 280,
            "lettuce": 272, "pan": 271, "bread": 250, "winebottle": 148, "kettle": 134, "ladle": 103,
            "glassbottle": 92, "vase": 68, "papertowelroll": 57, "statue": 50, "pencil": 35,
            "cellphone": 32, "pen": 28, "book": 27, "spraybottle": 26, "creditcard": 24
        },
        object_counts={
            31: 2, 33: 2, 35: 3, 36: 2, 37: 10, 38: 6, 39: 10, 40: 7, 41: 10, 42: 11, 43: 10, 44: 9, 45: 10,
            46: 11, 47: 7, 48: 12, 49: 3, 50: 4, 51: 6, 52: 5, 53: 2, 54: 2, 55: 7, 56: 3, 57: 2, 58: 1,
            61: 1
        },
        lamp_share=0.0,
    ),
    "livingroom": RoomType(
        "livingroom",
        tasks={"pick_and_place_simple": 21, "pick_two_obj_and_place": 21, "look_at_obj_in_light": 3},
        sizes={
            6: 1, 8: 2, 9: 5, 11: 1, 12: 8, 14: 5, 15: 3, 16: 8, 18: 1, 20: 2, 22: 3, 31: 4, 35: 2
        },
        receptacles={
            "armchair": (1, 2, 1.38),
            "cabinet": (0, 8, 0.44),
            "coffeetable": (0, 2, 0.96),
            "desk": (0, 1, 0.02),
            "diningtable": (0, 2, 0.6),
            "drawer": (0, 21, 4.91),
            "dresser": (0, 2, 0.36),
            "garbagecan": (1, 1, 1.0),
            "ottoman": (0, 1, 0.18),
            "safe": (0, 1, 0.02),
            "shelf": (0, 14, 2.93),
            "sidetable": (0, 5, 1.91),
            "sofa": (1, 2, 1.18),
            "tvstand": (0, 2, 0.44),
        },
        objects={
            "remotecontrol": 105, "statue": 105, "creditcard": 95, "keychain": 78, "laptop": 76, "vase": 63,
            "box": 62, "pillow": 55, "newspaper": 49, "watch": 41, "tissuebox": 38, "book": 24, "plate": 24,
            "candle": 18, "cellphone": 18, "pencil": 15, "pen": 11, "bowl": 8, "wateringcan": 3
        },
        object_counts={
            12: 1, 13: 2, 14: 3, 15: 4, 16: 3, 17: 4, 18: 4, 19: 2, 20: 3, 21: 6, 22: 2, 23: 2, 24: 1,
            25: 2, 26: 1, 27: 1, 29: 2, 30: 1, 31: 1
        },
        lamp_share=0.27,
    ),
    "bedroom": RoomType(
        "bedroom",
        tasks={"look_at_obj_in_light": 29, "pick_and_place_simple": 20, "pick_two_obj_and_place": 20},
        sizes={
            7: 5, 8: 2, 9: 11, 10: 2, 11: 7, 12: 3, 14: 6, 15: 5, 16: 1, 17: 5, 19: 7, 20: 2, 22: 10, 25: 2,
            27: 1
        },
        receptacles={
            "armchair": (0, 3, 0.42),
            "bed": (1, 2, 1.2),
            "cabinet": (0, 4, 0.33),
            "countertop": (0, 1, 0.03),
            "desk": (0, 2, 0.81),
            "diningtable": (0, 1, 0.14),
            "drawer": (0, 17, 6.39),
            "dresser": (0, 2, 0.61),
            "garbagecan": (1, 1, 1.0),
            "laundryhamper": (0, 1, 0.23),
            "safe": (0, 1, 0.26),
            "shelf": (0, 12, 2.25),
            "sidetable": (0, 2, 1.0),
        },
        objects={
            "creditcard": 146, "cellphone": 142, "keychain": 138, "pencil": 132, "cd": 130, "book": 129,
            "alarmclock": 122, "pen": 122, "pillow": 113, "laptop": 111, "mug": 68, "bowl": 53,
            "teddybear": 18, "tissuebox": 17, "remotecontrol": 16, "statue": 10, "vase": 10, "box": 4,
            "watch": 1
        },
        object_counts={
            15: 1, 16: 1, 17: 4, 18: 7, 19: 8, 20: 7, 21: 9, 22: 8, 23: 9, 24: 3, 25: 3, 26: 4, 27: 1,
            28: 2, 29: 1, 30: 1
        },
        lamp_share=0.74,
    ),
    "bathroom": RoomType(
        "bathroom",
        tasks={
            "pick_and_place_simple": 27, "pick_two_obj_and_place": 23, "pick_clean_then_place_in_recep": 18
        },
        sizes={10: 10, 11: 5, 12: 12, 13: 6, 14: 11, 15: 6, 16: 5, 17: 6, 18: 2, 19: 1, 21: 4},
        receptacles={
            "bathtubbasin": (0, 1, 0.6),
            "cabinet": (0, 9, 2.04),
            "cart": (0, 1, 0.1),
            "countertop": (0, 2, 0.91),
            "drawer": (0, 8, 2.03),
            "dresser": (0, 1, 0.06),
            "garbagecan": (1, 1, 1.0),
            "handtowelholder": (1, 4, 1.59),
            "shelf": (0, 4, 0.59),
            "sidetable": (0, 1, 0.06),
            "sinkbasin": (1, 2, 1.53),
            "toilet": (1, 1, 1.0),
            "toiletpaperhanger": (1, 1, 1.0),
            "towelholder": (1, 2, 1.34),
        },
        objects={
            "spraybottle": 146, "soapbottle": 132, "candle": 129, "cloth": 128, "toiletpaper": 127,
            "soapbar": 126, "handtowel": 90, "towel": 79, "tissuebox": 31, "dishsponge": 22,
            "papertowelroll": 7
        },
        object_counts={
            8: 1, 10: 3, 11: 4, 12: 6, 13: 4, 14: 8, 15: 17, 16: 5, 17: 9, 18: 3, 19: 4, 20: 3, 21: 1
        },
        lamp_share=0.0,
    ),
}
# fmt: on
