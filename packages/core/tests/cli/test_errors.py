"""The top-level handler: one plain-text line naming the stage, exit 2 for refused input and 1 for
an internal failure, the traceback only with debug=true."""

import io

import pytest
from rich.console import Console

from coevo.core.cli.errors import (
    EXIT_INTERNAL,
    EXIT_REFUSED,
    InputError,
    describe,
    is_refused_input,
    run_guarded,
    stage,
    stage_of,
)
from coevo.core.config import ConfigError


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=40, color_system=None), out


def _fail(exc: BaseException, where: str):
    def body():
        with stage("config"), stage(where):
            raise exc

    return body


def test_the_innermost_stage_names_the_failure():
    with pytest.raises(ValueError) as info, stage("training"), stage("evaluation (before)"):
        raise ValueError("x")
    assert stage_of(info.value) == "evaluation (before)"


@pytest.mark.parametrize(
    ("exc", "where", "code"),
    [
        (ConfigError("config error at 'algo.x': bad"), "training", EXIT_REFUSED),  # refused wherever it surfaces
        (InputError("run_dir: cannot be written"), "run folder", EXIT_REFUSED),
        (ValueError("env.qa_file: no questions"), "data", EXIT_REFUSED),  # a ValueError about the input
        (ImportError("pip install 'coevo-envs[dense]'"), "data", EXIT_REFUSED),
        (ValueError("shapes do not match"), "training", EXIT_INTERNAL),  # the same type mid-run: a bug
        (RuntimeError("CUDA out of memory"), "warm start", EXIT_INTERNAL),
    ],
)
def test_exit_code_says_refused_or_internal(exc, where, code):
    console, out = _console()
    with pytest.raises(SystemExit) as info:
        run_guarded(_fail(exc, where), console)
    assert info.value.code == code
    text = out.getvalue()
    assert text.count("\n") == 1, "one line, never wrapped"
    assert text.startswith(f"error ({where}): ")
    assert "Traceback" not in text


def test_messages_are_not_markup():
    # Rich markup would eat "[alfworld]" and crash on the closing tag "[/x]"
    console, out = _console()
    message = "env.name: unknown env 'alfworld'; pip install 'coevo-envs[alfworld]' (path /tmp/[/x]/run)"
    with pytest.raises(SystemExit):
        run_guarded(_fail(ConfigError(message), "config"), console)
    assert message in out.getvalue()


def test_debug_prints_the_traceback(capsys):
    console, out = _console()
    with pytest.raises(SystemExit):
        run_guarded(_fail(RuntimeError("boom"), "training"), console, debug=True)
    assert "Traceback" in capsys.readouterr().err
    assert "rerun with debug=true" in out.getvalue()


def test_internal_failures_say_how_to_see_more():
    line = describe(KeyError("step"), "training", refused=False)
    assert line == ("error (training): KeyError: missing key 'step' (an internal failure, not a refused setting; "
                    "rerun with debug=true for the traceback and report it if it persists)")
    assert not is_refused_input(KeyError("step"), "training")
    assert is_refused_input(KeyError("step"), "config")
