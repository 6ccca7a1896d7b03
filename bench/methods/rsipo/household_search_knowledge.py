"""How much household's search knowledge is worth: the observable oracle with and without common
sense, per scale and task type (issue 22 item 1).

A skill can raise success only by carrying something the policy lacks. In household the one piece
of knowledge an expert brings beyond the rules is where each object kind is usually kept (and what
a desklamp stands on): ``common_sense``. This plays every room twice with the same oracle, once
searching the usual places first (the oracle the warm start imitates) and once searching in the
order the room lists its receptacles (no knowledge), and prints side by side, per task type:

- success within the scale's step limit, and the share won within tighter limits (8, 10, 12, 16, 20, 30 steps);
- mean steps of the episodes both won (the search the knowledge saves).

No model is involved, so the numbers are exact for the rooms played; it runs in seconds.

    .venv/bin/python -m bench.methods.rsipo.household_search_knowledge --episodes 600 --out household_search_knowledge.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from collections import defaultdict
from pathlib import Path

from bench.methods.method_runs import start_record
from coevo.envs.household.catalog import TASK_TYPES
from coevo.envs.household.common_sense import SCALES, CommonSense
from coevo.envs.household.env import HouseholdEnv
from coevo.envs.household.oracle import ObservableOracle

ROOT = Path(__file__).resolve().parents[3]
NO_KNOWLEDGE = CommonSense(usual_places={}, lamp_holders=())  # every receptacle ranks alike: listing order
SETTINGS = {  # name -> HouseholdEnv.Config overrides
    "small (default household, 3 types, 20 steps)": {},
    "small, 6 types": {"task_types": list(TASK_TYPES)},
    "alfworld scale, 6 types, 50 steps": {"scale": "alfworld", "task_types": list(TASK_TYPES)},
}


def play(env: HouseholdEnv, common_sense: CommonSense, split: str, index: int) -> tuple[str, bool, int]:
    """One episode by an observable oracle with ``common_sense``, fed the env's own observations:
    (task type, won, steps)."""
    task = env.task(split, index)
    oracle = ObservableOracle(common_sense=common_sense)
    oracle.observe(env.reset(task))
    while True:
        result = env.step(oracle.act(env.admissible_actions()))
        if not result.invalid:
            oracle.observe(result.observation)
        if result.done:
            return task.task_type, result.won, env.steps_taken


def measure(overrides: dict, episodes: int, split: str) -> dict:
    env = HouseholdEnv(HouseholdEnv.Config(**overrides))
    knowledge = {"usual places first": SCALES[env.config.scale], "listing order": NO_KNOWLEDGE}
    played = {name: [play(env, cs, split, i) for i in range(episodes)]
              for name, cs in knowledge.items()}
    per_type: dict[str, dict] = defaultdict(dict)
    for task_type in sorted({t for t, _, _ in played["usual places first"]}):
        rows = {name: [(won, steps) for t, won, steps in eps if t == task_type] for name, eps in played.items()}
        both = [i for i, ((w1, _), (w2, _)) in enumerate(zip(*rows.values())) if w1 and w2]
        for name, eps in rows.items():
            per_type[task_type][name] = {
                "episodes": len(eps), "success": round(sum(w for w, _ in eps) / len(eps), 3),
                "mean_steps_both_won": round(statistics.mean(eps[i][1] for i in both), 2) if both else None}
    steps = {name: sorted(s for _, won, s in eps if won) for name, eps in played.items()}
    return {"overrides": overrides, "max_steps": env.max_steps, "per_type": per_type,
            "success": {name: round(sum(w for _, w, _ in eps) / episodes, 3) for name, eps in played.items()},
            "won_within": {name: {limit: round(sum(s <= limit for s in won) / episodes, 3)
                                  for limit in (8, 10, 12, 16, 20, 30, 50) if limit <= env.max_steps}
                           for name, won in steps.items()}}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=600)
    parser.add_argument("--split", default="train")
    parser.add_argument("--out", default="household_search_knowledge.json", help="file name next to this script (bench/methods/rsipo/)")
    args = parser.parse_args()
    record = start_record("bench.methods.rsipo.household_search_knowledge", settings=[])
    for name, overrides in SETTINGS.items():
        result = measure(overrides, args.episodes, args.split)
        record["settings"].append({"name": name, **result})
        print(f"\n{name}: success {result['success']}")
        print(f"  won within N steps: {result['won_within']}")
        for task_type, by_oracle in result["per_type"].items():
            with_k, without = by_oracle["usual places first"], by_oracle["listing order"]
            print(f"  {task_type:32s} success {with_k['success']:.2f} vs {without['success']:.2f}; "
                  f"steps (both won) {with_k['mean_steps_both_won']} vs {without['mean_steps_both_won']}")
    Path(__file__).with_name(args.out).write_text(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
