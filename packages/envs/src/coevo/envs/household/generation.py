"""Procedural generation of one household room and task from ``(task_type, split, seed)``.

Every random draw comes from one ``random.Random(seed)`` in a fixed order, so a task's initial
state is a pure function of its seed, split, type and the room knobs. Guarantees:

- the room has what the task needs (its appliance, a desklamp for look_at tasks, a receptacle of
  the target kind) and at least one other receptacle where the goal objects start;
- goal objects never start in/on a receptacle of the target kind (the agent must search);
- distractor objects are of other kinds than the goal object;
- out of distribution (``eval_out_of_distribution``): the goal object is a reserved kind and the
  room holds at least one reserved receptacle kind (see ``catalog``); in the other splits no
  reserved name ever appears.
"""

from __future__ import annotations

import random
from collections import Counter

from coevo.envs.household.catalog import (
    APPLIANCE_OF_TASK,
    LAMP,
    OBJECT_KINDS,
    OOD_RECEPTACLE_KINDS,
    OPENABLE_KINDS,
    RECEPTACLE_KINDS,
    VERB_OF_APPLIANCE,
    distractor_kinds_for,
    goal_object_kinds_for,
    is_out_of_distribution,
    kind_of,
    receptacle_kinds_for,
)
from coevo.envs.household.goals import Goal, goal_sentence
from coevo.envs.household.world import Layout, World

SINGLE_INSTANCE_KINDS = frozenset(VERB_OF_APPLIANCE)  # one fridge, one microwave, one sinkbasin


def generate_world(
    task_type: str,
    split: str,
    seed: int,
    *,
    num_receptacles: int,
    max_per_kind: int,
    num_objects: int,
    closed_fraction: float,
    usual_place_prob: float,
    goal_variants: bool,
) -> World:
    rng = random.Random(seed)
    ood = is_out_of_distribution(split)
    kinds = receptacle_kinds_for(split)

    # -- the goal -------------------------------------------------------------------------------
    object_kind = rng.choice(goal_object_kinds_for(split, task_type))
    required: list[str] = []
    if task_type in APPLIANCE_OF_TASK:
        required.append(APPLIANCE_OF_TASK[task_type])
    if task_type == "look_at_obj_in_light":
        holders = [k for k in kinds if RECEPTACLE_KINDS[k].holds_lamp and (k in OOD_RECEPTACLE_KINDS) == ood]
        required.append(rng.choice(holders))
        target_kind = ""
    else:
        target_kind = rng.choice([k for k in kinds if RECEPTACLE_KINDS[k].can_be_target])
        required.append(target_kind)
    if ood and not OOD_RECEPTACLE_KINDS.intersection(required):
        required.append(rng.choice(sorted(OOD_RECEPTACLE_KINDS)))
    variant = rng.randrange(2) if goal_variants else 0
    goal = Goal(
        task_type, object_kind, target_kind, goal_sentence(task_type, object_kind, target_kind, variant)
    )

    # -- the receptacles ------------------------------------------------------------------------
    counts = Counter(required)
    hideouts = [k for k in kinds if k != target_kind and k not in counts]
    counts[rng.choice(hideouts)] += 1  # somewhere that is not the target, to hide the goal object in
    while sum(counts.values()) < num_receptacles:
        cap = {k: 1 if k in SINGLE_INSTANCE_KINDS else max_per_kind for k in kinds}
        candidates = [k for k in kinds if counts[k] < cap[k]]
        if not candidates:
            break
        counts[rng.choice(candidates)] += 1
    receptacles = tuple(f"{k} {i}" for k, n in sorted(counts.items()) for i in range(1, n + 1))
    openable = frozenset(r for r in receptacles if kind_of(r) in OPENABLE_KINDS)
    opened = {r for r in sorted(openable) if rng.random() >= closed_fraction}
    contents: dict[str, list[str]] = {r: [] for r in receptacles}

    # -- the objects ----------------------------------------------------------------------------
    def place(obj: str, allowed: list[str]) -> None:
        usual = [r for r in allowed if kind_of(r) in OBJECT_KINDS[kind_of(obj)].usual_places]
        if usual and rng.random() < usual_place_prob:
            contents[rng.choice(usual)].append(obj)
        else:
            contents[rng.choice(allowed)].append(obj)

    not_target = [r for r in receptacles if kind_of(r) != target_kind]
    for i in range(1, (2 if task_type == "pick_two_obj_and_place" else 1) + 1):
        place(f"{object_kind} {i}", not_target)
    numbers: Counter[str] = Counter()
    others = [k for k in distractor_kinds_for(split) if k != object_kind]
    for _ in range(num_objects):
        kind = rng.choice(others)
        numbers[kind] += 1
        place(f"{kind} {numbers[kind]}", list(receptacles))

    lamp = ""
    holders = [r for r in receptacles if RECEPTACLE_KINDS[kind_of(r)].holds_lamp]
    if holders:
        lamp = f"{LAMP} 1"
        contents[rng.choice(holders)].append(lamp)
    for objects in contents.values():
        objects.sort()

    # ALFWorld's arrival text names an arbitrary location number per receptacle (drawn last, so
    # everything above is independent of it)
    locations = tuple(rng.sample(range(1, 4 * len(receptacles) + 1), len(receptacles)))
    layout = Layout(receptacles=receptacles, openable=openable, lamp=lamp, goal=goal, locations=locations)
    return World(layout=layout, contents=contents, opened=opened)
