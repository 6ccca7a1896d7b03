"""Who writes an agent's reply: the policy through the rollout engine, or the environment's oracle.

The tree runner collects the requests of every agent ready to act and hands them to a decider
in one call, so ``ModelDecider`` makes one engine call per round (generation or candidate
scoring) for all agents of all trees. ``OracleDecider`` answers with the environment's oracle —
``expert_delegations()`` (the sub-goals it would launch now) where the agent may delegate, else
``expert_action()`` — which is how the warm start's demonstrations are made, with the very same
prompts the policy will see.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import torch

from coevo.core.agent.loop import AgentSettings
from coevo.core.env.protocol import Environment
from coevo.core.policy.candidates import candidate_scores
from coevo.core.rollout.engine import RolloutEngine, SamplingSettings
from coevo.rao.protocol import format_delegation, reference


@dataclass
class Request:
    env: Environment
    prompt_ids: list[int]  # empty when there is no tokenizer (oracle demonstrations)
    messages: list[dict[str, str]]
    options: list[str] | None  # choice mode: the candidate replies (commands, delegations); None: generate
    may_delegate: bool  # a launch by this agent could be admitted (enabled, depth, room)
    shown: list[str] | None = None  # sub-goals listed in the prompt, which a launch may name as #k


@dataclass
class Reply:
    text: str  # the reply without its end-of-turn token
    response_ids: list[int]  # with the end-of-turn token when there is one
    logprobs: list[float]
    finished: bool  # ended with the end-of-turn token (an unfinished reply is malformed)
    candidates: list[list[int]] | None = None  # choice mode: every candidate's ids (chosen one = response_ids)
    choice: int | None = None
    choice_logprob: float | None = None  # log softmax(score / T)[choice] at rollout time


class Decider(Protocol):
    def decide(self, requests: list[Request]) -> list[Reply]: ...


def oracle_goals(env: Environment, max_children: int) -> list[str]:
    """The sub-goals the environment's oracle would launch now (``[]``: act, or no oracle)."""
    suggest = getattr(env, "expert_delegations", None)
    return list(suggest())[:max_children] if suggest is not None else []


class OracleDecider:
    """The environment's oracle: delegate its suggested sub-goals where allowed, else act."""

    def __init__(self, max_children: int):
        self.max_children = max_children

    def decide(self, requests: list[Request]) -> list[Reply]:
        replies = []
        for r in requests:
            goals = oracle_goals(r.env, self.max_children) if r.may_delegate else []
            if goals:
                text = format_delegation([reference(r.shown.index(g) + 1) if r.shown and g in r.shown else g
                                          for g in goals])
            else:
                action = r.env.expert_action()
                if action is None:
                    raise RuntimeError(f"env '{r.env.name}' has no expert action here; the warm start needs one "
                                       f"(set warmstart.enabled=false)")
                text = r.env.expert_reply(action)
            replies.append(Reply(text, [], [], True))
        return replies


class ModelDecider:
    """The policy: sampled (or greedy) free text, or a pick among candidate replies (choice mode)."""

    def __init__(self, engine: RolloutEngine, tokenizer, agent: AgentSettings, greedy: bool = False,
                 generator: torch.Generator | None = None):
        self.engine, self.tokenizer, self.agent = engine, tokenizer, agent
        self.greedy, self.generator = greedy, generator
        self.eos_id = tokenizer.eos_token_id

    def decide(self, requests: list[Request]) -> list[Reply]:
        replies: list[Reply | None] = [None] * len(requests)
        free = [i for i, r in enumerate(requests) if r.options is None]
        chosen = [i for i, r in enumerate(requests) if r.options is not None]
        if free:
            for i, reply in zip(free, self._generate([requests[i].prompt_ids for i in free])):
                replies[i] = reply
        if chosen:
            for i, reply in zip(chosen, self._choose([requests[i] for i in chosen])):
                replies[i] = reply
        return replies

    def _text(self, ids: list[int]) -> str:
        return self.tokenizer.decode([t for t in ids if t != self.eos_id], skip_special_tokens=False)

    def _generate(self, prompts: list[list[int]]) -> list[Reply]:
        sampling = self.agent.sampling
        if self.greedy:
            sampling = SamplingSettings(temperature=0.0, top_p=1.0, max_new_tokens=sampling.max_new_tokens)
        out = []
        for g in self.engine.generate(prompts, sampling):
            finished = bool(g.token_ids) and g.token_ids[-1] == self.eos_id
            out.append(Reply(self._text(g.token_ids), list(g.token_ids), list(g.logprobs), finished))
        return out

    def _choose(self, requests: list[Request]) -> list[Reply]:
        candidates = [[self.tokenizer.encode(o, add_special_tokens=False) + [self.eos_id] for o in r.options]
                      for r in requests]
        scores = self.engine.score([r.prompt_ids for r in requests], candidates)
        out = []
        for r, cands, cand_scores in zip(requests, candidates, scores):
            token_lp = [torch.tensor(s, dtype=torch.float32) for s in cand_scores]
            totals = torch.stack([candidate_scores(lp, torch.ones_like(lp), self.agent.choice_score)
                                  for lp in token_lp])  # [K]
            log_probs = torch.log_softmax(totals / self.agent.choice_temperature, dim=0)  # [K]
            if self.greedy:
                pick = int(totals.argmax())
            else:
                pick = int(torch.multinomial(log_probs.exp(), 1, generator=self.generator))
            out.append(Reply(r.options[pick], cands[pick], list(cand_scores[pick]), True, cands, pick,
                             float(log_probs[pick])))
        return out
