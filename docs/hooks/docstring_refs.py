"""MkDocs hook: a ``coevo.…`` name in a docstring that no longer exists fails the strict build.

Docstrings name other code as ``coevo.core.testing.ddp.train_ddp`` (in double backticks), as an
import string ``coevo.rsipo.module:RSIPO``, or with a Sphinx role (:func:`coevo.core.x.f`). This
hook loads every package's source with griffe (statically, as mkdocstrings does: nothing is
imported) and logs a warning, which ``mkdocs build --strict`` turns into a failure, for each such
name that resolves to no module, class, function or attribute.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import griffe

log = logging.getLogger("mkdocs.hooks.docstring_refs")

PACKAGES = ("core", "envs", "rsipo", "rao", "evoheir")
# a dotted coevo name inside ``…`` or a role's `…`; an import string's ':' counts as a '.'
REFERENCE = re.compile(r"`(coevo(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_][\w.]*)?)`")


def _objects(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def _resolves(root: griffe.ModulesCollection, dotted: str) -> bool:
    parts = dotted.replace(":", ".").split(".")
    try:
        obj = root[".".join(parts[:2])]
        for part in parts[2:]:
            obj = obj.members[part]
    except KeyError:
        return False
    return True


def stale_references(repo_root: Path) -> list[str]:
    """``"<module path>: coevo.x.y"`` for each docstring name that resolves to nothing."""
    loader = griffe.GriffeLoader(search_paths=[str(repo_root / "packages" / p / "src") for p in PACKAGES])
    modules = [loader.load(f"coevo.{p}") for p in PACKAGES]
    loader.resolve_aliases(implicit=False, external=False)
    stale = []
    for module in modules:
        for obj in _objects(module):
            if obj.docstring is None:
                continue
            for name in REFERENCE.findall(obj.docstring.value):
                if name.split(".")[1] not in PACKAGES:  # an entry-point group (coevo.plugins), not code
                    continue
                if not _resolves(loader.modules_collection, name):
                    stale.append(f"{obj.path}: {name}")
    return stale


def on_config(config, **kwargs):
    for line in stale_references(Path(config["config_file_path"]).parent):
        log.warning("docstring names something that does not exist: %s", line)
    return config
