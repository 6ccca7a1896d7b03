"""coevo's OpenMP default: waiting threads sleep (OMP_WAIT_POLICY=PASSIVE) unless the user chose."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from coevo.core.openmp import prefer_sleeping_threads


def test_sets_passive_when_nothing_is_chosen():
    environ = {"PATH": "/bin"}
    assert prefer_sleeping_threads(environ) is True
    assert environ == {"PATH": "/bin", "OMP_WAIT_POLICY": "PASSIVE"}


@pytest.mark.parametrize("chosen", [{"OMP_WAIT_POLICY": "ACTIVE"}, {"GOMP_SPINCOUNT": "300000"},
                                    {"OMP_WAIT_POLICY": "passive", "GOMP_SPINCOUNT": "0"}])
def test_a_users_choice_wins(chosen):
    environ = dict(chosen)
    assert prefer_sleeping_threads(environ) is False
    assert environ == chosen


def _environment_without_openmp() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}


@pytest.mark.parametrize("entry", ["coevo.core.cli.train", "coevo.core.cli.eval"])
def test_entry_points_set_it_before_torch_loads(entry):
    # the variable must be in the environment when torch (and libgomp) is first imported
    code = ("import builtins, os\n"
            "real = builtins.__import__\n"
            "def spy(name, *args, **kwargs):\n"
            "    if name == 'torch' and not hasattr(spy, 'seen'):\n"
            "        spy.seen = os.environ.get('OMP_WAIT_POLICY')\n"
            "    return real(name, *args, **kwargs)\n"
            "builtins.__import__ = spy\n"
            f"import {entry}\n"
            "print(spy.seen)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=_environment_without_openmp())
    assert out.stdout.strip().splitlines()[-1] == "PASSIVE"
