"""``boxes``: a small two-step environment implementing the full protocol, for core's tests.

The room holds ``num_boxes`` coloured boxes; the task names one ("Your task is to: open the red
box."). The agent must ``go to red box`` and then ``open red box``; opening any other box, or
opening before arriving, ends or wastes the episode. Rewards: 1.0 on success. Deterministic
tasks by ``(split, index, seed)``; snapshot/restore; a state key; an expert; a memory line.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from coevo.core import registry
from coevo.core.env.protocol import Environment, StepResult, Task
from coevo.core.fields import bounded, random_seed

COLOURS = ("red", "blue", "green", "yellow", "white", "black")


@dataclass
class BoxesConfig:
    num_boxes: int = bounded(3, ge=1, le=len(COLOURS))  # boxes in the room (one per colour)
    max_steps: int = bounded(4, ge=1)  # steps per episode (the expert needs 2)
    eval_size: int = bounded(12, ge=1)  # tasks in each eval split
    seed: int = random_seed(0)


@registry.envs.register("boxes")
class BoxesEnv(Environment):
    name = "boxes"
    task_types = ("near", "far")  # the target box is among the first half of the list, or not
    Config = BoxesConfig

    def __init__(self, config: BoxesConfig | None = None):
        self.config = config or BoxesConfig()
        if not 2 <= self.config.num_boxes <= len(COLOURS):
            raise ValueError(f"env.num_boxes: must be between 2 and {len(COLOURS)}, got {self.config.num_boxes}")
        self.max_steps = self.config.max_steps
        self._state = None

    def _seed(self, split: str, index: int) -> int:
        digest = hashlib.sha256(f"{split}/{index}/{self.config.seed}".encode()).hexdigest()
        return int(digest[:12], 16)

    def task(self, split: str, index: int) -> Task:
        if split not in self.splits:
            raise ValueError(f"unknown split '{split}'; choose one of {list(self.splits)}")
        seed = self._seed(split, index)
        boxes = self._boxes(seed)
        target = boxes[seed % len(boxes)]
        task_type = "near" if boxes.index(target) < len(boxes) / 2 else "far"
        return Task("boxes", split, index, task_type, seed)

    def num_tasks(self, split: str) -> int | None:
        return None if split == "train" else self.config.eval_size

    def _boxes(self, seed: int) -> list[str]:
        start = seed % len(COLOURS)
        return [COLOURS[(start + k) % len(COLOURS)] for k in range(self.config.num_boxes)]

    def reset(self, task: Task) -> str:
        boxes = self._boxes(task.seed)
        self._state = {"boxes": boxes, "target": boxes[task.seed % len(boxes)], "at": None, "done": False,
                       "steps": 0, "seen": []}
        listing = ", ".join(f"a {b} box" for b in boxes)
        return f"You are in a room. You see {listing}.\n\nYour task is to: open the {self._state['target']} box."

    @property
    def goal(self) -> str:
        return f"open the {self._state['target']} box"

    def admissible_actions(self) -> list[str]:
        s = self._state
        actions = [f"go to {b} box" for b in s["boxes"] if b != s["at"]]
        if s["at"] is not None:
            actions.append(f"open {s['at']} box")
        return sorted(actions)

    def step(self, action: str) -> StepResult:
        s = self._state
        if s["done"] or action not in self.admissible_actions():
            s["steps"] += 1
            done = s["done"] or s["steps"] >= self.max_steps
            s["done"] = done
            return StepResult(self.invalid_observation, 0.0, done, invalid=True)
        s["steps"] += 1
        if action.startswith("go to "):
            s["at"] = action.removeprefix("go to ").removesuffix(" box")
            s["seen"].append(s["at"])
            obs, reward, won = f"You arrive at the {s['at']} box.", 0.0, False
            s["done"] = s["steps"] >= self.max_steps
        else:
            won = s["at"] == s["target"]
            obs = "You open it. You win!" if won else "You open it. It is empty."
            reward, s["done"] = (1.0 if won else 0.0), True
        return StepResult(obs, reward, s["done"], won=won)

    def snapshot(self):
        s = self._state
        return {**s, "boxes": list(s["boxes"]), "seen": list(s["seen"])}

    def restore(self, snapshot) -> None:
        self._state = {**snapshot, "boxes": list(snapshot["boxes"]), "seen": list(snapshot["seen"])}

    def state_key(self):
        """(target, the box the agent stands at): the world's state; the visit history is not part of it."""
        s = self._state
        return None if s is None else (s["target"], s["at"])

    def memory(self) -> str | None:
        return "visited: " + (", ".join(self._state["seen"]) or "nothing")

    def expert_action(self) -> str | None:
        s = self._state
        return f"open {s['target']} box" if s["at"] == s["target"] else f"go to {s['target']} box"
