"""Check the command-line overrides before Hydra sees them, so a misspelt key, a missing preset or
an unparsable override gets one line naming the key and the valid choices.

Hydra's own message for ``algo.grup_size=4`` suggests appending the key (``+algo.grup_size=4``),
which only moves the failure; here it reads ``unknown key algo.grup_size; valid keys of algo:
['group_size', ...]`` (closest match first). The check composes the config once with the
overrides (a fraction of a second); command lines with Hydra flags (``--help``, ``-m``) are left
to Hydra.
"""

from __future__ import annotations

import difflib
import re
import sys
from collections.abc import Sequence

from omegaconf import DictConfig, OmegaConf
from rich.console import Console

from coevo.core.cli.config_defaults import COMPONENT_GROUPS, is_base
from coevo.core.cli.config_sources import compose_config, group_choices
from coevo.core.cli.errors import EXIT_REFUSED, print_error

_COULD_NOT_OVERRIDE = re.compile(r"Could not override '([^']+)'")
_COULD_NOT_FIND = re.compile(r"Could not find '([^']+)'")


def closest_first(name: str, choices: Sequence[str]) -> list[str]:
    """``choices`` with the close matches of ``name`` first (best first), then the rest in order."""
    close = difflib.get_close_matches(name, list(choices), n=len(choices), cutoff=0.6)
    return close + [c for c in choices if c not in close]


def unknown_key_message(cfg: DictConfig, key: str) -> str:
    """``unknown key a.b.c; valid keys of a.b: [...]`` for the nearest existing parent node."""
    parts = key.split(".")
    for depth in range(len(parts) - 1, -1, -1):
        parent = ".".join(parts[:depth])
        node = OmegaConf.select(cfg, parent) if parent else cfg
        if isinstance(node, DictConfig):
            keys = [str(k) for k in node.keys() if not str(k).startswith("hydra")]
            where = f"valid keys of {parent}" if parent else "valid top-level keys"
            return f"unknown key {key}; {where}: {closest_first(parts[depth], keys)}"
    return f"unknown key {key}"


def unparsable(overrides: list[str]) -> str | None:
    """The first override Hydra's grammar rejects."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    parser = OverridesParser.create()
    for override in overrides:
        try:
            parser.parse_override(override)
        except Exception:  # noqa: BLE001 - any parse failure
            return override
    return None


def explain(exc: Exception, config_name: str, overrides: list[str]) -> str:
    """One line for a Hydra composition error of ``overrides``."""
    text = str(exc)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    cause = str(exc.__cause__ or "")
    bad = _COULD_NOT_OVERRIDE.search(text)
    if bad and ("not in struct" in cause or "not in struct" in text or "+" + bad.group(1) in text):
        key = bad.group(1)
        # the presets chosen (env=search, model=hf) without any key overrides: the node as its preset has it
        try:
            return unknown_key_message(compose_config(config_name, group_choices(overrides)), key)
        except Exception:  # noqa: BLE001 - another override is broken too: name this one anyway
            return f"unknown key {key}"
    missing = _COULD_NOT_FIND.search(text)
    options = getattr(exc, "options", None)
    if missing and "/" in missing.group(1):
        group, _, value = missing.group(1).rpartition("/")
        return missing_preset(group, value, [o for o in options or () if not is_base(o)])
    if type(exc).__name__ == "OverrideParseException":
        return (f"cannot parse the override {unparsable(overrides) or ' '.join(overrides)!r} ({lines[0]}); "
                f"write key=value, quoting a value that holds spaces, brackets or '=' as key='value'")
    return " ".join(lines) or type(exc).__name__


def missing_preset(group: str, value: str, options: list[str]) -> str:
    """``algo=rao: … install coevo-rao`` where a package that is not installed provides it, else the
    presets there are, closest first."""
    kind = COMPONENT_GROUPS.get(group)
    if kind is not None and value not in kind and value in kind.hints:
        package = kind.hints[value]
        return f"{group}={value}: {kind.kind} '{value}' is provided by {package}, which is not installed: pip install {package}"
    choices = closest_first(value, options)
    return (f"{group}={value}: no preset {group}/{value} in the installed packages' or the repository's configs"
            + (f"; choose one of {choices}" if choices else ""))


def precheck_overrides(config_name: str, argv: Sequence[str], console: Console) -> None:
    """Compose ``config_name`` with ``argv``; a failure is printed as one line and exits 2."""
    overrides = list(argv)
    if any(arg.startswith("-") for arg in overrides):
        return  # Hydra flags (--help, --cfg job, -m): Hydra's own handling
    try:
        compose_config(config_name, overrides)
    except Exception as exc:  # noqa: BLE001 - every composition error becomes one line
        print_error(console, f"error (command line): {explain(exc, config_name, overrides)}")
        sys.exit(EXIT_REFUSED)
