"""One in-process vLLM instance per process, shared by the process's ``vllm`` engines.

In-process vLLM engines (``VLLM_ENABLE_V1_MULTIPROCESSING=0``) share vLLM's global state (its
parallel groups), and shutting any vLLM instance of the process down tears that state down:
another in-process instance then fails ("pipeline model parallel group is not initialized"). A
training run builds several engines (training, evaluation before and after, callbacks), so
in-process engines whose model shape and settings match share one ``vllm.LLM`` in a ``Slot``;
whichever engine uses it next first pushes its own model's weights when another engine's are
loaded. An engine for another shape replaces the instance; an engine whose instance was replaced
or shut down builds it again when it is next used. Engines in worker processes
(``in_process=false``) each get a private slot; releasing one also releases the shared slot.

Several training processes (``trainer=ddp_cpu``, ``trainer=fsdp``): an in-process vLLM joins the
process group the trainer already initialised (its own tensor-parallel groups have one rank each,
so sampling needs no collective), but its shutdown destroys that group. Replacing the shared
instance is therefore refused there; building one is collective (every rank builds together).
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from coevo.core import distributed as dist
from coevo.core.progress import activity


@dataclass
class Slot:
    llm: Any = None  # the vllm.LLM, or None once released
    key: str | None = None  # what it was built for (model shape + engine settings)
    generation: int = 0  # bumped at every replacement; engines remember theirs
    owner: object | None = None  # token of the engine whose weights are loaded
    asleep: bool = False  # sleep mode: weights and KV cache released (GPU)


SHARED = Slot()  # the process's in-process instance


def acquire(key: str, build: Callable[[], Any], slot: Slot = SHARED) -> tuple[int, bool]:
    """Make ``slot`` hold an instance built for ``key``: ``(generation, built)``."""
    if slot.llm is not None and slot.key == key:
        return slot.generation, False
    if slot.llm is not None and slot is SHARED and dist.active():
        raise RuntimeError(
            "rollout=vllm: an engine for another model shape or other rollout settings would replace this "
            "process's in-process vLLM instance, and vLLM's shutdown destroys the training's process group "
            "(several processes); use one rollout configuration and model shape per run, or "
            "rollout.in_process=false")
    release(slot)
    with activity("starting the vLLM engine"):
        llm = build()
    slot.llm, slot.key, slot.owner, slot.asleep = llm, key, None, False
    return slot.generation, True


def release(slot: Slot = SHARED) -> None:
    """Shut the slot's instance down (its engines rebuild it when next used)."""
    if slot.llm is None:
        return
    slot.llm, slot.key, slot.owner = None, None, None
    slot.generation += 1
    gc.collect()  # vLLM shuts down when the LLM object is collected
    if slot is not SHARED:  # that shutdown also tore down the in-process instance's global state
        release(SHARED)
