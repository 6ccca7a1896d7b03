"""Core's layer order (packages/core/README.md, "Layout"): a module imports only from its own layer or
those below. Every import under ``coevo/core`` is parsed (``ast``, imports inside functions too), so a
lower layer importing a higher one fails here, naming the file, the line and both layers.

A new top-level module or folder must be given a layer in ``LAYERS`` (and in the README's list).
"""

from __future__ import annotations

import ast
from pathlib import Path

import coevo.core

CORE = Path(coevo.core.__file__).parent

# Lowest first; each entry is a top-level module (without .py) or folder of coevo/core.
LAYERS = [
    ["__init__", "configs", "algorithm_contract", "fields", "registry", "time_bound", "reporting", "openmp", "state"],
    ["config", "plugins", "env"],
    ["policy", "data", "distributed", "seeds", "progress"],
    ["rollout"],
    ["agent"],
    ["workers"],
    ["algos", "evaluation", "expert_data", "serve"],
    ["warmstart", "callbacks"],
    ["cli"],
    ["memory_planner", "testing", "builtin"],
]
LAYER = {name: i for i, names in enumerate(LAYERS) for name in names}

def _top(path: Path) -> str:
    """The top-level module or folder of coevo/core a file belongs to."""
    return path.relative_to(CORE).parts[0].removesuffix(".py")


def _imported_tops(tree: ast.AST, path: Path):
    """(line, top-level name of coevo/core) for every import of core in ``tree``, at any depth."""
    package = ["coevo", "core", *path.relative_to(CORE).parts[:-1]]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            modules = [(module, [alias.name for alias in node.names])]
        else:
            continue
        for module, names in modules:
            parts = module.split(".")
            if parts[:2] != ["coevo", "core"]:
                continue
            if len(parts) > 2:
                yield node.lineno, parts[2]
            else:  # `import coevo.core` or `from coevo.core import registry, __version__`
                for name in names or ["__init__"]:
                    yield node.lineno, name if name in LAYER else "__init__"


def _violations() -> tuple[list[str], list[str]]:
    """(messages of imports that break the order, files of no layer)."""
    messages, unplaced = [], []
    for path in sorted(CORE.rglob("*.py")):
        rel = path.relative_to(CORE).as_posix()
        top = _top(path)
        if top not in LAYER:
            unplaced.append(rel)
            continue
        for line, target in _imported_tops(ast.parse(path.read_text(), rel), path):
            if target not in LAYER:
                unplaced.append(f"{target} (imported by {rel}:{line})")
            elif LAYER[target] > LAYER[top]:
                messages.append(f"{rel}:{line} (layer {LAYER[top]}, {top}) imports {target} (layer {LAYER[target]})")
    return messages, unplaced


def test_every_module_has_a_layer():
    _, unplaced = _violations()
    assert not unplaced, f"give these a layer in LAYERS and in packages/core/README.md: {unplaced}"


def test_no_lower_layer_imports_a_higher_one():
    messages, _ = _violations()
    assert not messages, "imports against core's layer order (packages/core/README.md):\n" + "\n".join(messages)


def test_the_check_sees_imports_inside_functions():
    source = "def f():\n    from coevo.core.cli import train\n"
    path = CORE / "state" / "probe.py"  # never written: only its place in the tree matters
    assert list(_imported_tops(ast.parse(source), path)) == [(2, "cli")]
    relative = "from ..algos import grpo\nfrom . import plain\n"
    assert list(_imported_tops(ast.parse(relative), path)) == [(1, "algos"), (2, "state")]
