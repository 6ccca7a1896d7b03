"""On-policy skill writing: the policy (or a frozen copy, or the library) gives each task a skill.

The policy samples ``<skill>…</skill>`` after the writing prompt (``template.py``); the sampled
token ids and their log-probs (at ``skill.temperature``) are kept, since L_skill is a policy
gradient on exactly those tokens. Parsing never raises (``parsing.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coevo.core.agent.types import Episode
from coevo.core.policy.conversation import render_prompt
from coevo.core.rollout.engine import RolloutEngine, SamplingSettings
from coevo.rsipo.config import SkillSettings
from coevo.rsipo.skills.category import skill_category
from coevo.rsipo.skills.parsing import ParsedSkill, parse_skill
from coevo.rsipo.skills.template import Attempt, SkillTemplate, skill_messages


@dataclass
class WrittenSkill:
    parsed: ParsedSkill
    category: str
    source: str  # policy | frozen | library
    prompt_ids: list[int] = field(default_factory=list)  # the writing prompt (empty for library skills)
    token_ids: list[int] = field(default_factory=list)  # the sampled skill tokens (eos included when finished)
    logprobs: list[float] = field(default_factory=list)  # their log-probs at sampling time


def attempt_of(episode: Episode) -> Attempt:
    return Attempt([t.action or "(invalid)" for t in episode.turns], bool(episode.won))


class SkillWriter:
    def __init__(self, tokenizer, template: SkillTemplate, settings: SkillSettings):
        self.tokenizer = tokenizer
        self.template = template
        self.settings = settings

    def prompt(self, goal: str, attempts: list[Attempt]) -> list[int]:
        s = self.settings
        return render_prompt(self.tokenizer, skill_messages(self.template, goal, attempts, s.trajectories, s.max_actions))

    def write(self, engine: RolloutEngine, goals: list[str], groups: list[list[Episode]], source: str) -> list[WrittenSkill]:
        """One sampled skill per task from its goal and its group's finished episodes."""
        s = self.settings
        prompts = [self.prompt(goal, [attempt_of(ep) for ep in group]) for goal, group in zip(goals, groups)]
        generations = engine.generate(prompts, SamplingSettings(s.temperature, 1.0, s.max_new_tokens))
        eos = self.tokenizer.eos_token_id
        skills = []
        for prompt, gen in zip(prompts, generations):
            text = self.tokenizer.decode([t for t in gen.token_ids if t != eos], skip_special_tokens=True)
            parsed = parse_skill(text, gen.finished, s.max_chars)
            skills.append(WrittenSkill(parsed, self.category(parsed.text), source, prompt, list(gen.token_ids),
                                       list(gen.logprobs)))
        return skills

    def category(self, text: str) -> str:
        return skill_category(text, self.template.verbs, self.settings.min_verbs)

    def from_library(self, text: str, source: str = "library") -> WrittenSkill:
        """A given skill text (the library's, or an oracle's), with no sampled tokens: no skill loss."""
        parsed = parse_skill(f"<skill>{text}</skill>", True, self.settings.max_chars)
        return WrittenSkill(parsed, self.category(parsed.text), source)
