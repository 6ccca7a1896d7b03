"""Generated problems: deterministic, every gold answer verifies, passes check_problem and is the
true value of the expression or equation (recomputed independently with sympy); OOD problems
use larger numbers and unseen word-problem templates."""

import random
import re

import pytest
import sympy
from math_verify import LatexExtractionConfig, parse

from coevo.envs.math.answers import answers_match
from coevo.envs.math.generator import PROBLEM_TYPES, generate_problem
from coevo.envs.math.problem import task_seed
from coevo.envs.math.scale import scale_for
from coevo.envs.math.symbolic import latex_number
from coevo.envs.math.validity import check_problem
from coevo.envs.math.word_problems import OOD_TEMPLATES, TEMPLATES, word_problem

SPLITS = ("train", "eval_in_distribution", "eval_out_of_distribution")


def _problems(per_combination=4):
    for difficulty in (1, 2, 3, 4, 5):
        for split in SPLITS:
            for problem_type in PROBLEM_TYPES:
                for index in range(per_combination):
                    yield generate_problem(
                        problem_type, split, task_seed(split, index, difficulty), difficulty
                    )


def test_every_generated_answer_verifies_and_passes_the_check():
    for problem in _problems():
        assert check_problem(problem.text, problem.answer) == (True, "ok"), problem
        assert answers_match(problem.answer, problem.answer), problem


def _math_of(text):
    """The sympy value of the $...$ expression after 'Compute' (math-verify's LaTeX parser)."""
    latex = re.search(r"\$(.*?)\$", text).group(1)
    return parse(f"${latex}$", extraction_config=[LatexExtractionConfig()])[0]


@pytest.mark.parametrize("problem_type", ["arithmetic", "fractions", "addition"])
def test_expression_answers_are_the_expression_values(problem_type):
    for difficulty in (1, 3, 5):
        for index in range(8):
            problem = generate_problem(problem_type, "train", task_seed("train", index, 0), difficulty)
            value = sympy.nsimplify(_math_of(problem.text))
            gold = parse(f"${problem.answer}$", extraction_config=[LatexExtractionConfig()])[0]
            assert sympy.simplify(value - gold) == 0, problem


@pytest.mark.parametrize("problem_type", ["linear_equation", "one_step_equation"])
def test_equation_answers_solve_the_equation(problem_type):
    for difficulty in (1, 2, 3, 5):
        for index in range(8):
            problem = generate_problem(problem_type, "train", task_seed("train", index, 0), difficulty)
            equation = re.search(r"\$: \$(.*?)\$", problem.text).group(1)
            left, right = equation.split("=")
            lhs = parse(f"${left}$", extraction_config=[LatexExtractionConfig()])[0]
            rhs = parse(f"${right}$", extraction_config=[LatexExtractionConfig()])[0]
            (x,) = lhs.free_symbols | rhs.free_symbols  # math-verify's own symbol x
            solutions = sympy.solve(sympy.Eq(lhs, rhs), x)
            assert solutions == [sympy.Integer(int(problem.answer))], problem


def test_the_basic_tier_at_difficulty_1_is_the_single_digit_table_and_its_inverse():
    additions, equations = set(), set()
    for index in range(3000):
        seed = task_seed("train", index, 0)
        a, b = map(int, re.fullmatch(r"Compute \$(\d) \+ (\d)\$\.", generate_problem("addition", "train", seed, 1).text)
                   .groups())
        additions.add((a, b))
        problem = generate_problem("one_step_equation", "train", seed, 1)
        a, total = map(int, re.fullmatch(r"Solve for \$x\$: \$x \+ (\d) = (\d+)\$\.", problem.text).groups())
        assert int(problem.answer) == total - a and 1 <= int(problem.answer) <= 9
        equations.add((a, total))
    digits = range(1, 10)
    assert additions == {(a, b) for a in digits for b in digits}  # all 81 facts, nothing else
    assert equations == {(a, x + a) for a in digits for x in digits}


def test_hand_checked_word_problems():
    scale = scale_for(1, False)
    # _buys_more: a + b ; _gives_away: a - b ; _boxes: a * b (templates 0, 1, 2)
    text, answer = TEMPLATES[0](random.Random(0), scale)
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    assert "buys" in text and answer == numbers[0] + numbers[1]
    text, answer = TEMPLATES[1](random.Random(0), scale)
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    assert "gave" in text and answer == numbers[0] - numbers[1] and answer > 0
    text, answer = TEMPLATES[2](random.Random(0), scale)
    numbers = [int(n) for n in re.findall(r"\d+", text)]
    assert "box holds" in text and answer == numbers[0] * numbers[1]
    # _perimeter (OOD): 2 (a + b)
    text, answer = OOD_TEMPLATES[2](random.Random(0), scale)
    a, b = (int(n) for n in re.findall(r"\d+", text))
    assert "perimeter" in text and answer == 2 * (a + b)


def test_deterministic_and_split_dependent():
    a = generate_problem("word_problem", "train", 123, 2)
    assert a == generate_problem("word_problem", "train", 123, 2)
    texts = {generate_problem("arithmetic", "train", s, 2).text for s in range(20)}
    assert len(texts) > 15


def test_out_of_distribution_numbers_are_larger_and_templates_unseen():
    def biggest(split):
        return max(
            int(n)
            for i in range(30)
            for n in re.findall(r"\d+", generate_problem("arithmetic", split, task_seed(split, i, 0), 1).text)
        )

    assert biggest("train") < 10 <= biggest("eval_out_of_distribution")
    for i in range(40):
        ood = word_problem(random.Random(i), scale_for(1, True), out_of_distribution=True)
        train = word_problem(random.Random(i), scale_for(1, False), out_of_distribution=False)
        assert any(k in ood.text for k in ("train travels", "saves", "rectangle", "packs of"))
        assert not any(k in train.text for k in ("train travels", "saves", "rectangle", "packs of"))


@pytest.mark.parametrize("value,latex", [(7, "7"), (-3, "-3"), (0, "0")])
def test_latex_number_integers(value, latex):
    assert latex_number(value) == latex


def test_latex_number_fractions():
    from fractions import Fraction

    assert latex_number(Fraction(6, 8)) == "\\frac{3}{4}"
    assert latex_number(Fraction(-1, 2)) == "-\\frac{1}{2}"


def test_unknown_type_and_bad_difficulty_raise():
    with pytest.raises(ValueError, match="unknown problem type"):
        generate_problem("geometry", "train", 0, 1)
    with pytest.raises(ValueError, match="difficulty"):
        generate_problem("arithmetic", "train", 0, 9)
