"""Counts ALFWorld's vocabulary and room statistics from the shared real games and renders
``coevo/envs/household/vocabulary.py`` from them (the games are read in place, never copied).

``python packages/envs/tests/household/alfworld_counts.py [games folder]`` rewrites the module;
``test_alfworld_vocabulary`` checks that the committed module is exactly this rendering.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve()
GAMES = (HERE.parents[4] / "../shared/alfworld/json_2.1.1").resolve()  # the repository's sibling
MODULE = HERE.parents[2] / "src/coevo/envs/household/vocabulary.py"
SPLITS = ("train", "valid_seen")
ROOMS = ("kitchen", "livingroom", "bedroom", "bathroom")
PROPERTIES = ("cleanable", "heatable", "coolable", "sliceable", "pickupable", "isReceptacleObject")


def _kind(pddl_type: str) -> str:
    return pddl_type.removesuffix("Type").lower()


def room_of(scene: int) -> str:
    """ALFRED's floor plans: 1-30 kitchen, 201-230 living room, 301-330 bedroom, 401-430 bathroom."""
    return ("kitchen", "kitchen", "livingroom", "bedroom", "bathroom")[scene // 100]


def read_games(root: Path = GAMES) -> list[dict]:
    """One dict per game: task type, goal params, scene, receptacle kinds, (object, receptacle) kinds,
    the object kinds of each property, openable and canContain kinds."""
    games = []
    for split in SPLITS:
        for traj_file in sorted((root / split).glob("*/*/traj_data.json")):
            traj = json.loads(traj_file.read_text())
            problem = json.loads((traj_file.parent / "game.tw-pddl").read_text())["pddl_problem"]
            init = problem[problem.find("(:init") : problem.find("(:goal")]
            rtype = dict(re.findall(r"\(receptacleType (\S+) (\S+)\)", init))
            otype = dict(re.findall(r"\(objectType (\S+) (\S+)\)", init))
            games.append({
                "task_type": traj["task_type"],
                "params": {k: str(v).lower() for k, v in traj["pddl_params"].items()},
                "room": room_of(traj["scene"]["scene_num"]),
                "receptacles": [_kind(t) for t in rtype.values()],
                "objects": [
                    (_kind(otype[o]), _kind(rtype.get(r, r)))
                    for o, r in re.findall(r"\(inReceptacle (\S+) (\S+)\)", init) if o in otype
                ],
                "props": {p: {_kind(otype.get(o, o)) for o in re.findall(rf"\({p} (\S+)\)", init)} for p in PROPERTIES},
                "openable": {_kind(rtype[r]) for r in re.findall(r"\(openable (\S+)\)", init) if r in rtype},
                "can_contain": {(_kind(r), _kind(o)) for r, o in re.findall(r"\(canContain (\S+) (\S+)\)", init)},
            })
    return games


# -- rendering ---------------------------------------------------------------------------------
def _wrap_items(items: list[str], width: int) -> list[str]:
    lines, line = [], ""
    for item in items:
        longer = f"{line}, {item}" if line else item
        if len(longer) + 1 > width and line:
            lines.append(line + ",")
            line = item
        else:
            line = longer
    return [*lines, line]


def _mapping(items: list[str], indent: int, one_line: int) -> str:
    lines = _wrap_items(items, 104 - indent)
    if len(lines) == 1 and len(lines[0]) + indent < one_line:
        return "{" + lines[0] + "}"
    pad = " " * (indent + 4)
    return "{\n" + "\n".join(pad + line for line in lines) + "\n" + " " * indent + "}"


def _counts(counter: Counter, indent: int) -> str:  # most often first
    items = sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))
    return _mapping([f'"{k}": {v}' for k, v in items], indent, 96)


def _ints(counter: Counter, indent: int) -> str:  # by key
    return _mapping([f"{k}: {v}" for k, v in sorted(counter.items())], indent, 90)


def _words(names, indent: int = 0, room: int = 80) -> str:
    lines = textwrap.wrap(" ".join(sorted(names)), 100 - indent)
    if len(lines) == 1 and len(lines[0]) + indent < room:
        return f'_words("{lines[0]}")'
    pad = " " * (indent + 4)
    quoted = [f'{pad}"{line} "' for line in lines[:-1]] + [f'{pad}"{lines[-1]}"']
    return "_words(\n" + "\n".join(quoted) + "\n" + " " * indent + ")"


HEADER = '''"""ALFWorld's vocabulary and room statistics, the data behind ``env.scale=alfworld``.

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
'''

ROOM_TYPE = '''

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


ROOM_TYPES: dict[str, RoomType] = {'''


def render(games: list[dict]) -> str:
    """The text of ``vocabulary.py`` for these games."""
    prop = lambda p: set().union(*(g["props"][p] for g in games))  # noqa: E731
    pickupable = prop("pickupable")
    objects = sorted({o for g in games for o, _ in g["objects"] if o in pickupable})
    places: dict[str, Counter] = defaultdict(Counter)
    for g in games:
        for o, r in g["objects"]:
            if o in pickupable:
                places[o][r] += 1
    can_hold = {o: set(places[o]) for o in objects}
    for g in games:
        for r, o in g["can_contain"]:
            can_hold.setdefault(o, set()).add(r)
    out = [HEADER]
    w = out.append
    w(f"RECEPTACLE_KINDS: tuple[str, ...] = {_words({r for g in games for r in g['receptacles']})}")
    w(f"OPENABLE_KINDS: frozenset[str] = frozenset({_words(set().union(*(g['openable'] for g in games)))})")
    w('# receptacle kinds that are the destination of some real goal ("put ... in <kind>")')
    w(f"TARGET_KINDS: tuple[str, ...] = {_words({g['params']['parent_target'] for g in games} - {''})}")
    w("# receptacle kinds a desklamp stands on → games")
    w(f"LAMP_HOLDERS: dict[str, int] = {_counts(Counter(r for g in games for o, r in g['objects'] if o == 'desklamp'), 0)}")
    w("")
    w("# pickupable object kinds found in/on receptacles, with their affordances (ALFWorld's predicates)")
    w(f"OBJECT_KINDS: tuple[str, ...] = {_words(objects)}")
    for name in ("cleanable", "heatable", "coolable", "sliceable"):
        w(f"{name.upper()}: frozenset[str] = frozenset({_words(prop(name), room=60)})")
    w("# the goal objects of the real look_at_obj_in_light games")
    lookable = {g["params"]["object_target"] for g in games if g["task_type"] == "look_at_obj_in_light"}
    w(f"LOOKABLE: frozenset[str] = frozenset({_words(lookable)})")
    w(f"RECEPTACLE_OBJECTS: frozenset[str] = frozenset({_words(prop('isReceptacleObject'))})")
    w("")
    w("# object kind → {receptacle kind: times an object of that kind started there}, most often first")
    w("PLACES: dict[str, dict[str, int]] = {")
    out += [f'    "{o}": {_counts(places[o], 4)},' for o in objects]
    w("}")
    w("# object kind → receptacle kinds it can be put in/on (``canContain``, and wherever it started)")
    w("CAN_HOLD: dict[str, tuple[str, ...]] = {")
    out += [f'    "{o}": {_words(can_hold[o], 4)},' for o in objects]
    w("}")
    w(ROOM_TYPE)
    for room in ROOMS:
        here = [g for g in games if g["room"] == room]
        kinds = sorted({r for g in here for r in g["receptacles"]})
        w(f'    "{room}": RoomType(')
        w(f'        "{room}",')
        w(f"        tasks={_counts(Counter(g['task_type'] for g in here), 8)},")
        w(f"        sizes={_ints(Counter(len(g['receptacles']) for g in here), 8)},")
        w("        receptacles={")
        for k in kinds:
            n = [g["receptacles"].count(k) for g in here]
            w(f'            "{k}": {(min(n), max(n), round(sum(n) / len(n), 2))!r},')
        w("        },")
        w(f"        objects={_counts(Counter(o for g in here for o, _ in g['objects'] if o in pickupable), 8)},")
        held = Counter(sum(o in pickupable for o, _ in g["objects"]) for g in here)
        w(f"        object_counts={_ints(held, 8)},")
        lamps = sum(any(o == "desklamp" for o, _ in g["objects"]) for g in here)
        w(f"        lamp_share={round(lamps / len(here), 2)},")
        w("    ),")
    w("}")
    w("# fmt: on")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    MODULE.write_text(render(read_games(Path(sys.argv[1]) if len(sys.argv) > 1 else GAMES)))
    print(f"wrote {MODULE}")
