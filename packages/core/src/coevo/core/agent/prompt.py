"""Build the chat prompt of one agent turn from an episode's history.

Layout: system message; the first observation (it states the task) always; then the last
``history_turns`` (action, observation) pairs as assistant/user messages; the latest user message
carries the optional task reminder, memory line and admissible-command list (a small model copies
names more easily from nearby text than from the first message). At the context limit the oldest
history pairs are dropped first; if even the shortest prompt is too long, the loop ends the
episode as unsuccessful and counts it as ``context_overflow``.
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.core.fields import bounded, choice, free_text

DEFAULT_SYSTEM_PROMPT = (
    "You are a household agent. Reply with exactly one command as <action>command</action>."
)


FIRST_OBSERVATION_MODES = ("full", "goal")


@dataclass
class PromptSettings:
    system_prompt: str = free_text(DEFAULT_SYSTEM_PROMPT)  # any text; empty: no system message
    # (action, observation) pairs kept verbatim after the first observation
    history_turns: int = bounded(1, ge=0)
    memory: bool = True  # append the environment's compact memory line ("seen: ...")
    show_admissible: bool = False  # list the admissible commands (helps free generation)
    max_prompt_tokens: int = bounded(1024, ge=1)  # context limit for one prompt
    # "full": the whole first observation | "goal": only its task sentence
    first_observation: str = choice("full", FIRST_OBSERVATION_MODES)
    goal_reminder: bool = False  # repeat the task sentence in the latest user message ("Task: …")


def opening(settings: PromptSettings, first_observation: str, goal: str) -> str:
    """The first user message: the environment's first observation, or just its task sentence.

    ``"goal"`` keeps prompts short for small models when the memory line already lists the room.
    """
    if settings.first_observation == "full":
        return first_observation
    if settings.first_observation == "goal":
        return f"Your task is to: {goal}."
    raise ValueError(
        f"agent.prompt.first_observation: unknown '{settings.first_observation}'; "
        f"choose one of {list(FIRST_OBSERVATION_MODES)}"
    )


def with_context(first_message: str, context: str | None) -> str:
    """The first user message with extra context before it (e.g. RSIPO's skill), or unchanged."""
    return f"{context}\n{first_message}" if context else first_message


def build_messages(
    settings: PromptSettings,
    first_observation: str,
    history: list[tuple[str, str]],  # (agent response text, observation) per past turn
    memory: str | None,
    admissible: list[str] | None,
    keep_turns: int | None = None,
    goal: str | None = None,
) -> list[dict[str, str]]:
    keep = settings.history_turns if keep_turns is None else keep_turns
    recent = history[-keep:] if keep > 0 else []
    messages = [{"role": "system", "content": settings.system_prompt}] if settings.system_prompt else []
    messages.append({"role": "user", "content": first_observation})
    for response, observation in recent:
        messages.append({"role": "assistant", "content": response})
        messages.append({"role": "user", "content": observation})
    extra = []
    if settings.goal_reminder and goal and recent:  # the first turn's message already states it
        extra.append(f"Task: {goal}")
    if settings.memory and memory:
        extra.append(f"Memory: {memory}")
    if settings.show_admissible and admissible:
        extra.append("Admissible: " + ", ".join(admissible))
    if extra:
        messages[-1] = {"role": "user", "content": messages[-1]["content"] + "\n" + "\n".join(extra)}
    return messages


def expert_messages(
    settings: PromptSettings,
    first_observation: str,
    history: list[tuple[str, str]],
    memory: str | None,
    admissible: list[str] | None,
    reply: str,
    goal: str | None = None,
) -> list[dict[str, str]]:
    """A supervised example: the prompt the agent would see, answered with ``reply``
    (the expert's action in the environment's grammar, ``env.expert_reply(action)``)."""
    messages = build_messages(settings, first_observation, history, memory, admissible, goal=goal)
    return messages + [{"role": "assistant", "content": reply}]
