"""Exact match and token F1 against hand-computed values (SQuAD normalisation)."""

import pytest

from coevo.envs.search.metrics import exact_match, f1_score, normalize_answer


@pytest.mark.parametrize(
    "text,normalised",
    [
        ("The Beatles", "beatles"),
        ("  an  Apple, a day! ", "apple day"),
        ("U.S.A.", "usa"),
        ("Theory of the Leisure Class", "theory of leisure class"),
        ("Athens", "athens"),  # "the" inside a word is kept
        ("", ""),
    ],
)
def test_normalize(text, normalised):
    assert normalize_answer(text) == normalised


# (prediction, gold answers, EM, F1), F1 worked out by hand from the normalised tokens
CASES = [
    ("Paris", ["Paris"], 1.0, 1.0),
    ("the Paris", ["Paris"], 1.0, 1.0),  # article removed
    ("paris.", ["Paris"], 1.0, 1.0),  # case and punctuation
    ("Stanley Hall", ["G. Stanley Hall", "Stanley Hall"], 1.0, 1.0),  # any gold counts
    ("G Stanley Hall", ["Stanley Hall"], 0.0, 0.8),  # p = 2/3, r = 1 -> 2*(2/3)/(5/3) = 0.8
    ("Barack Obama", ["Obama"], 0.0, 2 / 3),  # p = 1/2, r = 1 -> 2/3
    ("New York City", ["New York"], 0.0, 0.8),
    ("London", ["Paris"], 0.0, 0.0),
    ("yes", ["no"], 0.0, 0.0),
    ("no", ["no"], 1.0, 1.0),
    ("yes it is", ["yes"], 0.0, 0.0),  # HotpotQA: a yes/no gold needs exactly yes/no (else 1/3 overlap: 0.5)
    ("it is red", ["red"], 0.0, 0.5),  # p = 1/3, r = 1 -> 0.5
    ("", ["Paris"], 0.0, 0.0),
    ("the", ["a"], 1.0, 0.0),  # both normalise to "" (EM) but share no token (F1)
    ("1,000", ["1000"], 1.0, 1.0),
]


@pytest.mark.parametrize("prediction,golds,em,f1", CASES)
def test_em_and_f1(prediction, golds, em, f1):
    assert exact_match(prediction, golds) == em
    assert f1_score(prediction, golds) == pytest.approx(f1)


def test_a_single_gold_string_is_accepted():
    assert exact_match("Paris", "paris") == 1.0 and f1_score("Paris", "paris") == 1.0
    assert f1_score("x", []) == 0.0 and exact_match("x", []) == 0.0
