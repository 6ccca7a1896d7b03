"""The one top-level error handler of ``coevo-train`` and ``coevo-eval``.

Every exception that reaches the entry point becomes one line, ``error (<stage>): <message>``,
naming the stage the run was in (``with stage("warm start"): ...``) and the fix. Refused input
exits with code 2, an internal failure with 1; ``debug=true`` prints the full traceback as well.
Messages are printed as plain text, never as Rich markup: ``pip install 'coevo-envs[alfworld]'``
keeps its extras and a path holding ``[/x]`` prints as it is.
"""

from __future__ import annotations

import contextlib
import contextvars
import sys
import traceback
from collections.abc import Callable, Iterator

from rich.console import Console
from rich.text import Text

from coevo.core import registry
from coevo.core.cli.collective_errors import describe_collective_failure
from coevo.core.config import ConfigError

EXIT_REFUSED = 2  # the input (config, files, paths) was refused; nothing was done
EXIT_INTERNAL = 1  # a failure inside coevo or its libraries once the input was accepted
EXIT_INTERRUPTED = 130  # Ctrl-C (the shell's 128 + SIGINT)

#: stages in which a ValueError / OSError / ImportError is about the user's input, not a bug
INPUT_STAGES = ("command line", "config", "data", "model folder", "run folder", "checkpoint")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("coevo_stage", default="startup")


class InputError(ValueError):
    """Refused input that no more specific error class describes (names the key and the fix)."""


@contextlib.contextmanager
def stage(name: str) -> Iterator[None]:
    """Name the stage of the run for the error line of any exception raised inside."""
    token = _current.set(name)
    try:
        yield
    except BaseException as exc:
        if getattr(exc, "coevo_stage", None) is None:  # the innermost stage names the failure
            try:
                exc.coevo_stage = name
            except AttributeError:  # an exception type without a __dict__
                pass
        raise
    finally:
        _current.reset(token)


def stage_of(exc: BaseException) -> str:
    return getattr(exc, "coevo_stage", None) or _current.get()


def is_refused_input(exc: BaseException, stage_name: str) -> bool:
    """Exit 2 (the input was refused) rather than 1 (an internal failure)?"""
    if isinstance(exc, (ConfigError, InputError, FileExistsError, registry.RegistryError)):
        return True
    if type(exc).__name__ in ("ModelLoadError", "DataFileError", "RunDirError"):
        return True
    return stage_name in INPUT_STAGES and isinstance(exc, (ValueError, LookupError, OSError, ImportError))


def one_line(exc: BaseException) -> str:
    """The exception's message on one line (its type's name where the message is empty)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    text = " ".join(lines)
    if isinstance(exc, KeyError) and len(exc.args) == 1:  # str(KeyError) is the repr of the key
        text = f"missing key {exc.args[0]!r}"
    return text or type(exc).__name__


def describe(exc: BaseException, stage_name: str, refused: bool) -> str:
    """``error (<stage>): <message>`` plus the generic fix where the message has none."""
    message = one_line(exc)
    if refused:
        return f"error ({stage_name}): {message}"
    collective = describe_collective_failure(exc)
    if collective is not None:  # ranks that did not meet in a collective call
        return f"error ({stage_name}): {collective}"
    return (f"error ({stage_name}): {type(exc).__name__}: {message} (an internal failure, not a refused "
            f"setting; rerun with debug=true for the traceback and report it if it persists)")


def print_error(console: Console, line: str) -> None:
    """Print ``line`` as plain text (no markup, no wrapping), "error" in red."""
    head, _, rest = line.partition(" ")
    console.print(Text.assemble((head, "bold red"), " ", rest), soft_wrap=True, highlight=False)


def run_guarded(body: Callable[[], object], console: Console, debug: bool = False) -> object:
    """``body()``; any exception is printed as one line and ends the process (exit 2 or 1)."""
    try:
        return body()
    except SystemExit:
        raise
    except KeyboardInterrupt as exc:
        print_error(console, f"error ({stage_of(exc)}): interrupted")
        sys.exit(EXIT_INTERRUPTED)
    except BaseException as exc:  # noqa: BLE001 - the one place every failure is reported
        name = stage_of(exc)
        refused = is_refused_input(exc, name)
        if debug:
            traceback.print_exc()
        print_error(console, describe(exc, name, refused))
        sys.exit(EXIT_REFUSED if refused else EXIT_INTERNAL)


def debug_flag(cfg) -> bool:
    """``debug`` of a composed config, false where it is missing or not a boolean."""
    try:
        return cfg.get("debug", False) is True
    except Exception:  # noqa: BLE001 - a broken config is reported by the run itself
        return False
