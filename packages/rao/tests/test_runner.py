"""The tree runner on the forkable ``rao_sums`` env: launches, joins, refusals, budgets, schedules."""

from dataclasses import replace

from rao_script import PROMPT, ScriptDecider, oracle_text
from rao_sums_env import SumsConfig, SumsEnv

from coevo.rao.deciders import OracleDecider
from coevo.rao.runner import TreeRunner
from coevo.rao.settings import BudgetSettings, DelegationSettings, RecursionSettings
from coevo.rao.tree import DONE


def _run(decider, length=8, settings=None, schedule="batched", tasks=1, prompt=PROMPT):
    settings = replace(settings or RecursionSettings(), schedule=schedule)
    envs = [SumsEnv(SumsConfig(length=length)) for _ in range(tasks)]
    runner = TreeRunner(prompt, settings)
    return runner.run([envs[0].task("train", i) for i in range(tasks)], envs, decider)


def _halves(request):
    """Delegate the two halves of the list (even when the list cannot be split any more)."""
    digits = request.env.goal.split()[1:]
    half = max(1, len(digits) // 2)
    return f"<delegate>add {' '.join(digits[:half])}</delegate><delegate>add {' '.join(digits[half:])}</delegate>"


def test_oracle_tree_is_solved_and_every_parent_reads_its_childrens_reports():
    tree = _run(OracleDecider(4))[0]
    assert tree.won and all(n.won for n in tree.nodes) and all(n.status == DONE for n in tree.nodes)
    assert [n.depth for n in tree.nodes] == [0, 1, 1, 2, 2, 2, 2]
    assert tree.nodes[0].children == [1, 2] and tree.nodes[1].children == [3, 4]
    root = tree.nodes[0]
    launch, answer = root.episode.turns
    assert launch.action.startswith("<delegate>") and launch.observation.startswith("Sub-agent 1 'add ")
    assert "finished after 4 steps (1 left): answered" in launch.observation  # subtree: 2 turns + 2 leaves; 3 - 2 left
    assert "partials: " in answer.messages[-1]["content"] and "Budget: 2 steps left" in answer.messages[-1]["content"]
    assert tree.env_steps == 7 and tree.turns == 10
    assert "You may delegate" in root.first_message and "You may delegate" in tree.nodes[3].first_message
    capped = _run(OracleDecider(4), settings=RecursionSettings(budget=BudgetSettings(max_depth=2)))[0]
    assert "You may delegate" not in capped.nodes[3].first_message  # depth 2 = the cap: it cannot delegate


def test_fork_isolation_a_child_changes_its_parent_only_through_join():
    env = SumsEnv(SumsConfig(length=4))
    env.reset(env.task("train", 3))
    before = env.snapshot()
    child, observation = env.fork("add " + " ".join(map(str, env.digits[:2])))
    child.step(f"answer {sum(child.digits)}")
    assert env.snapshot() == before and "add" in observation
    assert env.join(child).startswith("answered") and env.partials == [sum(child.digits)]


def test_depth_cap_refuses_launches_and_the_run_ends():
    settings = RecursionSettings(budget=BudgetSettings(max_depth=1))
    tree = _run(ScriptDecider(_halves), settings=settings)[0]
    assert max(n.depth for n in tree.nodes) == 1
    assert len(tree.nodes[0].children) == 6  # the root launches two children in each of its 3 turns
    assert tree.refusals["depth"] == 6 * 3 * 2  # 6 children x 3 turns each x two goals per launch
    child = tree.nodes[1]
    assert child.end == "out_of_steps" and "depth limit reached" in child.episode.turns[0].observation
    assert "stopped: out of steps" in tree.nodes[0].episode.turns[0].observation


def test_a_child_delegating_its_own_goal_is_refused_as_a_loop():
    def same_goal_again(request):
        return f"<delegate>{request.env.goal}</delegate>"

    tree = _run(ScriptDecider(same_goal_again), length=4)[0]
    assert len(tree.nodes) == 1 and tree.refusals["loop"] == 3  # every turn of the root, then out of steps
    assert tree.nodes[0].end == "out_of_steps"


def test_unforkable_goals_empty_goals_and_malformed_replies_are_counted_not_raised():
    replies = iter(["<delegate>add 9 9</delegate><delegate></delegate>", "<delegate>add 1", "oops"])
    tree = _run(ScriptDecider(lambda r: next(replies)), length=4)[0]
    root = tree.nodes[0]
    assert tree.refusals["fork"] == 1 and tree.refusals["empty"] == 1 and tree.malformed == 1
    first, second, third = root.episode.turns
    assert "cannot fork (not a shorter run" in first.observation and "empty goal" in first.observation
    assert not first.invalid and second.invalid and "Malformed delegation: unbalanced" in second.observation
    assert third.invalid and third.observation == SumsEnv.invalid_observation
    assert root.episode.num_invalid == 2 and root.end == "out_of_steps"


def test_children_that_never_finish_return_when_their_budget_ends():
    def stall(request):  # the root delegates, then answers; children never finish a reply
        if request.env.goal.count(" ") == 8:
            return "<action>answer 0</action>" if "Sub-agent" in request.messages[-1]["content"] else _halves(request)
        return "<action>answer", False

    settings = RecursionSettings(budget=BudgetSettings(agent_steps=4))
    tree = _run(ScriptDecider(stall), settings=settings)[0]
    children = [tree.nodes[c] for c in tree.nodes[0].children]
    assert [c.end for c in children] == ["out_of_steps", "out_of_steps"]
    assert all(c.turns_taken == 4 and c.episode.num_invalid == 4 for c in children)  # unfinished replies
    assert "'add " in tree.nodes[0].episode.turns[0].observation


def test_shared_budget_stops_the_whole_tree():
    settings = RecursionSettings(budget=BudgetSettings(mode="shared", tree_steps=5, max_depth=5))
    tree = _run(ScriptDecider(_halves), settings=settings, length=16)[0]
    assert tree.turns == 5 and tree.shared_left == 0
    assert tree.done and tree.nodes[0].end == "out_of_steps"
    assert tree.refusals["budget"] >= 1


def test_suggested_sub_goals_are_shown_where_the_agent_may_delegate():
    settings = RecursionSettings(DelegationSettings(show_options=True), BudgetSettings(max_depth=2))
    tree = _run(OracleDecider(4), settings=settings)[0]
    root, leaf = tree.nodes[0], tree.nodes[3]
    shown = root.episode.turns[0].messages[-1]["content"]
    assert f"Sub-goals: #1 {tree.nodes[1].goal} | #2 {tree.nodes[2].goal}\nBudget:" in shown
    assert root.episode.turns[0].response_text == "<delegate>#1</delegate><delegate>#2</delegate>"
    assert tree.won and [n.goal for n in tree.nodes[1:3]] == [g.split(" ", 1)[1] for g in shown.split(
        "Sub-goals: ")[1].split("\n")[0].split(" | ")]  # the numbers launched the listed goals
    assert "Sub-goals" not in root.episode.turns[1].messages[-1]["content"]  # the oracle answers now
    assert "Sub-goals" not in leaf.episode.turns[0].messages[-1]["content"]  # at the depth cap


def test_a_sub_goal_number_that_was_not_listed_is_refused():
    settings = RecursionSettings(DelegationSettings(show_options=True))
    replies = iter(["<delegate>#3</delegate><delegate>#2</delegate>", "<delegate>#1</delegate>"])
    tree = _run(ScriptDecider(lambda r: next(replies, "<action>answer 0</action>")), settings=settings, length=8)[0]
    first = tree.nodes[0].episode.turns[0]
    assert tree.refusals["reference"] == 1 and "Refused '#3': no such sub-goal number" in first.observation
    assert len(tree.nodes[0].children) == 1 and tree.nodes[1].goal.startswith("add ")


def test_ancestor_context_shows_the_chain_of_goals():
    settings = RecursionSettings(DelegationSettings(context="ancestors"))
    tree = _run(OracleDecider(4), settings=settings)[0]
    grandchild = tree.nodes[3]
    assert f"Ancestors: {tree.nodes[0].goal} > {tree.nodes[1].goal}" in grandchild.first_message
    assert "Ancestors" not in tree.nodes[0].first_message


def test_batched_and_sequential_play_the_same_trees_with_different_batching():
    batched_decider, sequential_decider = ScriptDecider(oracle_text), ScriptDecider(oracle_text)
    batched = _run(batched_decider, schedule="batched", tasks=3)
    sequential = _run(sequential_decider, schedule="sequential", tasks=3)
    shape = [[(n.parent, n.goal, [t.response_text for t in n.episode.turns]) for n in t.nodes] for t in batched]
    assert shape == [[(n.parent, n.goal, [t.response_text for t in n.episode.turns]) for n in t.nodes]
                     for t in sequential]
    assert set(sequential_decider.calls) == {1} and sum(sequential_decider.calls) == sum(batched_decider.calls)
    assert len(batched_decider.calls) == 5  # rounds: launch, launch, leaves, parents answer, root answers
    assert max(batched_decider.calls) == 12  # the 4 leaves of each of the 3 trees in one call
