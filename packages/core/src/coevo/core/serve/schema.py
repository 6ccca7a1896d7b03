"""The config schema of ``coevo-serve``: which policy to serve and ``server.*``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from coevo.core.fields import bounded, check_instance, choice, path, random_seed
from coevo.core.serve.settings import ServerSettings

DTYPES = ("float32", "bfloat16", "float16")
DEVICES = ("auto", "cpu", "cuda")


@dataclass
class ServeModelSettings:
    path: str | None = path(None, empty="no folder (give checkpoint=<run folder> instead)")  # a Hugging Face model folder
    dtype: str = choice("float32", DTYPES)  # float32 | bfloat16 | float16

    def __post_init__(self):
        check_instance(self, "model")


@dataclass
class ServeSchema:
    ROOT_SCHEMA: ClassVar[bool] = True
    # a run folder (its policy/ export) or a model folder; or leave it null and give model.path
    checkpoint: str | None = path(None, empty="no checkpoint (give model.path=<folder> instead)")
    model: ServeModelSettings = field(default_factory=ServeModelSettings)
    server: ServerSettings = field(default_factory=ServerSettings)
    device: str = choice("auto", DEVICES)  # auto: the GPU when one is visible, else the CPU
    cpu_threads: int | None = bounded(None, ge=1)  # torch intra-op threads on the CPU; null: torch's default
    seed: int = random_seed(0)
    debug: bool = False  # true: an error prints its full traceback after the one-line message

    def __post_init__(self):
        if (self.checkpoint is None) == (self.model.path is None):
            raise ValueError("checkpoint / model.path: give exactly one: checkpoint=runs/<run> (a run folder) "
                             "or model.path=<a Hugging Face model folder>")
