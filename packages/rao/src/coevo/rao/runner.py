"""Run recursion trees to the end: rounds of decisions, launches, forks and joins.

One round: every agent ready to act (``batched``: across all trees of the batch;
``sequential``: exactly one agent) gets its prompt, one decider call answers all of them, and
each reply is applied — an environment action steps the agent's own environment; a delegation
is admitted goal by goal (``budget.admit``), each admitted goal is forked from the agent's
environment (``env.fork``; a ``ForkError`` is a refusal) and the agent waits. When the last
child of a launch has ended, the parent joins every child in launch order (``env.join``) and
reads one observation: each child's finish message (the join's description of what changed,
else the child's last observation), how it ended and the steps its subtree used, then the
refusals of that launch, with its budget line in the next prompt. Children of one parent thus
act in the same rounds (batched) or one after another (sequential). Nothing here can loop
forever: every turn costs a step of a finite budget and launches are capped in depth and size.
Nothing an agent writes can end the run either: an exception from the environment's
``parse_action``, ``step``, ``fork`` or ``join`` (a bug; ``ForkError`` is the intended refusal)
is an invalid action or a refused goal, counted in the agent's ``Episode.env_errors``
(``invalid/env_errors``) and logged once per kind (``coevo.core.env.guard``).
"""

from __future__ import annotations

import time

from coevo.core.agent.prompt import PromptSettings
from coevo.core.agent.types import Episode, Turn
from coevo.core.env.guard import guarded_parse, guarded_step, report
from coevo.core.env.protocol import Environment, ForkError, Task
from coevo.rao import messages as text
from coevo.rao.budget import admit, charge, steps_left
from coevo.rao.deciders import Decider, Reply, Request, oracle_goals
from coevo.rao.prompting import first_message, fit_prompt
from coevo.rao.protocol import Delegation, Malformed, format_delegation, parse_reply, reference, resolve
from coevo.rao.settings import RecursionSettings
from coevo.rao.tree import ACTING, DONE, PENDING, WAITING, Node, Tree


class TreeRunner:
    def __init__(self, prompt: PromptSettings, recursion: RecursionSettings, tokenizer=None,
                 max_turns: int | None = None):
        self.prompt = prompt
        self.settings = recursion
        self.tokenizer = tokenizer  # None: prompts are not tokenized or cut (oracle demonstrations)
        self.max_turns = max_turns  # agent.max_turns: a cap on every agent's turns besides its budget

    # -- public ---------------------------------------------------------------------------------
    def run(self, tasks: list[Task], envs: list[Environment], decider: Decider, group_ids: list[int] | None = None,
            mode: str = "generate") -> list[Tree]:
        """Play ``tasks[i]`` in ``envs[i]`` as recursive agents; ``mode``: generate | choose."""
        if len(tasks) != len(envs):
            raise ValueError(f"{len(tasks)} tasks for {len(envs)} environments")
        group_ids = group_ids if group_ids is not None else list(range(len(tasks)))
        start = time.perf_counter()
        trees = [self._plant(task, env, gid) for task, env, gid in zip(tasks, envs, group_ids)]
        if self.settings.schedule == "batched":
            self._play(trees, decider, mode, start)
        else:
            for tree in trees:
                self._play([tree], decider, mode, time.perf_counter())
        return trees

    # -- rounds ---------------------------------------------------------------------------------
    def _play(self, trees: list[Tree], decider: Decider, mode: str, start: float) -> None:
        live = list(trees)
        while live:
            ready = [(t, n) for t in live for n in t.nodes if n.status == ACTING]
            if not ready:
                raise RuntimeError("recursion tree stalled: agents wait but none can act (a bug in coevo-rao)")
            requests, owners = [], []
            for tree, node in ready:
                request = self._request(tree, node, mode)
                if request is not None:
                    requests.append(request)
                    owners.append((tree, node))
            replies = decider.decide(requests) if requests else []
            for (tree, node), request, reply in zip(owners, requests, replies):
                self._apply(tree, node, request, reply)
            for tree in live:
                self._settle(tree)
                if tree.done:
                    tree.seconds = time.perf_counter() - start
            live = [t for t in live if not t.done]

    def _request(self, tree: Tree, node: Node, mode: str) -> Request | None:
        """The node's request, or ``None`` after ending it (no steps left, prompt too long, nothing to do)."""
        left = steps_left(tree, node, self.settings)
        if left <= 0 or (self.max_turns is not None and node.turns_taken >= self.max_turns):
            self._finish(node, "out_of_steps")
            return None
        may_delegate = self._may_delegate(tree, node)
        lines = [text.budget_line(left, tree.shared_left is not None)]
        node.shown = []
        if may_delegate and self.settings.delegation.show_options:
            node.shown = oracle_goals(node.env, self.settings.delegation.max_children)
            lines = ([text.options_line(node.shown)] if node.shown else []) + lines
        fitted = fit_prompt(self.prompt, node, "\n".join(lines), self.tokenizer)
        if fitted is None:
            node.episode.context_overflow = True
            self._finish(node, "context_overflow")
            return None
        options = self._options(node, may_delegate) if mode == "choose" else None
        if options == []:
            self._finish(node, "no_actions")
            return None
        charge(tree, node)  # now, so that agents of one round cannot overdraw a shared budget
        return Request(node.env, fitted[0], fitted[1], options, may_delegate, list(node.shown))

    def _may_delegate(self, tree: Tree, node: Node) -> bool:
        s = self.settings
        room = tree.shared_left is None or tree.shared_left > 1  # this turn costs one; a child needs one
        return s.can_delegate and node.depth < s.budget.max_depth and len(tree.nodes) < s.budget.max_nodes and room

    def _options(self, node: Node, may_delegate: bool) -> list[str]:
        """Choice mode: the environment's commands, then the delegations on offer."""
        options = [node.env.format_action(a) for a in node.env.admissible_actions()]
        d = self.settings.delegation
        if may_delegate and d.options == "oracle":
            goals = oracle_goals(node.env, d.max_children)
            if node.shown == goals:  # listed in the prompt: the candidates name them by number
                goals = [reference(k) for k in range(1, len(goals) + 1)]
            if goals:
                options.append(format_delegation(goals))
            if d.singles and len(goals) > 1:
                options += [format_delegation([g]) for g in goals]
        return options

    # -- one reply ------------------------------------------------------------------------------
    def _apply(self, tree: Tree, node: Node, request: Request, reply: Reply) -> None:
        turn = Turn(request.prompt_ids, reply.response_ids, reply.logprobs, reply.text, None, "", 0.0, False,
                    messages=request.messages)
        if reply.candidates is not None:
            turn.candidates, turn.choice, turn.choice_logprob = reply.candidates, reply.choice, reply.choice_logprob
        node.episode.turns.append(turn)
        parsed = parse_reply(reply.text) if reply.finished else None
        if not reply.finished:
            self._observe(node, turn, node.env.invalid_observation, invalid=True)
        elif isinstance(parsed, Malformed):
            tree.malformed += 1
            self._observe(node, turn, text.malformed(parsed.reason), invalid=True)
        elif isinstance(parsed, Delegation):
            turn.action = format_delegation(parsed.goals)
            self._launch(tree, node, turn, parsed.goals)
        else:
            self._act(node, turn)

    def _act(self, node: Node, turn: Turn) -> None:
        action, failed = guarded_parse(node.env, turn.response_text)
        node.episode.env_errors += int(failed)
        if action is None:
            self._observe(node, turn, node.env.invalid_observation, invalid=True)
            return
        result, failed = guarded_step(node.env, action)
        node.episode.env_errors += int(failed)
        node.env_steps += 1
        turn.action, turn.reward = action, result.reward
        node.episode.won = node.episode.won or result.won
        self._observe(node, turn, result.observation, invalid=result.invalid)
        if result.done:
            self._finish(node, "env_done")

    def _observe(self, node: Node, turn: Turn, observation: str, invalid: bool) -> None:
        turn.observation, turn.invalid = observation, invalid
        node.episode.num_invalid += int(invalid)
        node.history.append((turn.response_text, observation))

    @staticmethod
    def _finish(node: Node, end: str) -> None:
        node.status, node.end = DONE, end

    # -- launches and joins ---------------------------------------------------------------------
    def _launch(self, tree: Tree, node: Node, turn: Turn, goals: tuple[str, ...]) -> None:
        resolved = [(g, resolve(g, node.shown)) for g in goals]
        unknown = [g for g, full in resolved if full is None]
        admitted, refused = admit(tree, node, [full for _, full in resolved if full is not None], self.settings)
        refused = [(g, "reference") for g in unknown] + refused
        notes = [text.refusal(goal, kind) for goal, kind in refused]
        for _, kind in refused:
            tree.refusals[kind] += 1
        children = []
        for goal in admitted:
            try:
                child_env, observation = node.env.fork(goal)
            except ForkError as exc:
                tree.refusals["fork"] += 1
                notes.append(text.refusal(goal, "fork", str(exc)))
                continue
            except Exception as exc:  # noqa: BLE001 (an environment bug refuses this goal, not the run)
                node.episode.env_errors += 1
                tree.refusals["fork"] += 1
                notes.append(text.refusal(goal, "fork", report(node.env, "fork", exc)))
                continue
            children.append(self._add_child(tree, node, goal, child_env, observation))
        if not children:
            self._observe(node, turn, "\n".join(notes), invalid=False)
            return
        node.status, node.waiting_on, node.notes = WAITING, [c.index for c in children], notes
        if self.settings.schedule == "sequential":
            for child in children[1:]:
                child.status = PENDING

    def _add_child(self, tree: Tree, parent: Node, goal: str, env: Environment, observation: str) -> Node:
        depth = parent.depth + 1
        chain = None
        if self.settings.delegation.context == "ancestors":
            chain = [a.goal for a in tree.ancestors(parent)] + [parent.goal]
        hint = self.settings.delegation.hint and self.settings.can_delegate and depth < self.settings.budget.max_depth
        child = Node(len(tree.nodes), parent.index, depth, goal, env,
                     first_message(self.prompt, observation, env, chain, hint), Episode(tree.task, tree.group_id),
                     verifiable=bool(getattr(env, "goal_verifiable", True)))
        tree.nodes.append(child)
        parent.children.append(child.index)
        return child

    def _settle(self, tree: Tree) -> None:
        """Resume every parent whose launch has fully ended; start the next pending child (sequential)."""
        for node in tree.nodes:
            if node.status != WAITING:
                continue
            children = [tree.nodes[c] for c in node.waiting_on]
            running = [c for c in children if c.status != DONE]
            if running:
                if running[0].status == PENDING and not any(c.status in (ACTING, WAITING) for c in running):
                    running[0].status = ACTING
                continue
            lines = []
            for number, child in enumerate(children, 1):
                try:
                    result = node.env.join(child.env) or child.last_observation
                except Exception as exc:  # noqa: BLE001 (an environment bug loses this child's effects only)
                    node.episode.env_errors += 1
                    result = f"{child.last_observation} ({report(node.env, 'join', exc)})"
                lines.append(text.child_report(number, child.goal, child.end, result, tree.subtree_turns(child),
                                               steps_left(tree, child, self.settings)))
            self._observe(node, node.episode.turns[-1], "\n".join(lines + node.notes), invalid=False)
            node.status, node.waiting_on, node.notes = ACTING, [], []

    def _plant(self, task: Task, env: Environment, group_id: int) -> Tree:
        observation = env.reset(task)
        shared = self.settings.budget.tree_steps if self.settings.budget.mode == "shared" else None
        tree = Tree(task, group_id, shared_left=shared)
        hint = self.settings.delegation.hint and self.settings.can_delegate
        tree.nodes.append(Node(0, None, 0, env.goal, env, first_message(self.prompt, observation, env, None, hint),
                               Episode(task, group_id)))
        return tree
