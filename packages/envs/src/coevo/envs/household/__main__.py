"""``python -m coevo.envs.household [index] [scale]``: play one oracle episode aloud, then time
oracle episodes (``scale``: ``small``, the default, or ``alfworld``).

Prints the transcript of train task 0 and the mean wall time per ``step`` (microseconds) and per
``expert_action`` over a few hundred episodes, and the oracle's win rate.
"""

from __future__ import annotations

import sys
import time

from coevo.envs.household.env import HouseholdEnv


def play_aloud(env: HouseholdEnv, split: str, index: int) -> None:
    print(env.reset(env.task(split, index)))
    while True:
        action = env.expert_action()
        result = env.step(action)
        print(f"> {action}\n{result.observation}")
        print(f"  [memory] {env.memory()}")
        if result.done:
            print(f"won={result.won} steps={env.steps_taken}")
            return


def time_episodes(env: HouseholdEnv, episodes: int) -> None:
    step_s = expert_s = 0.0
    steps = wins = 0
    for i in range(episodes):
        env.reset(env.task("train", i))
        done = False
        while not done:
            t0 = time.perf_counter()
            action = env.expert_action()
            t1 = time.perf_counter()
            result = env.step(action)
            t2 = time.perf_counter()
            expert_s += t1 - t0
            step_s += t2 - t1
            steps += 1
            done = result.done
        wins += result.won
    print(
        f"{episodes} episodes, {steps} steps: step {1e6 * step_s / steps:.1f} us, "
        f"expert_action {1e6 * expert_s / steps:.1f} us, oracle won {wins}/{episodes}"
    )


if __name__ == "__main__":
    env = HouseholdEnv(HouseholdEnv.Config(scale=sys.argv[2] if len(sys.argv) > 2 else "small"))
    play_aloud(env, "train", int(sys.argv[1]) if len(sys.argv) > 1 else 0)
    time_episodes(env, 600)
