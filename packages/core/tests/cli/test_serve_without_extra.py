"""``coevo-serve`` without ``coevo-core[serve]``: one line saying what to install, exit 2; and its
config schema declares every field (runs in core's plain test venv, FastAPI or not)."""

from __future__ import annotations

import subprocess
import sys

from coevo.core.serve.schema import ServeSchema
from coevo.core.testing.field_walk import field_problems

WITHOUT_FASTAPI = ("import sys; sys.modules['fastapi'] = None; sys.argv = ['coevo-serve', 'model.path=/nowhere']; "
                   "from coevo.core.cli.serve import main; main()")


def test_missing_extra_names_the_install():
    done = subprocess.run([sys.executable, "-c", WITHOUT_FASTAPI], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "pip install 'coevo-core[serve]'" in lines[0]


def test_serve_schema_fields_are_declared_and_enforced():
    assert field_problems(ServeSchema, "") == []
