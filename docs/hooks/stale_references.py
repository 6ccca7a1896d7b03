"""MkDocs hook: a ``coevo.…`` name in a docstring, or a repository file named on a page, that no
longer exists fails the strict build.

Docstrings name other code as ``coevo.core.testing.ddp.train_ddp`` (in double backticks), as an
import string ``coevo.rsipo.module:RSIPO``, or with a Sphinx role (:func:`coevo.core.x.f`). This
hook loads every package's source with griffe (statically, as mkdocstrings does: nothing is
imported) and logs a warning, which ``mkdocs build --strict`` turns into a failure, for each such
name that resolves to no module, class, function or attribute.

A page (with the files it includes through ``--8<--``) that names a script, test, config or page
of the repository (``bench/methods/pg/pg_family.py``, ``tests/test_plugins.py``, ``configs/experiment/….yaml``)
gets a warning when that file does not exist, relative to the repository or to one of its
packages (their READMEs name ``tests/…`` and ``configs/…`` from the package's own folders).
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

import griffe

log = logging.getLogger("mkdocs.hooks.stale_references")

PACKAGES = ("core", "envs", "rsipo", "rao", "evoheir")
# a repository path of code or docs named on a page; run outputs (*.json, *.jsonl) are not checked
FILE = re.compile(r"(?<![\w/.-])((?:bench|packages|configs|tests|specs|docs|\.ci)/[\w./-]*\.(?:py|sh|md|yaml))\b")
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)
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


def _roots(repo_root: Path) -> list[Path]:
    roots = [repo_root]
    for package in PACKAGES:
        roots += [repo_root / "packages" / package, repo_root / "packages" / package / "src" / "coevo" / package]
    return roots


def missing_files(markdown: str, repo_root: Path) -> list[str]:
    """Repository files named in ``markdown`` (and the files it includes) that exist nowhere."""
    text = markdown + "".join((repo_root / name).read_text() for name in SNIPPET.findall(markdown)
                              if (repo_root / name).is_file())
    roots = _roots(repo_root)
    return sorted({name for name in FILE.findall(text) if not any((root / name).exists() for root in roots)})


def on_page_markdown(markdown, page, config, **kwargs):
    for name in missing_files(markdown, Path(config["config_file_path"]).parent):
        log.warning("%s names a file that does not exist: %s", page.file.src_path, name)
    return markdown


def on_config(config, **kwargs):
    for line in stale_references(Path(config["config_file_path"]).parent):
        log.warning("docstring names something that does not exist: %s", line)
    return config
