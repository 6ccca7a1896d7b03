"""The JSONL loader (GSM8K / MATH rows) and the env's data mode, on small files written here."""

import json

import pytest

from coevo.envs.math.dataset import DataFileError, gold_answer, load_problems
from coevo.envs.math.env import MathEnv

ROWS = [
    {"question": "Tom has 3 apples and buys 4 more. How many?", "answer": "3 + 4 = <<3+4=7>>7\n#### 7"},
    {
        "question": "A shop sells 1000 pens a day for 2 days. How many pens?",
        "answer": "1000*2=2000\n#### 2,000",
    },
    {"problem": "What is $\\frac{1}{2} + \\frac{1}{4}$?", "answer": "\\frac{3}{4}", "type": "Prealgebra"},
    {"problem": "Solve $2x = 10$.", "solution": "Divide by 2: $x = \\boxed{5}$."},
    {"problem": "What is 6 times 7?", "answer": 42},
    {"problem": "What is 9 minus 2?", "answer": "7"},
]


def _write(path, rows):
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n\n")  # a trailing blank line is fine
    return path


@pytest.fixture
def data_file(tmp_path):
    return _write(tmp_path / "train.jsonl", ROWS)


def test_loads_gsm8k_and_math_rows(data_file):
    problems = load_problems(data_file)
    assert [p.answer for p in problems] == ["7", "2000", "\\frac{3}{4}", "5", "42", "7"]
    assert problems[0].text == ROWS[0]["question"]
    assert [p.problem_type for p in problems] == ["data", "data", "Prealgebra", "data", "data", "data"]


@pytest.mark.parametrize(
    "row,expected",
    [
        ({"answer": "blah\n#### 18"}, "18"),
        ({"answer": "#### 1,234"}, "1234"),
        ({"answer": "  12 "}, "12"),
        ({"answer": 3.5}, "3.5"),
        ({"solution": "so \\boxed{\\frac{1}{3}}"}, "\\frac{1}{3}"),
        ({"answer": ""}, None),
        ({}, None),
    ],
)
def test_gold_answer(row, expected):
    assert gold_answer(row) == expected


def test_malformed_rows_name_the_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem": "1+1?", "answer": "2"}\nnot json\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON"):
        load_problems(bad)
    bad.write_text('{"problem": "1+1?"}\n')
    with pytest.raises(ValueError, match=r":1: no 'answer'"):
        load_problems(bad)


def test_missing_file_names_the_key_and_path(tmp_path):
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(DataFileError, match=r"env\.data_file: file not found: .*nope\.jsonl"):
        MathEnv(MathEnv.Config(data_file=str(missing)))
    with pytest.raises(ValueError, match=r"env\.eval_data_file"):  # also a ValueError, for config checks
        MathEnv(
            MathEnv.Config(data_file=str(_write(tmp_path / "t.jsonl", ROWS)), eval_data_file=str(missing))
        )


def test_data_mode_splits(tmp_path, data_file):
    env = MathEnv(MathEnv.Config(data_file=str(data_file), eval_in_distribution_size=2))
    assert env.num_tasks("train") == 4 and env.num_tasks("eval_in_distribution") == 2
    assert env.num_tasks("eval_out_of_distribution") == 0
    assert env.problem(env.task("eval_in_distribution", 1)).answer == "7"  # the last row, held out
    assert env.task("train", 2).task_type == "Prealgebra"
    ood = _write(tmp_path / "ood.jsonl", ROWS[:1])
    evals = _write(tmp_path / "eval.jsonl", ROWS[2:5])
    env = MathEnv(MathEnv.Config(data_file=str(data_file), eval_data_file=str(evals), ood_data_file=str(ood)))
    assert [env.num_tasks(s) for s in env.splits] == [6, 3, 1]
    with pytest.raises(IndexError):
        env.task("eval_out_of_distribution", 1)


def test_expert_wins_every_data_task(data_file):
    env = MathEnv(MathEnv.Config(data_file=str(data_file), eval_in_distribution_size=0))
    for index in range(env.num_tasks("train")):
        env.reset(env.task("train", index))
        result = env.step(env.parse_action(env.format_action(env.expert_action())))
        assert result.won and result.reward == 1.0 and result.done


def test_a_wrong_equivalent_form_is_scored_by_value(data_file):
    env = MathEnv(MathEnv.Config(data_file=str(data_file), eval_in_distribution_size=0))
    env.reset(env.task("train", 2))  # gold \frac{3}{4}
    assert env.step(env.parse_action("so it is \\boxed{0.75}")).won
    env.reset(env.task("train", 1))  # gold 2000 (from "#### 2,000")
    assert env.step(env.parse_action("\\boxed{2,000}")).won
