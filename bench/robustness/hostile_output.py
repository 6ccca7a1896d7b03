"""Hostile model output: how long each parser and checker takes on 1 MB of garbage.

Everything a model writes is hostile input (issue 18, section 3). This feeds every text of
``coevo.core.testing.hostile.hostile_texts(size)`` — random ASCII and Unicode, tag soups, every
grammar's tags repeated, deep nesting, whitespace, digits — plus the short evaluation bombs of
``SMALL_HOSTILE`` (``9^{9^{9}}``, 5,000-digit numbers, deep sums) to every reply parser, answer
checker, goal parser, ``fork`` and ``step`` that reads model text, times each call, and prints
the slowest time per parser. It fails (exit 1) when any call takes ``--limit`` seconds or more,
or raises anything but ``ForkError`` where a fork is refused.

It also measures the per-call overhead of the hard time bound (``coevo.core.time_bound``): the mean
round trip of a trivial call through the worker process.

    python -m bench.robustness.hostile_output                       # 1 MB texts, limit 1 s
    python -m bench.robustness.hostile_output --size 100000 --out bench/robustness/hostile_output.json
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable

from coevo.core.env.actions import parse_action
from coevo.core.env.protocol import ForkError
from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts
from coevo.core.time_bound import call_bounded
from coevo.envs.algebra.env import AlgebraEnv
from coevo.envs.algebra.goals import parse_goal as algebra_goal
from coevo.envs.algebra.parser import ExpressionSyntaxError, parse_expression
from coevo.envs.craft.env import CraftEnv
from coevo.envs.longctx.env import LongCtxEnv
from coevo.envs.longctx.goals import parse_goal as longctx_goal
from coevo.envs.math.answers import answers_match, extract_boxed
from coevo.envs.math.cost import costly_text
from coevo.envs.math.env import MathEnv
from coevo.envs.math.validity import check_problem
from coevo.envs.maze.env import MazeEnv
from coevo.envs.maze.goals import parse_goal as maze_goal
from coevo.envs.search.actions import parse_reply as search_reply
from coevo.envs.search.actions import split_action
from coevo.evoheir.scout import parse_proposal
from coevo.evoheir.verifiers import consensus, exact_label
from coevo.rao.protocol import parse_reply as rao_reply
from coevo.rao.protocol import resolve
from coevo.rsipo.skills.parsing import parse_skill


def _refusing(fn: Callable[[str], object]) -> Callable[[str], object]:
    """``fn`` with its documented refusals (``ForkError``, a syntax error) counted as answers."""

    def call(text: str) -> object:
        try:
            return fn(text)
        except (ForkError, ExpressionSyntaxError) as exc:
            return exc

    return call


def _started(cls):
    env = cls()
    env.reset(env.task("train", 0))
    return env


def _step(cls) -> Callable[[str], object]:
    def call(text: str) -> object:
        env = _started(cls)
        action = env.parse_action(text)
        return env.step(text) if action is None else env.step(action)

    return call


def _fork(cls) -> Callable[[str], object]:
    return _refusing(lambda text: _started(cls).fork(text))


def parsers() -> dict[str, Callable[[str], object]]:
    return {
        "core.parse_action": parse_action,
        "rao.parse_reply": rao_reply,
        "rao.resolve": lambda t: resolve(t, ["a", "b"]),
        "search.parse_reply": search_reply,
        "search.split_action": split_action,
        "math.extract_boxed": extract_boxed,
        "math.costly_text": costly_text,
        "math.answers_match(gold=text)": lambda t: answers_match(t, "1"),
        "math.answers_match(pred=text)": lambda t: answers_match("1", t),
        "math.answers_match(boxed)": lambda t: answers_match("1", extract_boxed(t) or t[:200]),
        "math.check_problem(answer=text)": lambda t: check_problem("Compute $1 + 1$.", t),
        "math.check_problem(problem=text)": lambda t: check_problem(t, "2"),
        "math.env.step": _step(MathEnv),
        "evoheir.parse_proposal": lambda t: parse_proposal(t, "arithmetic"),
        "evoheir.parse_proposal(answer)": lambda t: parse_proposal("Problem: Compute $1+1$.\nAnswer: " + t, "x"),
        "evoheir.exact_label": exact_label,
        "evoheir.exact_label(compute)": lambda t: exact_label(f"Compute ${t[:1900]}$."),
        "evoheir.consensus": lambda t: consensus([t, t[:200], "1", None]),
        "rsipo.parse_skill": parse_skill,
        "algebra.parse_expression": _refusing(parse_expression),
        "algebra.parse_goal": _refusing(lambda t: algebra_goal(t, 97)),
        "maze.parse_goal": _refusing(maze_goal),
        "longctx.parse_goal": _refusing(longctx_goal),
        "algebra.fork": _fork(AlgebraEnv),
        "maze.fork": _fork(MazeEnv),
        "longctx.fork": _fork(LongCtxEnv),
        "craft.fork": _fork(CraftEnv),
        "algebra.step": _step(AlgebraEnv),
        "maze.step": _step(MazeEnv),
        "longctx.step": _step(LongCtxEnv),
        "craft.step": _step(CraftEnv),
    }


def bound_overhead(calls: int = 2000) -> float:
    """Mean seconds of a trivial call through the bounded worker (started beforehand)."""
    call_bounded("coevo.core.testing.slow_calls:echo", ("x",), 60)
    start = time.perf_counter()
    for _ in range(calls):
        call_bounded("coevo.core.testing.slow_calls:echo", ("x" * 100,), 5)
    return (time.perf_counter() - start) / calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per hostile text")
    parser.add_argument("--limit", type=float, default=1.0, help="seconds a call may take")
    parser.add_argument("--out", default=None, help="write the results as JSON here")
    args = parser.parse_args()
    texts = hostile_texts(args.size) + [(f"small:{t[:24]}", t) for t in SMALL_HOSTILE]
    answers_match("1/2", "0.5")  # start the bounded worker outside the timings
    rows, failures = {}, []
    for name, fn in parsers().items():
        slowest, worst = 0.0, ""
        for text_name, text in texts:
            start = time.perf_counter()
            try:
                fn(text)
            except Exception as exc:  # noqa: BLE001 (reported: a parser must not raise)
                failures.append(f"{name} raised {type(exc).__name__} on {text_name}: {str(exc)[:100]}")
            seconds = time.perf_counter() - start
            if seconds > slowest:
                slowest, worst = seconds, text_name
        rows[name] = {"slowest_s": round(slowest, 4), "on": worst}
        if slowest >= args.limit:
            failures.append(f"{name}: {slowest:.2f} s on {worst}")
        print(f"{name:36s} slowest {slowest * 1000:9.1f} ms  ({worst})", flush=True)
    overhead = bound_overhead()
    print(f"bounded call overhead: {overhead * 1e6:.0f} µs per call")
    verdict = "PASS" if not failures else "FAIL"
    print(f"{verdict}: {len(texts)} hostile texts ({len(texts) - len(SMALL_HOSTILE)} of {args.size:,} characters "
          f"+ {len(SMALL_HOSTILE)} short ones) x {len(rows)} parsers, limit {args.limit} s per call")
    for failure in failures:
        print("  " + failure)
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"command": "python " + " ".join(sys.argv), "machine": platform.platform(),
                       "python": platform.python_version(), "size": args.size, "limit_s": args.limit,
                       "texts": [name for name, _ in texts], "parsers": rows,
                       "bounded_overhead_us": round(overhead * 1e6, 1), "verdict": verdict,
                       "failures": failures}, f, indent=1)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
