"""The static library (package data) covers every household task type; the writing prompt."""

import pytest

from coevo.envs.household.catalog import TASK_TYPES
from coevo.rsipo.skills.category import skill_category
from coevo.rsipo.skills.library import available, library, static_skill
from coevo.rsipo.skills.template import (
    HOUSEHOLD,
    Attempt,
    attempt_line,
    choose_attempts,
    skill_messages,
    template_for,
)


def test_household_library_covers_every_type_and_is_procedural():
    skills = library("household")
    assert set(TASK_TYPES) <= set(skills)
    for task_type in TASK_TYPES:
        assert skill_category(static_skill("household", task_type), HOUSEHOLD.verbs) == "procedural"
    assert static_skill("household", "unknown_type") == skills["default"]
    assert {"household", "alfworld", "boxes"} <= set(available())


def test_missing_library_names_the_available_ones():
    with pytest.raises(ValueError, match="libraries exist for"):
        library("no_such_env")


def test_writing_prompt():
    attempts = [Attempt(["go to a", "take x from a"], False), Attempt(["go to b", "open b"], True),
                Attempt(["look"], False)]
    assert [a.success for a in choose_attempts(list(attempts), 2)] == [True, False]  # one of each first
    assert attempt_line(1, Attempt(["a", "b", "c"], False), 2) == "Attempt 1 (failure): ... > b > c"
    messages = skill_messages(template_for("household"), "put a apple in fridge", attempts, 2, 8)
    assert messages[0]["role"] == "user"
    lines = messages[0]["content"].splitlines()
    assert lines[0] == "Task: put a apple in fridge"
    assert lines[1] == "Attempt 1 (success): go to b > open b"
    assert lines[2] == "Attempt 2 (failure): go to a > take x from a"
    assert "<skill>" in lines[3]
    assert template_for("unknown").verbs == ()
