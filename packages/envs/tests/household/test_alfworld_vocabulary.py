"""``scale=alfworld`` against the shared real ALFWorld games (read in place from ../shared/alfworld):
its vocabulary covers every kind the games' goals and rooms use, their task sentences parse as
household goals of the same type, and household's commands take the games' command forms."""

from __future__ import annotations

import json
import re
from pathlib import Path

import alfworld_counts
import pytest

from coevo.envs.household import vocabulary as V
from coevo.envs.household.alfworld_rooms import can_ask
from coevo.envs.household.catalog import LAMP, RECEPTACLE_KINDS, TASK_TYPES, kind_of
from coevo.envs.household.common_sense import SMALL
from coevo.envs.household.env import HouseholdEnv
from coevo.envs.household.goals import parse_goal

# packages/envs/tests/household/ -> the repository root is parents[4]
GAMES = (Path(__file__).resolve().parents[4] / "../shared/alfworld/json_2.1.1").resolve()
SPLITS = ("train", "valid_seen")


def _kind(pddl_type: str) -> str:
    return pddl_type.removesuffix("Type").lower()


@pytest.fixture(scope="module")
def games() -> list[dict]:
    """Per real game: split, task type, goal kinds, task sentence, receptacle/object kinds, templates."""
    if not (GAMES / "valid_seen").is_dir():
        pytest.skip(f"the shared ALFWorld games are not at {GAMES} (../shared/alfworld is absent here)")
    out = []
    for split in SPLITS:
        for traj_file in sorted((GAMES / split).glob("*/*/traj_data.json")):
            traj = json.loads(traj_file.read_text())
            game = json.loads((traj_file.parent / "game.tw-pddl").read_text())
            problem = game["pddl_problem"]
            params = traj["pddl_params"]
            out.append({
                "split": split,
                "task_type": traj["task_type"],
                "object": params["object_target"].lower(),
                "target": params["parent_target"].lower(),
                "sentence": re.search(r'Your task is to: (.+?)\."', game["grammar"]).group(1),
                "receptacles": {_kind(t) for t in re.findall(r"\(receptacleType \S+ (\S+)\)", problem)},
                "pickupable": {
                    _kind(t) for o, t in re.findall(r"\(objectType (\S+) (\S+)\)", problem)
                    if f"(pickupable {o})" in problem and f"(inReceptacle {o} " in problem
                },
                "templates": re.findall(r'template :: "(.+?)";', game["grammar"]),
            })
    assert {g["split"] for g in out} == set(SPLITS)
    return out


def test_vocabulary_module_is_what_the_shared_games_count(games):
    """vocabulary.py is data rendered by alfworld_counts from these games, not edited by hand."""
    assert alfworld_counts.MODULE.read_text() == alfworld_counts.render(alfworld_counts.read_games(GAMES))


def test_vocabulary_has_every_goal_kind_of_the_real_games(games):
    assert {g["object"] for g in games} <= set(V.OBJECT_KINDS)
    assert {g["target"] for g in games} - {""} <= set(V.TARGET_KINDS)
    assert {g["task_type"] for g in games} == set(TASK_TYPES)


def test_vocabulary_has_every_kind_the_real_rooms_hold(games):
    assert set().union(*(g["receptacles"] for g in games)) <= set(V.RECEPTACLE_KINDS)
    assert set().union(*(g["pickupable"] for g in games)) <= set(V.OBJECT_KINDS)


def test_every_real_goal_can_be_posed_at_alfworld_scale(games):
    for split in SPLITS:
        posed = [g for g in games if g["split"] == split and can_ask(g["task_type"], g["object"], g["target"])]
        assert len(posed) == sum(g["split"] == split for g in games), split  # 200/200 and 140/140


def test_generated_goals_cover_the_real_goals(games):
    env = HouseholdEnv(HouseholdEnv.Config(scale="alfworld", task_types=list(TASK_TYPES)))
    wanted = {("object", g["object"]) for g in games} | {("target", g["target"]) for g in games}
    asked = set()
    for index in range(3000):  # until every kind was asked for (about 1000 tasks)
        env.reset(env.task("train", index))
        goal = parse_goal(env.goal)
        asked |= {("object", goal.object_kind), ("target", goal.target_kind)}
        if wanted <= asked:
            break
    assert wanted - asked == set()


def test_real_task_sentences_parse_as_household_goals_of_the_same_type(games):
    for g in games:
        goal = parse_goal(g["sentence"])
        assert goal is not None, g["sentence"]
        assert (goal.task_type, goal.object_kind, goal.target_kind) == (g["task_type"], g["object"], g["target"])


def _template_patterns(templates: list[str]) -> list[re.Pattern[str]]:
    """``take {o} from {r}`` → ``^take (?P<o>\\w+ \\d+) from (?P<r>\\w+ \\d+)$``; go's list slot too."""
    patterns = []
    for template in set(templates):
        text = re.escape(re.sub(r"\[\{r\.name \|[^\]]*\]", "{r}", template))
        text = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[a-z]+ \\d+)", text)
        patterns.append(re.compile(f"^{text}$"))
    return patterns


def test_household_commands_take_the_real_command_forms_with_the_new_kinds(games):
    patterns = _template_patterns([t for g in games for t in g["templates"]])
    objects, receptacles = set(V.OBJECT_KINDS) | {LAMP}, set(V.RECEPTACLE_KINDS)
    env = HouseholdEnv(HouseholdEnv.Config(scale="alfworld", task_types=list(TASK_TYPES)))

    def fits(match: re.Match[str]) -> bool:  # {r} names a receptacle, every other slot an object
        return all(kind_of(name) in (receptacles if slot == "r" else objects) for slot, name in match.groupdict().items())

    named = set()
    for index in range(60):
        env.reset(env.task("train", index))
        while not env.done:
            for command in env.admissible_actions():
                assert any((m := p.match(command)) and fits(m) for p in patterns), command
                named.update(kind_of(name) for name in re.findall(r"[a-z]+ \d+", command))
            env.step(env.expert_action())
    assert len(named - set(SMALL.usual_places) - set(RECEPTACLE_KINDS)) > 25  # new kinds were exercised
