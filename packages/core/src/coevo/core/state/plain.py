"""Dataclass records as plain containers and back, for checkpoints loaded with ``weights_only=True``.

``to_plain`` turns nested dataclasses (episodes, turns, tasks, an algorithm's played records) into
dicts tagged with their class, keeping lists, tuples, dicts, strings, numbers, ``None`` and tensors
as they are; anything else is refused naming its type. ``from_plain`` rebuilds them, importing only
classes from coevo's own packages (a tag naming any other module is refused): a checkpoint can hold
the episodes a rollout worker played without unpickling arbitrary objects. Rebuilding sets the
fields directly (no ``__init__`` or ``__post_init__``), so a record comes back exactly as it was saved.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import torch

TAG = "__dataclass__"
TRUSTED = "coevo."  # the only modules whose classes from_plain rebuilds
ATOMS = (str, int, float, bool, bytes, type(None), torch.Tensor)


def to_plain(obj: Any) -> Any:
    """``obj`` with every dataclass replaced by ``{TAG: "module:Class", field: value, ...}``."""
    if isinstance(obj, ATOMS):
        return obj
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        cls = type(obj)
        return {TAG: f"{cls.__module__}:{cls.__qualname__}",
                **{f.name: to_plain(getattr(obj, f.name)) for f in dataclasses.fields(obj)}}
    if isinstance(obj, list | tuple):
        return type(obj)(to_plain(v) for v in obj) if type(obj) in (list, tuple) else [to_plain(v) for v in obj]
    if isinstance(obj, dict):
        if TAG in obj:
            raise ValueError(f"a dict with the key {TAG!r} cannot be stored as plain data")
        return {k: to_plain(v) for k, v in obj.items()}
    raise TypeError(f"cannot store a {type(obj).__module__}.{type(obj).__qualname__} as plain data; "
                    f"keep records as dataclasses of lists, dicts, strings, numbers and tensors")


def from_plain(obj: Any) -> Any:
    """The records ``to_plain`` stored, rebuilt."""
    if isinstance(obj, list | tuple):
        return type(obj)(from_plain(v) for v in obj)
    if not isinstance(obj, dict):
        return obj
    if TAG not in obj:
        return {k: from_plain(v) for k, v in obj.items()}
    module, _, name = str(obj[TAG]).partition(":")
    if not module.startswith(TRUSTED):
        raise ValueError(f"plain data names the class {obj[TAG]!r}, outside coevo's packages; refusing to build it")
    cls: Any = importlib.import_module(module)
    for part in name.split("."):
        cls = getattr(cls, part)
    if not dataclasses.is_dataclass(cls):
        raise ValueError(f"plain data names {obj[TAG]!r}, which is not a dataclass")
    record = object.__new__(cls)
    for f in dataclasses.fields(cls):
        object.__setattr__(record, f.name, from_plain(obj[f.name]))
    return record
