"""Malformed and rule-breaking commands are invalid actions that change nothing, never exceptions;
hostile text (a megabyte, huge numbers, odd Unicode) is refused in well under a second."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.envs.textcraft_synth.commands import MAX_STEP_CHARS, CommandError, Craft, Info, parse_step
from coevo.envs.textcraft_synth.env import TextCraftSynthEnv
from coevo.envs.textcraft_synth.expert import craft_command


def _started(index=0) -> TextCraftSynthEnv:
    env = TextCraftSynthEnv()
    env.reset(env.task("train", index))
    return env


def _tier1_recipe(env):
    """A recipe of the target's tree made from base materials only (so it can be crafted now)."""
    return next(env.world.recipes[n] for n in env.world.closure(env.spec.target) if env.world.depth(n) == 1)


def _refused(env, text, why):
    before = env.snapshot()
    result = env.step(text)
    assert result.invalid and not result.won and result.reward == 0.0
    assert why in result.info["error"], result.info["error"]
    assert result.observation == env.invalid_observation
    after = env.snapshot()
    assert after[5] == before[5] and after[0] == before[0]  # the task and its state: unchanged (only steps move)
    return result


def test_the_parser_reads_each_command():
    commands = parse_step("INFO m1_i3, c2_i4 ;craft 4 m1_i3 from 2 m0_i2, 1 m4_i0\ninventory; finish now", 8)
    assert commands[0] == Info(("m1_i3", "c2_i4"))
    assert commands[1] == Craft(4, "m1_i3", (("m0_i2", 2), ("m4_i0", 1)))
    assert [type(c).__name__ for c in commands[2:]] == ["ShowInventory", "Finish"]


@pytest.mark.parametrize(("text", "why"), [
    ("", "empty step"), ("dance", "unknown command"), ("info", "at least one item"),
    ("craft m1_i3", "malformed craft"), ("craft 2 m1_i3 from", "malformed craft"), ("craft 2 m1_i3 from 1 m0_i0,", "malformed ingredient"),
    ("craft two m1_i3 from 1 m0_i0", "a count is a whole number"), ("craft 0 m1_i3 from 1 m0_i0", "from 1"),
    ("craft 2 m1_i3 from 1 m0_i0, 2 m0_i0", "named twice"), ("info " + "a" * 40, "not an item name"),
    ("info m1_i3!", "not an item name"), ("craft 1" + "0" * 20 + " m1_i3 from 1 m0_i0", "at most 9 digits"),
    ("inventory; " * 9, "at most 8 commands"), ("info " + ", ".join(["m0_i1"] * 65), "at most 64 items"),
])
def test_malformed_steps_are_refused_with_a_reason(text, why):
    with pytest.raises(CommandError, match=why):
        parse_step(text, 8)
    _refused(_started(), text, why)


def test_rule_breaking_crafts_are_invalid_and_change_nothing():
    env = _started()
    recipe = _tier1_recipe(env)
    (base, k), = recipe.ingredients  # a tier-1 recipe has one ingredient
    makes = recipe.makes
    good = craft_command(recipe, 1)
    _refused(env, f"craft {makes} {recipe.item} from {k + 1} {base}", f"use {k} {base}, not {k + 1}")
    _refused(env, f"craft {makes} {recipe.item} from {k} {base}, 1 zz_i0", "zz_i0 is not an ingredient")
    if makes > 1:
        _refused(env, f"craft {makes + 1} {recipe.item} from {k} {base}", "not a multiple")
    _refused(env, f"craft 1 {base} from 1 {base}", "is a base material")
    _refused(env, f"craft 1 qq_i3 from 1 {base}", "qq_i3 is no item")
    _refused(env, "info qq_i3", "unknown item qq_i3")
    held = env.inventory[base]
    crafts = held // k + 1
    _refused(env, f"craft {makes * crafts} {recipe.item} from {k * crafts} {base}", f"you hold {held}")
    # a good command followed by a bad one: the step is refused whole (the good one does not happen)
    result = _refused(env, f"{good}; craft 1 qq_i3 from 1 {base}", "command 2")
    assert env.inventory.get(recipe.item, 0) == 0
    assert not env.step(good).invalid and env.inventory[recipe.item] == makes and not result.done


def test_an_ingredient_missing_from_a_craft_is_named():
    env = _started()
    recipe = next(env.world.recipes[n] for n in env.world.closure(env.spec.target)
                  if len(env.world.recipes[n].ingredients) >= 2)
    (first, k), *_ = recipe.ingredients
    missing, needed = recipe.ingredients[1]
    _refused(env, f"craft {recipe.makes} {recipe.item} from {k} {first}",
             f"{missing} is missing: {recipe.makes} {recipe.item} use {needed} {missing}")


def test_info_answers_recipe_depth_and_holding():
    env = _started()
    base = next(iter(env.spec.stock))
    result = env.step(f"info {env.spec.target}, {base}")
    recipe = env.world.recipes[env.spec.target]
    assert not result.invalid
    assert f"depth {recipe.depth}, recipe {recipe.line()}; held 0." in result.observation
    assert f"{base}: base material, depth 0, no recipe; held {env.spec.stock[base]}." in result.observation


def test_the_memory_line_holds_the_stock_and_every_recipe_read():
    """What the agent read stays in its prompt when the turn that read it is no longer shown
    (agent.prompt.history_turns); a failed step reads nothing, and a child starts knowing no recipe."""
    env = _started()
    assert env.memory() == f"inventory: {', '.join(f'{n} {i}' for i, n in sorted(env.spec.stock.items()))}"
    target = env.world.recipes[env.spec.target]
    first = target.ingredients[0][0]
    env.step(f"info {env.spec.target}")
    env.step(f"info {first}; craft 1 zz9_i9 from 1 m0_i0")  # invalid: nothing of the step happens
    assert env.memory().endswith(f"; recipes read: {target.line()}")
    env.step(f"info {first}")
    read = sorted([env.spec.target, first]) if not env.world.is_base(first) else [env.spec.target]
    assert env.memory().endswith("; recipes read: " + "; ".join(env.world.recipes[n].line() for n in read))
    child, _ = env.fork(f"craft 1 {env.spec.target}")
    assert "recipes read" not in child.memory()


def test_invalid_steps_count_towards_the_budget():
    env = TextCraftSynthEnv(TextCraftSynthEnv.Config(max_steps=3))
    env.reset(env.task("train", 0))
    results = [env.step("nonsense") for _ in range(3)]
    assert [r.done for r in results] == [False, False, True] and not env.won


_WORDS = st.sampled_from(["info", "craft", "from", "inventory", "finish", ";", ",", "m0_i0", "m1_i1", "x0_i10_mc",
                          "²", "١٢", "\n", "-1", "0", "99999999999"])
_STEPS = st.one_of(st.text(max_size=120), st.lists(st.one_of(_WORDS, st.integers(0, 10**12).map(str)),
                                                    max_size=16).map(" ".join))


@settings(max_examples=200, deadline=1000, database=None)
@given(text=_STEPS)
def test_any_text_steps_or_is_invalid(text):
    env = _started()
    result = timed(env.step, text)
    assert isinstance(result.observation, str) and (result.invalid or not result.won)


@pytest.mark.parametrize("text", SMALL_HOSTILE, ids=lambda t: t[:20])
def test_short_bombs_are_invalid(text):
    assert timed(_started().step, text).invalid


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_step_is_refused_in_under_a_second(name, text):
    env = _started()
    result = timed(env.step, text)
    assert result.invalid and (str(MAX_STEP_CHARS) in result.info["error"] or not text.split())
    assert timed(env.parse_action, text) is None or True  # the reply parser never raises either


def test_non_text_actions_are_invalid():
    env = _started()
    assert env.step(None).invalid  # type: ignore[arg-type]
