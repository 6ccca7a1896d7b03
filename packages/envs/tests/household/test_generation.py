"""Generated rooms hold what their task needs, hide the goal objects, and obey the knobs."""

from coevo.envs.household.catalog import APPLIANCE_OF_TASK, TASK_TYPES, kind_of
from coevo.envs.household.generation import generate_world
from coevo.envs.procedural import task_seed

KNOBS = dict(
    num_receptacles=6,
    max_per_kind=2,
    num_objects=3,
    closed_fraction=0.5,
    usual_place_prob=0.75,
    goal_variants=True,
)


def _worlds(split, n=120, **overrides):
    knobs = {**KNOBS, **overrides}
    for i in range(n):
        task_type = TASK_TYPES[i % 6]
        yield task_type, generate_world(task_type, split, task_seed("household", split, i, 0), **knobs)


def test_rooms_hold_what_the_task_needs_and_hide_goal_objects():
    for split in ("train", "eval_out_of_distribution"):
        for task_type, world in _worlds(split):
            goal = world.layout.goal
            kinds = {kind_of(r) for r in world.layout.receptacles}
            assert len(world.layout.receptacles) == 6
            if task_type in APPLIANCE_OF_TASK:
                assert APPLIANCE_OF_TASK[task_type] in kinds
            if task_type == "look_at_obj_in_light":
                assert world.receptacle_of_lamp()
            else:
                assert goal.target_kind in kinds
            goal_objects = [
                (r, o) for r, objs in world.contents.items() for o in objs if kind_of(o) == goal.object_kind
            ]
            assert len(goal_objects) == (2 if task_type == "pick_two_obj_and_place" else 1)
            assert all(kind_of(r) != goal.target_kind for r, _ in goal_objects)
            assert world.agent_at == "" and world.holding == ""


def test_knobs_set_sizes_and_closed_receptacles():
    for _, world in _worlds("train", num_receptacles=10, max_per_kind=3, num_objects=5, closed_fraction=1.0):
        assert len(world.layout.receptacles) == 10
        assert not world.opened
        objects = [o for objs in world.contents.values() for o in objs if not o.startswith("desklamp")]
        assert len(objects) in (6, 7)  # 5 distractors + 1 or 2 goal objects
    for _, world in _worlds("train", closed_fraction=0.0):
        assert world.opened == set(world.layout.openable)


def test_generation_is_a_pure_function_of_its_inputs():
    a = generate_world("pick_two_obj_and_place", "train", 1234, **KNOBS)
    b = generate_world("pick_two_obj_and_place", "train", 1234, **KNOBS)
    assert a == b
    assert a != generate_world("pick_two_obj_and_place", "train", 1235, **KNOBS)


def test_first_phrasing_only_when_variants_are_off():
    sentences = {w.layout.goal.sentence.split()[0] for _, w in _worlds("train", goal_variants=False)}
    assert sentences <= {"put", "look"}
