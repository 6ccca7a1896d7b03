"""``coevo/evoheir/math_env.py`` is the one module of coevo-evoheir that imports coevo-envs."""

import ast
from pathlib import Path

import coevo.evoheir.math_env as math_env

SRC = Path(math_env.__file__).resolve().parent


def _imported_modules(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
        elif isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
    return names


def test_only_the_adapter_imports_coevo_envs():
    offenders = {
        str(path.relative_to(SRC)): name
        for path in sorted(SRC.rglob("*.py"))
        if path.name != "math_env.py"
        for name in _imported_modules(path)
        if name == "coevo.envs" or name.startswith("coevo.envs.")
    }
    assert offenders == {}


def test_the_adapter_exports_what_it_imports():
    assert sorted(math_env.__all__) == sorted(
        name for name in vars(math_env) if not name.startswith("_") and name != "annotations"
    )
