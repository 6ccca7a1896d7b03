"""Skill categories: procedural (several command verbs), format (syntax tips), other, empty."""

from coevo.rsipo.skills.category import skill_category
from coevo.rsipo.skills.template import HOUSEHOLD


def test_categories():
    verbs = HOUSEHOLD.verbs
    assert skill_category("take the apple, go to microwave 1 and heat it", verbs) == "procedural"
    assert skill_category("reply with exactly one <action> tag", verbs) == "format"
    assert skill_category("be careful", verbs) == "other"
    assert skill_category("  ", verbs) == "empty"
    # one verb is not a procedure; verbs match as words ("user" is not "use")
    assert skill_category("take it", verbs) == "other"
    assert skill_category("the user is cool", verbs, min_verbs=1) == "procedural"  # "cool"
    assert skill_category("the user", verbs, min_verbs=1) == "other"
