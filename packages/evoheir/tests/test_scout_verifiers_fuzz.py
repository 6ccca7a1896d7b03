"""The Scout's proposals and the verifiers on hostile text: never raise, bounded in time (in any
thread). Before: ``exact_label('Compute $9^{9^{9}}$.')`` ran > 60 s, ``2^{2^{20}}`` 27 s, and
``check_problem`` accepted ``9^{9^{9}}``."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coevo.core.testing.hostile import SMALL_HOSTILE, hostile_texts, timed
from coevo.evoheir.math_env import Problem, answers_match
from coevo.evoheir.scout import parse_proposal, scout_reply
from coevo.evoheir.verifiers import consensus, exact_label

_BOMBS = ["9^{9^{9}}", "2^{2^{20}}", "10^{5000}", "5000!", "9**9**9", "((2^{31})^{31})^{31}"]
_FUZZ = settings(max_examples=100, deadline=2000, database=None)


@pytest.fixture(scope="module", autouse=True)
def warm_worker():
    answers_match("1/2", "0.5")  # start the bounded worker outside the timings


@pytest.mark.parametrize("bomb", _BOMBS)
def test_costly_problems_get_no_label_and_are_rejected_at_once(bomb):
    assert timed(exact_label, f"Compute ${bomb}$.", limit=0.1) is None
    proposal = timed(parse_proposal, f"Problem: Compute ${bomb}$.\nAnswer: 1", "arithmetic", limit=0.1)
    assert proposal.problem is None and "too large" in proposal.reason


def test_exact_labels_are_bounded_in_a_thread_and_still_computed():
    out = []
    thread = threading.Thread(target=lambda: out.append(
        [timed(exact_label, f"Compute ${b}$.") for b in _BOMBS] + [exact_label("Compute $3 + 4 \\times 2$.")]))
    thread.start()
    thread.join(60)
    assert out == [[None] * len(_BOMBS) + ["11"]]  # 3 + 8


@pytest.mark.parametrize(("text", "label"), [
    ("Solve for $x$: $3x + 5 = 11$.", "2"),  # (11 - 5) / 3
    ("Solve for $x$: $-x + 5 = 11$.", "-6"),  # (11 - 5) / -1
    ("Solve for $x$: $x - 5 = 11$.", "16"),  # 11 + 5
    ("Solve for $x$: $2 x + 1 = 4$.", "3/2"),
    ("Solve for $x$: $" + "1" * 5000 + "x + 1 = 2$.", None),  # too many digits: no label, no ValueError
    ("Solve for $x$: $" + " " * 1900 + "y + 1 = 2$.", None),  # a run of spaces is read once
])
def test_linear_equations_are_labelled_by_their_numbers(text, label):
    assert timed(exact_label, text) == label


@_FUZZ
@given(st.text(max_size=200))
def test_any_reply_is_a_proposal_or_a_reason_quickly(text):
    proposal = timed(parse_proposal, text, "arithmetic")
    assert (proposal.problem is None) == (proposal.reason != "ok")


@_FUZZ
@given(st.text(max_size=80))
def test_any_problem_text_gets_a_label_or_none_quickly(text):
    for problem in (text, f"Compute ${text.replace('$', '')}$."):
        label = timed(exact_label, problem)
        assert label is None or isinstance(label, str)


@_FUZZ
@given(st.lists(st.one_of(st.none(), st.text(max_size=20), st.sampled_from(_BOMBS + ["1", "1.0", "\\frac{2}{2}"])),
                max_size=6))
def test_consensus_of_any_answers_is_quick(answers):
    label, support = timed(consensus, answers, limit=3.0)  # up to 15 comparisons of one bound each
    assert 0.0 <= support <= 1.0 and (label is None) == (support == 0.0)


def test_the_first_problem_marker_and_the_first_answer_after_it_split_a_reply():
    reply = scout_reply(Problem("Compute $2 + 2$.", "4", "arithmetic"))
    assert parse_proposal(reply, "arithmetic").problem == Problem("Compute $2 + 2$.", "4", "arithmetic")
    assert parse_proposal("Problem: Compute $1 + 2$. Answer: 3 Answer: 3", "a").reason.startswith("invalid")
    assert parse_proposal("Problem: Answer: 3", "a").reason == "unparsable"
    assert parse_proposal("Problem: Compute $1+1$. Answer:   ", "a").reason == "unparsable"


@pytest.mark.parametrize(("name", "text"), hostile_texts(1_000_000), ids=lambda v: v if len(v) < 40 else "")
def test_a_megabyte_reply_is_handled_in_under_a_second(name, text):
    timed(parse_proposal, text, "arithmetic")
    timed(parse_proposal, "Problem: Compute $1 + 1$.\nAnswer: " + text, "arithmetic")
    assert timed(exact_label, text) is None
    timed(exact_label, f"Compute ${text[:1900]}$.")
    timed(consensus, [text, text[:200], "1"])


@pytest.mark.parametrize("text", SMALL_HOSTILE)
def test_short_hostile_texts_are_handled_in_under_a_second(text):
    timed(parse_proposal, f"Problem: {text}\nAnswer: {text}", "arithmetic")
    timed(exact_label, f"Compute ${text}$.")
