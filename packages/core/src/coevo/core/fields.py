"""What values a config field takes, declared where the field is: ranges, choices, paths, free text.

Every field of a schema dataclass (except booleans and nested dataclasses) says what it accepts::

    lr: float = bounded(1e-4, gt=0)                        # a number > 0
    epochs: int = bounded(3, ge=1)                         # an integer >= 1
    betas: list[float] = bounded([0.9, 0.999], ge=0, lt=1, length=2)  # a list: each item, and its length
    schedule: str = choice("constant", SCHEDULES)          # one of a fixed (or lazily computed) list
    cache_dir: str = path(".cache/coevo/warmstart")        # a path-shaped string (existence: the component's job)
    system_prompt: str = free_text(DEFAULT_SYSTEM_PROMPT)  # any text, on purpose
    devices: Any = checked(1, _devices_ok, "an integer >= 1 or 'auto'", bad=(0, "many"))

Each helper returns a ``dataclasses.field`` whose metadata holds a :class:`Spec`.
``coevo.core.config.validate`` walks the merged config against its dataclass right after the merge
and before any ``__post_init__`` (:func:`check_node`), so a bad value fails with one line naming the
full key, the value and what is allowed. A ``None`` value is left to OmegaConf (it refuses ``None``
for a field whose type does not allow it). Cross-field rules stay in ``__post_init__``; a class whose
instances are also built directly (tests, code) calls :func:`check_instance` there.

Each spec also gives values just outside and just inside its range (``outside``/``inside``), so one
generic test can try every declared field of every schema (``coevo.core.testing.field_walk``).
"""

from __future__ import annotations

import dataclasses
import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

SPEC = "coevo_spec"  # the metadata key of a field's Spec


class Spec(ABC):
    """The allowed values of one field (of each item, for a list field)."""

    min_items: int = 0  # a list field: fewest items
    max_items: int | None = None  # a list field: most items
    default: Any = None  # the field's default (named in messages as the safe fix)

    @abstractmethod
    def problem(self, value: Any) -> str | None:
        """None if ``value`` is allowed, else what is wrong and what is allowed (no key, one line)."""

    def outside(self, integer: bool) -> list:
        """Values this spec refuses (just outside a range; a bogus choice)."""
        return []

    def inside(self, integer: bool) -> list:
        """Values this spec accepts (besides the default)."""
        return []

    def check(self, value: Any) -> str | None:
        """``problem`` of the value (or of each item and the length of a list value), with the default
        as a known-good value where the problem does not list the choices itself."""
        problem = self._check(value)
        if problem and self.default not in (None, "???") and not isinstance(self, Choice):
            problem += f" (default: {self.default!r})"
        return problem

    def _check(self, value: Any) -> str | None:
        if isinstance(value, (list, tuple)):
            if len(value) < self.min_items or (self.max_items is not None and len(value) > self.max_items):
                return f"must hold {self._count()} items, got {len(value)}: {list(value)!r}"
            for i, item in enumerate(value):
                problem = None if item is None else self.problem(item)
                if problem:
                    return f"item {i}: {problem}"
            return None
        return None if value is None else self.problem(value)

    def _count(self) -> str:
        if self.max_items == self.min_items:
            return f"exactly {self.min_items}"
        if self.max_items is None:
            return f"at least {self.min_items}"
        return f"{self.min_items} to {self.max_items}"


def _number(x: float) -> str:
    return repr(int(x)) if float(x).is_integer() and abs(x) < 1e15 else repr(x)


@dataclasses.dataclass
class Range(Spec):
    """A finite number within optional bounds (``ge``/``gt`` below, ``le``/``lt`` above)."""

    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    min_items: int = 0
    max_items: int | None = None

    def allowed(self) -> str:
        low = f">= {_number(self.ge)}" if self.ge is not None else f"> {_number(self.gt)}" if self.gt is not None else ""
        high = f"<= {_number(self.le)}" if self.le is not None else f"< {_number(self.lt)}" if self.lt is not None else ""
        if low and high:
            left = "[" if self.ge is not None else "("
            right = "]" if self.le is not None else ")"
            lo = self.ge if self.ge is not None else self.gt
            hi = self.le if self.le is not None else self.lt
            return f"in {left}{_number(lo)}, {_number(hi)}{right}"
        return low or high or "a finite number"

    def problem(self, value: Any) -> str | None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"must be a number {self.allowed()}, got {value!r}"
        ok = (math.isfinite(value)
              and (self.ge is None or value >= self.ge) and (self.gt is None or value > self.gt)
              and (self.le is None or value <= self.le) and (self.lt is None or value < self.lt))
        return None if ok else f"must be {self.allowed()}, got {value!r}"

    def outside(self, integer: bool) -> list:
        step = 1 if integer else 1e-6
        out = [float("nan")] if not integer else []
        if self.ge is not None:
            out.append(self.ge - step)
        if self.gt is not None:
            out.append(self.gt)
        if self.le is not None:
            out.append(self.le + step)
        if self.lt is not None:
            out.append(self.lt)
        return [int(v) if integer and isinstance(v, float) and v.is_integer() else v for v in out]

    def inside(self, integer: bool) -> list:
        step = 1 if integer else 1e-6
        values = []
        if self.ge is not None:
            values.append(self.ge)
        if self.gt is not None:
            values.append(self.gt + step)
        if self.le is not None:
            values.append(self.le)
        if self.lt is not None:
            values.append(self.lt - step)
        ok = [v for v in values if self.problem(v) is None]
        return [int(v) if integer and float(v).is_integer() else v for v in ok]


@dataclasses.dataclass
class Choice(Spec):
    """One of a list of strings (``options`` may be a callable, e.g. a registry's ``names``)."""

    options: Sequence[str] | Callable[[], Sequence[str]] = ()
    min_items: int = 0
    max_items: int | None = None

    def choices(self) -> list[str]:
        return list(self.options() if callable(self.options) else self.options)

    def problem(self, value: Any) -> str | None:
        choices = self.choices()
        return None if value in choices else f"unknown {value!r}; choose one of {choices}"

    def outside(self, integer: bool) -> list:
        return ["bogus-choice"]

    def inside(self, integer: bool) -> list:
        return self.choices()


@dataclasses.dataclass
class PathShape(Spec):
    """A string naming a file or folder: no NUL byte or line break; empty only where ``empty`` says
    what an empty value means. Whether it exists is checked by the component that opens it."""

    empty: str | None = None  # what "" means (e.g. "the synthetic generator"); None: must not be empty

    def problem(self, value: Any) -> str | None:
        if not isinstance(value, str):
            return f"must be a path (a string), got {value!r}"
        if value == "" and self.empty is None:
            return "must be a path, got an empty string"
        if "\0" in value or "\n" in value or "\r" in value:
            return f"{value!r} is not a path (it holds a NUL byte or a line break)"
        return None

    def outside(self, integer: bool) -> list:
        return ["bad\0path", "two\nlines"] + ([""] if self.empty is None else [])

    def inside(self, integer: bool) -> list:
        return ["some/folder/file.txt"] + ([""] if self.empty is not None else [])


@dataclasses.dataclass
class FreeText(Spec):
    """Any string, on purpose (a prompt, a label): declared so that nothing is left unchecked by accident."""

    min_items: int = 0
    max_items: int | None = None

    def problem(self, value: Any) -> str | None:
        return None if isinstance(value, str) else f"must be text, got {value!r}"

    def inside(self, integer: bool) -> list:
        return ["any text at all"]


@dataclasses.dataclass
class Checked(Spec):
    """A value ``ok(value)`` accepts, described by ``allowed`` (for Any-typed fields and odd shapes)."""

    ok: Callable[[Any], bool] = bool
    allowed: str = ""
    bad: tuple = ()  # example values it refuses (for the generic test)
    good: tuple = ()  # example values it accepts
    min_items: int = 0
    max_items: int | None = None

    def problem(self, value: Any) -> str | None:
        return None if self.ok(value) else f"{value!r} is not {self.allowed}"

    def outside(self, integer: bool) -> list:
        return list(self.bad)

    def inside(self, integer: bool) -> list:
        return list(self.good)


def _field(default: Any, spec: Spec) -> Any:
    spec.default = default() if callable(default) and not isinstance(default, (str, int, float)) else default
    if isinstance(default, (list, dict, set)):
        return dataclasses.field(default_factory=lambda: type(default)(default), metadata={SPEC: spec})
    if callable(default) and not isinstance(default, (str, int, float)):
        return dataclasses.field(default_factory=default, metadata={SPEC: spec})
    return dataclasses.field(default=default, metadata={SPEC: spec})


def _items(length: int | tuple[int, int | None] | None) -> dict:
    if length is None:
        return {}
    low, high = (length, length) if isinstance(length, int) else length
    return {"min_items": low, "max_items": high}


def bounded(default: Any, *, ge: float | None = None, gt: float | None = None, le: float | None = None,
            lt: float | None = None, length: int | tuple[int, int | None] | None = None) -> Any:
    """A number (or a list of numbers, ``length`` items) within the bounds."""
    if ge is not None and gt is not None or le is not None and lt is not None:
        raise TypeError("bounded: give at most one lower bound (ge or gt) and one upper bound (le or lt)")
    return _field(default, Range(ge, gt, le, lt, **_items(length)))


def choice(default: Any, options: Sequence[str] | Callable[[], Sequence[str]],
           length: int | tuple[int, int | None] | None = None) -> Any:
    """One of ``options`` (or a list of them, ``length`` items)."""
    return _field(default, Choice(options, **_items(length)))


def path(default: str, empty: str | None = None) -> Any:
    """A path-shaped string; ``empty``: what an empty string means (None: it is refused)."""
    return _field(default, PathShape(empty))


def free_text(default: Any, length: int | tuple[int, int | None] | None = None) -> Any:
    """Any text (a prompt, a prefix, a label), or a list of texts of ``length`` items."""
    return _field(default, FreeText(**_items(length)))


def checked(default: Any, ok: Callable[[Any], bool], allowed: str, *, bad: tuple = (), good: tuple = (),
            length: int | tuple[int, int | None] | None = None) -> Any:
    """A value ``ok`` accepts; ``allowed`` completes "… is not <allowed>"; ``bad``/``good``: examples."""
    return _field(default, Checked(ok, allowed, tuple(bad), tuple(good), **_items(length)))


SEED_LIMIT = 2**32  # numpy and Lightning's seed_everything take unsigned 32-bit seeds


def random_seed(default: int = 0) -> Any:
    """A random seed: an integer in [0, 2**32)."""
    return bounded(default, ge=0, lt=SEED_LIMIT)


def _is_name(value: Any) -> bool:
    return isinstance(value, str) and value.strip() == value and value != ""


def registry_name(default: str) -> Any:
    """The registry name that selected the component (``algo=grpo``); the registry itself checks it exists."""
    return checked(default, _is_name, "a registry name (e.g. the default)", bad=("", " x"), good=(default,))


def split_name(default: Any, length: int | tuple[int, int | None] | None = None) -> Any:
    """The name of an env's task split (or a list of them); which names exist depends on the env, so
    the env's own ``splits`` are checked where the env is known (``eval.split``: the root schemas)."""
    return checked(default, _is_name, "a split name of the env (e.g. eval_in_distribution)", bad=("",),
                   good=("train",), length=length)


def _is_node(value: Any) -> bool:
    return value is None or isinstance(value, dict)


def component(default: Any = None) -> Any:
    """A component's node (``{name: …, its settings}``), checked against that component's own ``Config``
    by ``build_component`` once its name is known."""
    return checked(default, _is_node, "a config group node ({name: …, settings}) or null",
                   bad=("a-string", 3), good=({"name": "x"},))


def spec_of(f: dataclasses.Field, schema: type | None = None) -> Spec | None:
    """The field's Spec; with ``schema``, a field a subclass redeclares with only a new default
    (``name: str = "opsd"``) keeps the declaration of the nearest base class that has one."""
    spec = f.metadata.get(SPEC)
    for base in (schema.__mro__[1:] if spec is None and schema is not None else ()):
        inherited = getattr(base, "__dataclass_fields__", {}).get(f.name)
        if inherited is not None and inherited.metadata.get(SPEC) is not None:
            return inherited.metadata[SPEC]
    return spec


def join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def check_instance(obj: Any, prefix: str) -> None:
    """Check the declared fields of a dataclass instance and of the dataclass instances it holds;
    ValueError naming the key.

    For ``__post_init__`` of classes also built directly; ``validate`` checks before construction.
    """
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        key = join(prefix, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            check_instance(value, key)
            continue
        spec = spec_of(f, type(obj))
        problem = spec.check(list(value) if isinstance(value, tuple) else value) if spec is not None else None
        if problem:
            raise ValueError(f"{key}: {problem}")
