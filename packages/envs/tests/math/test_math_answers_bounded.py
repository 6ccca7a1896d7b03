"""Every math verification is bounded — gold answers too, in any thread: hostile answers are
refused at once by the pre-check, anything else runs in the bounded worker and a comparison that
outlives ``VERIFY_TIMEOUT_S`` does not match (the worker is replaced, later calls work)."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core import time_bound
from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.envs.math import answers
from coevo.envs.math.answers import answers_match, extract_boxed
from coevo.envs.math.env import MathEnv
from coevo.envs.math.validity import check_problem

_BOMBS = ["9^{9^{9}}", "2^{2^{20}}", "10^{5000}", "5000!", "(1000!)^{1000}", "9**9**9"]
_FUZZ = settings(max_examples=100, deadline=2000, database=None)


@pytest.fixture(scope="module", autouse=True)
def warm_worker():
    answers_match("1/2", "0.5")  # start the worker (and math-verify's parser) outside the timings


@pytest.mark.parametrize("bomb", _BOMBS)
def test_costly_gold_and_predicted_answers_do_not_match_at_once(bomb):
    assert not timed(answers_match, bomb, "1", limit=0.1)
    assert not timed(answers_match, "1", bomb, limit=0.1)
    assert timed(answers_match, bomb, bomb, limit=0.1)  # identical text still matches, unparsed


def test_the_bound_holds_in_a_thread():
    # answers_match('9^{9^{9}}', '1') ran > 45 s in a thread before (signal.alarm is main-thread only)
    results = []
    thread = threading.Thread(target=lambda: results.append(
        [timed(answers_match, g, "1") for g in _BOMBS] + [timed(answers_match, "\\frac{1}{2}", "0.5")]))
    thread.start()
    thread.join(30)
    assert results == [[False] * len(_BOMBS) + [True]]


def test_a_comparison_that_runs_out_of_time_does_not_match_and_the_next_one_works(monkeypatch):
    timeouts = time_bound.stats["timeouts"]
    monkeypatch.setattr(answers, "VERIFY_TIMEOUT_S", 1e-6)  # no comparison can finish in a microsecond
    assert not answers_match("\\frac{1}{2}", "0.5")
    assert time_bound.stats["timeouts"] == timeouts + 1
    monkeypatch.setattr(answers, "VERIFY_TIMEOUT_S", 60.0)  # the replacement worker starts, then answers
    assert answers_match("\\frac{1}{2}", "0.5")


@_FUZZ
@given(st.text(max_size=60), st.text(max_size=60))
def test_any_pair_of_texts_is_compared_quickly_without_raising(gold, prediction):
    assert timed(answers_match, gold, prediction) in (True, False)


@_FUZZ
@given(st.text(max_size=120), st.text(max_size=40))
def test_any_problem_is_checked_quickly_without_raising(problem, answer):
    ok, reason = timed(check_problem, problem, answer)
    assert isinstance(ok, bool) and reason


@pytest.mark.parametrize("bomb", _BOMBS)
def test_problems_whose_answer_cannot_be_computed_in_time_are_refused(bomb):
    ok, reason = timed(check_problem, f"Compute ${bomb}$.", "1", limit=0.1)
    assert not ok and "too large" in reason
    assert not timed(check_problem, "Compute $2+2$.", bomb, limit=0.1)[0]


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_reply_is_read_and_checked_in_under_a_second(name, text):
    env = MathEnv()
    env.reset(env.task("train", 0))
    action = timed(env.parse_action, text)
    timed(env.step, action if action is not None else text)
    timed(extract_boxed, text)
    assert not timed(answers_match, text, "1") and not timed(answers_match, "1", text)


@pytest.mark.parametrize("text", SMALL_HOSTILE)
def test_short_hostile_answers_are_checked_in_under_a_second(text):
    timed(answers_match, "1", text)
    timed(answers_match, text, "1")
    timed(check_problem, "Compute $1 + 1$.", text)
