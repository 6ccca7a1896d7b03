"""Action parsing and prompt building of the agent loop."""

from __future__ import annotations

import pytest

from coevo.core.agent.prompt import DEFAULT_SYSTEM_PROMPT, PromptSettings, build_messages, expert_messages
from coevo.core.env.actions import format_action, parse_action


@pytest.mark.parametrize(
    "text, expected",
    [
        ("<action>go to red box</action>", "go to red box"),
        ("  <action>  go   to\nred box </action>\n ", "go to red box"),  # whitespace normalised
        ("<think>the red one</think><action>open red box</action>", "open red box"),
        ("<think>multi\nline</think>\n <action>open red box</action>", "open red box"),
    ],
)
def test_parse_good_actions(text, expected):
    assert parse_action(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "go to red box",  # no tags
        "<action>go to red box",  # no closing tag
        "go to red box</action>",  # no opening tag
        "<action>go to red box</action><action>open red box</action>",  # two actions
        "<action>go to red box</action> and then open it",  # text after
        "Sure! <action>go to red box</action>",  # text before
        "<action></action>",  # empty
        "<action>   </action>",  # blank
        "<think>only thinking</think>",
        "<action><b>go</b></action>",  # tags inside
        "",
    ],
)
def test_parse_malformed_actions_return_none(text):
    assert parse_action(text) is None


def test_format_action_round_trips():
    assert format_action("go to red box") == "<action>go to red box</action>"
    assert format_action("open red box", think="it is red") == "<think>it is red</think><action>open red box</action>"
    for think in (None, "hm"):
        assert parse_action(format_action("open blue box", think)) == "open blue box"


HISTORY = [("<action>a1</action>", "o1"), ("<action>a2</action>", "o2"), ("<action>a3</action>", "o3")]


def test_build_messages_keeps_first_observation_last_pairs_and_extras():
    settings = PromptSettings(history_turns=2, memory=True, show_admissible=True)
    messages = build_messages(settings, "first", HISTORY, "visited: red", ["go to red box", "open red box"])
    assert messages == [
        {"role": "system", "content": DEFAULT_SYSTEM_PROMPT},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "<action>a2</action>"},
        {"role": "user", "content": "o2"},
        {"role": "assistant", "content": "<action>a3</action>"},
        {"role": "user", "content": "o3\nMemory: visited: red\nAdmissible: go to red box, open red box"},
    ]


def test_build_messages_keep_turns_override_and_no_history():
    settings = PromptSettings(history_turns=2, memory=True, show_admissible=False, system_prompt="S")
    messages = build_messages(settings, "first", HISTORY, "m", ["x"], keep_turns=0)
    # no history: the extras go on the first observation; admissible list is off
    assert messages == [{"role": "system", "content": "S"}, {"role": "user", "content": "first\nMemory: m"}]
    messages = build_messages(settings, "first", HISTORY, "m", None, keep_turns=1)
    assert [m["content"] for m in messages] == ["S", "first", "<action>a3</action>", "o3\nMemory: m"]
    assert build_messages(settings, "first", [], None, None) == [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "first"},
    ]


def test_build_messages_without_memory_setting_ignores_memory():
    settings = PromptSettings(history_turns=1, memory=False, show_admissible=True)
    messages = build_messages(settings, "first", HISTORY[:1], "visited: red", ["a", "b"])
    assert messages[-1] == {"role": "user", "content": "o1\nAdmissible: a, b"}


def test_expert_messages_append_the_reply():
    settings = PromptSettings(history_turns=1, memory=True)
    messages = expert_messages(settings, "first", HISTORY, "m", None, format_action("open red box"))
    assert messages[:-1] == build_messages(settings, "first", HISTORY, "m", None)
    assert messages[-1] == {"role": "assistant", "content": "<action>open red box</action>"}


def test_goal_reminder_goes_into_the_latest_message_after_the_first_turn():
    settings = PromptSettings(system_prompt="", history_turns=1, memory=True, goal_reminder=True)
    later = build_messages(settings, "first", HISTORY, "m", None, goal="put a mug in desk")
    assert later[-1]["content"] == HISTORY[-1][1] + "\nTask: put a mug in desk\nMemory: m"
    opening_turn = build_messages(settings, "first", [], "m", None, goal="put a mug in desk")
    assert opening_turn[-1]["content"] == "first\nMemory: m"  # the first message states the task
    off = PromptSettings(system_prompt="", history_turns=1, memory=True)
    assert build_messages(off, "first", HISTORY, "m", None, goal="x")[-1]["content"] == HISTORY[-1][1] + "\nMemory: m"
