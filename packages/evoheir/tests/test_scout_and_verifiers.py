"""Scout replies are parsed without ever raising; consensus and exact labels."""

import pytest

from coevo.evoheir.scout import parse_proposal, scout_prompt, scout_reply, scout_warmup_examples
from coevo.evoheir.verifiers import consensus, exact_label


@pytest.mark.parametrize("text, reason", [
    ("", "empty"),
    ("   ", "empty"),
    (None, "empty"),
    ("Probm: Solve for $5x$\nAnswer: 14", "unparsable"),
    ("Problem: Compute $3 + 4$.", "unparsable"),
    ("Problem: Compute $3 + 4$.\nAnswer: 3, 4", "invalid"),
    ("Problem: Compute $\\boxed{7}$.\nAnswer: 7", "invalid"),
    ("Problem: {{{\nAnswer: 1", "invalid"),
    ("Problem: Compute $3 + 4$.\nAnswer: 7", "ok"),
])
def test_parse_proposal(text, reason):
    proposal = parse_proposal(text, "arithmetic")
    assert proposal.reason.split(":")[0] == reason
    assert (proposal.problem is not None) == (reason == "ok")


def test_warmup_examples_round_trip():
    pairs = scout_warmup_examples(["arithmetic", "word_problem"], 4, 5_000_000, 0, 1)
    assert [p for p, _ in pairs] == [scout_prompt("arithmetic"), scout_prompt("word_problem")] * 2  # type = index mod 2
    for _, reply in pairs:
        parsed = parse_proposal(reply, "x")
        assert parsed.reason == "ok" and scout_reply(parsed.problem) == reply


def test_consensus_clusters_equivalent_answers():
    # 0.5 and 1/2 are one cluster of 2 among 5 samples (the unparsed one counts): support 2/5
    assert consensus(["1/2", "0.5", "3", None, "4"]) == ("1/2", 0.4)
    assert consensus([None, None]) == (None, 0.0)
    assert consensus([]) == (None, 0.0)


def test_exact_label():
    assert exact_label("Compute $3 \\times 3 + 3$.") == "12"
    assert exact_label("Compute $\\frac{9}{5} + \\frac{7}{5}$. Give the answer as a fraction.") == "16/5"
    assert exact_label("Solve for $x$: $2x + 1 = -17$.") == "-9"  # 2x = -18
    assert exact_label("Solve for $x$: $-6x - 5 = -47$.") == "7"  # -6x = -42
    assert exact_label("Solve for $x$: $41x for 2 26$.") is None
    assert exact_label("A box holds 3 cookies. How many cookies are there in 2 boxes?") is None
