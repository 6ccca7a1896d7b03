"""The small scale (the default) is pinned: seeded episodes replay the exact text they gave before
``scale`` existed (sha256 over the intro and every oracle step of 24 tasks, all types and splits)."""

import hashlib

from coevo.envs.household.catalog import TASK_TYPES
from coevo.envs.household.env import HouseholdEnv

# recorded at commit 4a5ce04, before the alfworld scale was added
PINNED_SHA256 = "34bc33f3120fbed764c3b1b7cb95afec0304c7237bb8873b824220d8fc7e02b8"
PINNED_FIRST_INTRO = (
    "-= Welcome to TextWorld, ALFRED! =-\n\nYou are in the middle of a room. Looking quickly around you, "
    "you see a cabinet 2, a cabinet 1, a drawer 1, a garbagecan 1, a stoveburner 2, and a stoveburner 1."
    "\n\nYour task is to: put some bowl on drawer."
)


def transcript(env: HouseholdEnv) -> str:
    lines = []
    for split in ("train", "eval_in_distribution", "eval_out_of_distribution"):
        for index in range(8):
            lines.append(env.reset(env.task(split, index)))
            while True:
                action = env.expert_action()
                result = env.step(action)
                lines += [action, result.observation, str(result.won)]
                if result.done:
                    break
    return "\n".join(lines)


def test_default_small_scale_text_is_unchanged():
    env = HouseholdEnv(HouseholdEnv.Config(task_types=list(TASK_TYPES)))
    assert hashlib.sha256(transcript(env).encode()).hexdigest() == PINNED_SHA256


def test_first_default_intro_is_unchanged():
    env = HouseholdEnv()
    assert env.reset(env.task("train", 0)) == PINNED_FIRST_INTRO
