"""``algo.host=r_zero``: R-Zero-style co-evolution of a Scout (challenger) and a Learner (solver).

One explore step:
1. The Scout (the same policy, Scout prompt) writes ``scout.attempts`` problems, round-robin
   over the env's problem types. Empty, unparsable or invalid replies are counted and skipped.
2. The Learner answers each valid problem ``scout.consensus_answers`` times. The verifier labels
   it: ``consensus`` (largest answer cluster; admitted when its support ≥ ``scout.min_support``)
   or ``exact`` (the computed answer; admitted when computable).
3. Rewards: a Scout reply earns 1 − 2·|p − ½| (p: the Learner's agreement with the label, highest
   at 50% solver uncertainty), 0 when rejected or unlabelled; the Learner's answers earn 1 when
   they match the label. Both get group-normalised advantages (Scout: per problem type;
   Learner: per problem) and one joint policy-gradient step.
4. Admitted problems with a reply reaching the label become experience records.
"""

from __future__ import annotations

from collections import Counter

import torch

from coevo.core import registry
from coevo.core.agent.groups import play_groups
from coevo.core.algos.batching import Sample
from coevo.core.algos.grpo import episode_samples
from coevo.core.policy.conversation import render_prompt
from coevo.core.rollout.engine import SamplingSettings
from coevo.evoheir.experience import Record
from coevo.evoheir.hosts.objective import episode_tokens, policy_gradient_step
from coevo.evoheir.math_env import answers_match
from coevo.evoheir.paired import R_ZERO_EXPLORE_STREAM, derived_seed
from coevo.evoheir.proposed_env import proposed_envs
from coevo.evoheir.scout import Proposal, parse_proposal, scout_prompt
from coevo.evoheir.verifiers import consensus, exact_label


class RZeroHost:
    def __init__(self, module):
        self.module = module
        self.examples: list[tuple[str, str]] = []  # (raw Scout reply, verdict) of the latest step, a few

    def _propose(self, seed: int):
        m, s = self.module, self.module.config.scout
        types = list(m.math_config.problem_types)
        kinds = [types[i % len(types)] for i in range(s.attempts)]
        tokenizer = m.context.tokenizer
        prompts = [render_prompt(tokenizer, [{"role": "user", "content": scout_prompt(k)}]) for k in kinds]
        torch.manual_seed(seed)
        m.engine.sync_weights(m.policy)
        with torch.no_grad():
            generations = m.engine.generate(prompts, SamplingSettings(m.context.agent.sampling.temperature, m.context.agent.sampling.top_p, s.max_new_tokens))
        eos = tokenizer.eos_token_id
        proposals = []
        for gen in generations:
            text = tokenizer.decode([t for t in gen.token_ids if t != eos], skip_special_tokens=False)
            proposal = parse_proposal(text, kinds[len(proposals)])
            if not gen.finished and proposal.problem is not None:  # cut off at max_new_tokens
                proposal = Proposal(text, proposal.problem_type, None, "unfinished")
            proposals.append(proposal)
        self.examples = [(p.text[:200], p.reason) for p in proposals[:3]]
        tokens = sum(len(p) + len(g.token_ids) for p, g in zip(prompts, generations))
        return kinds, prompts, generations, proposals, tokens

    def _label(self, problem, answers: list[str | None]) -> tuple[str | None, float, bool]:
        """``(label, agreement p, admitted)``."""
        s = self.module.config.scout
        if self.module.config.verifier == "exact":
            label = exact_label(problem.text)
            if label is None:
                return None, 0.0, False
            p = sum(a is not None and answers_match(label, a) for a in answers) / len(answers)
            return label, p, True
        label, support = consensus(answers)
        return label, support, label is not None and support >= s.min_support

    def explore_step(self, optimizer, round_: int, branch: int, step: int) -> dict:
        m, s = self.module, self.module.config.scout
        seed = derived_seed(m.context.seed, round_, branch, step, R_ZERO_EXPLORE_STREAM)
        kinds, prompts, generations, proposals, tokens = self._propose(seed)
        rejected = Counter(p.reason.split(":")[0] for p in proposals if p.problem is None)
        valid = [i for i, p in enumerate(proposals) if p.problem is not None]
        scout_rewards = [0.0] * len(proposals)
        solver_episodes, solver_groups, solver_rewards, solver_agreed, records = [], [], [], [], []
        admitted, supports = 0, []
        if valid:
            problems = [proposals[i].problem for i in valid]
            n = s.consensus_answers
            envs, tasks = proposed_envs(m.math_config, problems, len(problems) * n)
            episodes = play_groups(m.agent, tasks, n, envs, seed + 1)
            tokens += episode_tokens(episodes)
            for j, i in enumerate(valid):
                mine = episodes[j * n : (j + 1) * n]
                answers = [ep.turns[-1].action if ep.turns else None for ep in mine]
                label, p, admit = self._label(problems[j], answers)
                supports.append(p)
                scout_rewards[i] = 1.0 - 2.0 * abs(p - 0.5) if label is not None else 0.0
                if not admit:
                    continue
                admitted += 1
                reached = [a is not None and answers_match(label, a) for a in answers]
                for ep, ok in zip(mine, reached):
                    solver_episodes.append(ep)
                    solver_groups.append(j)
                    solver_rewards.append(float(ok) - m.context.agent.invalid_penalty * ep.num_invalid)
                    solver_agreed.append(float(ok))
                first = next((ep for ep, ok in zip(mine, reached) if ok), None)
                if first is not None:
                    records.append(Record(problems[j].text, label, first.turns[-1].response_text,
                                          problems[j].problem_type, round_, f"b{branch + 1}"))
        advantage = registry.advantages.get("grpo")
        samples: list[Sample] = []
        type_ids = torch.tensor([sorted(set(kinds)).index(k) for k in kinds])
        scout_adv = advantage(torch.tensor(scout_rewards), type_ids, scale_by_std=True)  # [attempts]
        for prompt, gen, a in zip(prompts, generations, scout_adv.tolist()):
            if gen.token_ids:
                samples.append(Sample(prompt + gen.token_ids, [0] * len(prompt) + [1] * len(gen.token_ids), a))
        if solver_episodes:
            solver_adv = advantage(torch.tensor(solver_rewards), torch.tensor(solver_groups), scale_by_std=True)
            samples += episode_samples(solver_episodes, solver_adv, "tokens")
        loss, train_tokens = policy_gradient_step(
            m.policy, samples, optimizer, m.context.tokenizer.pad_token_id, m.logprob_temperature,
            m.config.optim.grad_clip, lockstep=m.lockstep)
        return {
            "records": records, "tokens": tokens + train_tokens, "loss": loss,
            "attempts": len(proposals), "valid": len(valid), "admitted": admitted,
            "rejected": dict(rejected), "scout_reward": sum(scout_rewards) / max(1, len(scout_rewards)),
            "support": sum(supports) / len(supports) if supports else float("nan"),
            # the Learner's rollouts on admitted problems: agreement with the label, and its reward
            "success": _mean(solver_agreed) if solver_agreed else float("nan"),
            "reward": _mean(solver_rewards) if solver_rewards else float("nan"),
        }


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)
