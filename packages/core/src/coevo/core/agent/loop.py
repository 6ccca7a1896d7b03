"""The multi-turn agent loop: drive a batch of environments with a rollout engine.

Each turn, every unfinished episode gets a prompt built from its history; the engine either
samples a free-form reply (``mode="generate"``) or scores every admissible command as a
candidate reply and samples one from the softmax over their scores (``mode="choose"``; by
default a candidate's sequence log-likelihood, the sum over its tokens (``choice_score="sum"``:
at temperature 1 the model's own distribution over the admissible commands); ``"mean"``, the
per-token mean, does not favour short commands such as "look" in an untrained model).
The chosen candidate's tokens and per-token log-probs are recorded exactly like generated ones,
so both modes train the same way. Malformed replies cost ``invalid_penalty`` and are answered
with the environment's invalid-action observation; they never raise. An exception from the
environment's ``parse_action`` or ``step`` is one invalid action too, counted in
``Episode.env_errors`` (``invalid/env_errors``, see ``coevo.core.env.guard``). Each turn records
the environment's ``state_key()`` from before its action (``Turn.state_key``, GiGPO's anchor
states); a key that raises or is not hashable is recorded as ``None`` and logged once per
environment, never an error of the episode.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable
from dataclasses import dataclass, field

import torch

from coevo.core.agent.prompt import PromptSettings, build_messages, opening, with_context
from coevo.core.agent.types import Episode, Turn
from coevo.core.env.guard import ENV_ERRORS_METRIC, guarded_parse, guarded_step
from coevo.core.env.protocol import Environment, Task
from coevo.core.fields import bounded, check_instance, choice
from coevo.core.policy.candidates import CHOICE_SCORES, candidate_scores
from coevo.core.policy.conversation import render_prompt
from coevo.core.rollout.engine import RolloutEngine, SamplingSettings

MODES = ("auto", "generate", "choose")

_log = logging.getLogger(__name__)
_bad_state_keys: set[str] = set()  # environments whose state_key() failed, already logged


def state_key_of(env: Environment) -> Hashable | None:
    """``env.state_key()``, or ``None`` when it raises or returns something unhashable (logged once per env)."""
    try:
        key = env.state_key()
        hash(key)
        return key
    except Exception as exc:  # noqa: BLE001 (an environment is untrusted: no key, never a crash)
        name = str(getattr(env, "name", type(env).__name__))
        if name not in _bad_state_keys:
            _bad_state_keys.add(name)
            _log.warning("%s.state_key() failed (%s: %s); its turns get no state key (GiGPO's step-level "
                         "advantages are 0 for them)", name, type(exc).__name__, str(exc)[:200])
        return None


@dataclass
class AgentSettings:
    mode: str = choice("auto", MODES)  # "generate": free text; "choose": softmax over admissible commands;
    # "auto": choose where the environment has a finite command list, else generate
    prompt: PromptSettings = field(default_factory=PromptSettings)
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    invalid_penalty: float = bounded(0.1, ge=0)  # subtracted from the return per invalid action
    max_turns: int | None = bounded(None, ge=1)  # defaults to the environment's max_steps
    choice_temperature: float = bounded(1.0, gt=0)  # temperature of the softmax over candidate scores
    # candidate score: "sum" (sequence log-likelihood) | "mean" (per token)
    choice_score: str = choice("sum", CHOICE_SCORES)

    def __post_init__(self):
        check_instance(self, "agent")


@dataclass
class _Choice:
    candidates: list[list[int]]
    index: int
    logprob: float  # log softmax(score / T) of the chosen candidate


@dataclass
class _Live:
    episode: Episode
    env: Environment
    first_observation: str
    history: list[tuple[str, str]] = field(default_factory=list)
    done: bool = False
    messages: list[dict[str, str]] | None = None  # this turn's prompt messages


class AgentLoop:
    def __init__(self, engine: RolloutEngine, tokenizer, settings: AgentSettings):
        self.engine = engine
        self.tokenizer = tokenizer
        self.settings = settings
        self.eos_id = tokenizer.eos_token_id

    def run(
        self,
        tasks: list[Task],
        envs: list[Environment],
        group_ids: list[int] | None = None,
        greedy: bool = False,
        generator: torch.Generator | None = None,
        contexts: list[str | None] | None = None,
    ) -> list[Episode]:
        """Play ``tasks[i]`` in ``envs[i]`` to the end; returns one Episode per task.

        ``contexts[i]``, when given, is extra text placed before episode ``i``'s first user message
        for the whole episode (e.g. a skill); it is part of the prompt, never trained on.
        """
        if len(tasks) != len(envs):
            raise ValueError(f"{len(tasks)} tasks for {len(envs)} environments")
        contexts = contexts if contexts is not None else [None] * len(tasks)
        if len(contexts) != len(tasks):
            raise ValueError(f"{len(contexts)} contexts for {len(tasks)} tasks")
        group_ids = group_ids if group_ids is not None else list(range(len(tasks)))
        mode = self.mode_for(envs[0]) if envs else "generate"
        live = []
        for task, env, gid, context in zip(tasks, envs, group_ids, contexts):
            first = with_context(opening(self.settings.prompt, env.reset(task), env.goal), context)
            live.append(_Live(Episode(task, gid), env, first))
        rendered_cache: dict[tuple, list[int]] = {}  # a group's episodes often share a prompt
        while True:
            active = [item for item in live if not item.done]
            if not active:
                break
            rendered = [self._prompt(item, rendered_cache) for item in active]
            prompts = [r[0] if r is not None else None for r in rendered]
            for item, r in zip(active, rendered):
                item.messages = r[1] if r is not None else None
            ready = [(item, p) for item, p in zip(active, prompts) if p is not None]
            for item, p in zip(active, prompts):
                if p is None:  # context overflow: end unsuccessfully
                    item.episode.context_overflow = True
                    item.done = True
            if not ready:
                continue
            if mode == "generate":
                replies = self._generate([p for _, p in ready], greedy)
            else:
                replies = self._choose([(item, p) for item, p in ready], greedy, generator)
            for (item, prompt), reply in zip(ready, replies):
                self._apply(item, prompt, *reply)
        for item in live:
            ep = item.episode
            ep.reward = sum(t.reward for t in ep.turns) - self.settings.invalid_penalty * ep.num_invalid
        return [item.episode for item in live]

    def mode_for(self, env: Environment) -> str:
        """The decoding mode used for ``env`` ("generate" or "choose")."""
        mode = self.settings.mode
        if mode == "auto":
            return "generate" if env.free_form_actions else "choose"
        if mode == "choose" and env.free_form_actions:
            raise ValueError(
                f"agent.mode=choose needs a list of admissible commands, but env '{env.name}' takes free-text "
                f"actions; set agent.mode=generate (or auto)"
            )
        return mode

    # -- prompts ------------------------------------------------------------------------------
    def _prompt(self, item: _Live, cache: dict | None = None) -> tuple[list[int], list[dict[str, str]]] | None:
        """The turn's prompt ids and messages; ``cache`` maps rendered messages to ids, so the
        episodes of a group that see the same prompt (every first turn) are rendered once."""
        s = self.settings.prompt
        admissible = item.env.admissible_actions() if s.show_admissible else None
        memory = item.env.memory() if s.memory else None
        for keep in range(min(s.history_turns, len(item.history)), -1, -1):
            messages = build_messages(s, item.first_observation, item.history, memory, admissible, keep,
                                      goal=item.env.goal)
            key = tuple((m["role"], m["content"]) for m in messages)
            ids = cache.get(key) if cache is not None else None
            if ids is None:
                ids = render_prompt(self.tokenizer, messages)
                if cache is not None:
                    cache[key] = ids
            if len(ids) <= s.max_prompt_tokens:
                return list(ids), messages
        return None

    # -- decoding -----------------------------------------------------------------------------
    def _generate(self, prompts: list[list[int]], greedy: bool) -> list[tuple[list[int], list[float]]]:
        sampling = self.settings.sampling
        if greedy:
            sampling = SamplingSettings(temperature=0.0, top_p=1.0, max_new_tokens=sampling.max_new_tokens)
        return [(g.token_ids, g.logprobs, None) for g in self.engine.generate(prompts, sampling)]

    def _candidate_ids(self, env: Environment, action: str) -> list[int]:
        return self.tokenizer.encode(env.format_action(action), add_special_tokens=False) + [self.eos_id]

    def _choose(self, ready, greedy: bool, generator) -> list[tuple[list[int], list[float], _Choice]]:
        candidates = [[self._candidate_ids(item.env, a) for a in item.env.admissible_actions()] for item, _ in ready]
        scores = self.engine.score([p for _, p in ready], candidates)
        replies = []
        for cands, cand_scores in zip(candidates, scores):
            token_lp = [torch.tensor(s, dtype=torch.float32) for s in cand_scores]
            totals = torch.stack([candidate_scores(lp, torch.ones_like(lp), self.settings.choice_score)
                                  for lp in token_lp])  # [K]
            log_probs = torch.log_softmax(totals / self.settings.choice_temperature, dim=0)  # [K]
            if greedy:
                pick = int(totals.argmax())
            else:
                pick = int(torch.multinomial(log_probs.exp(), 1, generator=generator))
            replies.append((cands[pick], cand_scores[pick], _Choice(cands, pick, float(log_probs[pick]))))
        return replies

    # -- environment step ---------------------------------------------------------------------
    def _apply(
        self, item: _Live, prompt: list[int], response_ids: list[int], logprobs: list[float], choice: _Choice | None
    ) -> None:
        ep = item.episode
        text_ids = [t for t in response_ids if t != self.eos_id]
        text = self.tokenizer.decode(text_ids, skip_special_tokens=False)
        finished = bool(response_ids) and response_ids[-1] == self.eos_id
        state_key = state_key_of(item.env)  # the state this turn's action is taken in
        action, failed = guarded_parse(item.env, text) if finished else (None, False)
        if action is None:
            observation, reward, done, won, invalid = item.env.invalid_observation, 0.0, False, False, True
        else:
            result, failed = guarded_step(item.env, action)
            observation, reward, done, won, invalid = (
                result.observation, result.reward, result.done, result.won, result.invalid,
            )
        turn = Turn(prompt, list(response_ids), list(logprobs), text, action, observation, reward, invalid,
                    messages=item.messages, state_key=state_key)
        if choice is not None:
            turn.candidates, turn.choice, turn.choice_logprob = choice.candidates, choice.index, choice.logprob
        ep.turns.append(turn)
        ep.num_invalid += int(invalid)
        ep.env_errors += int(failed)
        ep.won = ep.won or won
        item.history.append((text, observation))
        max_turns = self.settings.max_turns or item.env.max_steps
        if done or len(ep.turns) >= max_turns:
            item.done = True


def summarize(episodes: list[Episode], task_types: tuple[str, ...] = ()) -> dict[str, float]:
    """Success, return, invalid-action rate and per-type success of a list of episodes."""
    if not episodes:
        return {}
    n = len(episodes)
    turns = sum(ep.num_turns for ep in episodes)
    stats = {
        "success": sum(ep.won for ep in episodes) / n,
        "reward": sum(ep.reward for ep in episodes) / n,
        "turns": turns / n,
        "invalid_rate": sum(ep.num_invalid for ep in episodes) / max(turns, 1),
        "context_overflow": sum(ep.context_overflow for ep in episodes) / n,
        ENV_ERRORS_METRIC: sum(getattr(ep, "env_errors", 0) for ep in episodes) / n,
    }
    present = {ep.task.task_type for ep in episodes}
    ordered = [t for t in task_types if t in present] + sorted(present - set(task_types))
    for task_type in ordered:  # only the types that occur, in the environment's order
        of_type = [ep for ep in episodes if ep.task.task_type == task_type]
        stats[f"success/{task_type}"] = sum(ep.won for ep in of_type) / len(of_type)
    return stats
