"""Generation at ``env.scale=alfworld``: rooms drawn as ALFWorld's real games are distributed.

From ``(task_type, seed)`` and one ``random.Random(seed)``: a room type that has such tasks
(kitchen, living room, bedroom, bathroom; weighted by the real games of that task type), a room
size from that room type's real sizes, receptacle counts within each kind's real range (the kinds
every real room of the type has, at least their fewest; then kinds drawn by their mean count), a
goal object of a kind this room type holds (uniformly over the kinds the task type allows), objects
of the room type's kinds in the number its real rooms hold, each where its kind was found in the
real games (drawn by those counts). As in ALFWorld, every openable receptacle starts closed.

Guarantees (as at the small scale): the room has the task's appliance, a desklamp for look_at
tasks, a receptacle of the target kind that can hold the goal object; goal objects never start in
a receptacle of the target kind; distractors are of other kinds than the goal object. A room the
observable oracle cannot finish within ``max_steps`` (ALFWorld: 50) is drawn again from the same
random stream, the way ALFWorld keeps only games its planner can solve; so every task is winnable
within the step limit by searching as a person would.
"""

from __future__ import annotations

import random
from collections import Counter

from coevo.envs.household import vocabulary as V
from coevo.envs.household.catalog import APPLIANCE_OF_TASK, LAMP, kind_of
from coevo.envs.household.commands import admissible_commands, apply_command
from coevo.envs.household.common_sense import ALFWORLD
from coevo.envs.household.goals import Goal, goal_sentence, is_goal_met
from coevo.envs.household.oracle import ObservableOracle
from coevo.envs.household.wording import intro
from coevo.envs.household.world import Layout, World

MAX_DRAWS = 200  # rooms drawn per task before giving up (a few are enough in practice)

# the goal objects each task type can ask for (as ALFWorld's predicates allow)
GOAL_KINDS: dict[str, frozenset[str]] = {
    "pick_and_place_simple": frozenset(V.OBJECT_KINDS),
    "pick_two_obj_and_place": frozenset(V.OBJECT_KINDS),
    "look_at_obj_in_light": V.LOOKABLE,
    "pick_clean_then_place_in_recep": V.CLEANABLE,
    "pick_heat_then_place_in_recep": V.HEATABLE,
    "pick_cool_then_place_in_recep": V.COOLABLE,
}


def room_types_for(task_type: str) -> list[str]:
    """Room types whose real games include ``task_type`` (stable order)."""
    return [name for name, room in V.ROOM_TYPES.items() if room.tasks.get(task_type)]


def can_ask(task_type: str, object_kind: str, target_kind: str) -> bool:
    """Whether some room of this scale can pose this goal (the constraints ``_draw`` applies)."""
    for name in room_types_for(task_type):
        room = V.ROOM_TYPES[name]
        if object_kind not in room.objects or object_kind not in GOAL_KINDS[task_type]:
            continue
        if task_type == "look_at_obj_in_light":
            if not target_kind and any(k in room.receptacles for k in V.LAMP_HOLDERS):
                return True
            continue
        fits = target_kind in V.CAN_HOLD[object_kind] and target_kind != APPLIANCE_OF_TASK.get(task_type)
        starts = [k for k in V.PLACES[object_kind] if k in room.receptacles and k != target_kind]
        if fits and target_kind in V.TARGET_KINDS and target_kind in room.receptacles and starts:
            return True
    return False


def generate_alfworld_room(task_type: str, split: str, seed: int, *, max_steps: int, goal_variants: bool):
    """``(room type, world)`` of ALFWorld's scale; the same for the same arguments (``split`` only
    names the task in an error: the seed already depends on it)."""
    rng = random.Random(seed)
    for _ in range(MAX_DRAWS):
        drawn = _draw(rng, task_type, goal_variants)
        if drawn is not None and oracle_wins_within(drawn[1], max_steps):
            return drawn
    raise RuntimeError(f"no winnable {task_type} room in {MAX_DRAWS} draws (seed {seed}, split {split})")


def generate_alfworld_world(
    task_type: str, split: str, seed: int, *, max_steps: int, goal_variants: bool
) -> World:
    """The world of ``generate_alfworld_room``."""
    return generate_alfworld_room(task_type, split, seed, max_steps=max_steps, goal_variants=goal_variants)[1]


def _weighted(rng: random.Random, weights: dict) -> str:
    keys = list(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


def _draw(rng: random.Random, task_type: str, goal_variants: bool) -> tuple[str, World] | None:
    room = V.ROOM_TYPES[_weighted(rng, {r: V.ROOM_TYPES[r].tasks[task_type] for r in room_types_for(task_type)})]
    size = int(_weighted(rng, room.sizes))
    kinds = room.receptacles  # kind → (fewest, most, mean)

    # -- the goal: an object kind of this room, a target that can hold it ------------------------
    objects_here = [k for k in room.objects if k in GOAL_KINDS[task_type]]
    object_kind = rng.choice(objects_here)  # goals are spread over the kinds, as ALFRED's are
    appliance = APPLIANCE_OF_TASK.get(task_type, "")
    target_kind = ""
    required = Counter({k: low for k, (low, _, _) in kinds.items() if low})
    if appliance:
        required[appliance] = max(required[appliance], 1)
    if task_type == "look_at_obj_in_light":
        holder = _weighted(rng, {k: n for k, n in V.LAMP_HOLDERS.items() if k in kinds})
        required[holder] = max(required[holder], 1)
    else:
        targets = [k for k in V.TARGET_KINDS if k in kinds and k in V.CAN_HOLD[object_kind] and k != appliance]
        if not targets:
            return None
        target_kind = rng.choice(targets)
        required[target_kind] = max(required[target_kind], 1)
    starts = [k for k in V.PLACES[object_kind] if k in kinds and k != target_kind]
    if not starts:
        return None
    start = _weighted(rng, {k: V.PLACES[object_kind][k] for k in starts})
    required[start] = max(required[start], 1)
    variant = rng.randrange(2) if goal_variants else 0
    goal = Goal(task_type, object_kind, target_kind, goal_sentence(task_type, object_kind, target_kind, variant))

    # -- the receptacles: the required ones, then kinds drawn by their mean count ----------------
    counts = Counter(required)
    while sum(counts.values()) < size:
        open_kinds = {k: mean for k, (_, most, mean) in kinds.items() if counts[k] < most and mean > 0}
        if not open_kinds:
            break
        counts[_weighted(rng, open_kinds)] += 1
    receptacles = tuple(f"{k} {i}" for k, n in sorted(counts.items()) for i in range(1, n + 1))
    contents: dict[str, list[str]] = {r: [] for r in receptacles}

    # -- the objects: each where its kind is found, by the real counts --------------------------
    def place(obj: str, allowed: list[str]) -> bool:
        places = V.PLACES[kind_of(obj)]
        here = [r for r in allowed if kind_of(r) in places]
        if not here:
            return False
        contents[rng.choices(here, weights=[places[kind_of(r)] for r in here])[0]].append(obj)
        return True

    not_target = [r for r in receptacles if kind_of(r) != target_kind]
    goal_count = rng.choice((2, 3) if task_type == "pick_two_obj_and_place" else (1, 2, 3))
    for i in range(1, goal_count + 1):
        place(f"{object_kind} {i}", not_target)
    numbers: Counter[str] = Counter()
    others = {k: n for k, n in room.objects.items() if k != object_kind}
    for _ in range(max(0, int(_weighted(rng, room.object_counts)) - goal_count)):
        kind = _weighted(rng, others)
        if place(f"{kind} {numbers[kind] + 1}", list(receptacles)):
            numbers[kind] += 1

    lamp = ""
    holders = [r for r in receptacles if kind_of(r) in V.LAMP_HOLDERS]
    if holders and (task_type == "look_at_obj_in_light" or rng.random() < room.lamp_share):
        lamp = f"{LAMP} 1"
        contents[rng.choices(holders, weights=[V.LAMP_HOLDERS[kind_of(r)] for r in holders])[0]].append(lamp)
    for objects in contents.values():
        objects.sort()
    openable = frozenset(r for r in receptacles if kind_of(r) in V.OPENABLE_KINDS)
    locations = tuple(rng.sample(range(1, 4 * len(receptacles) + 1), len(receptacles)))
    layout = Layout(receptacles=receptacles, openable=openable, lamp=lamp, goal=goal, locations=locations)
    return room.name, World(layout=layout, contents=contents, opened=set())


def oracle_wins_within(world: World, max_steps: int) -> bool:
    """Whether the observable oracle, on a copy of ``world``, meets the goal within ``max_steps``."""
    trial = World(layout=world.layout, contents={}, opened=set())
    trial.restore(world.snapshot())
    oracle = ObservableOracle(common_sense=ALFWORLD)
    oracle.observe(intro(trial))
    for _ in range(max_steps):
        oracle.observe(apply_command(trial, oracle.act(admissible_commands(trial))))
        if is_goal_met(trial):
            return True
    return False
