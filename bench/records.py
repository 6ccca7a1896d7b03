"""Where a benchmark's results go: one JSON record per study, next to its script
(``bench/<question>/<study>.py`` writes ``bench/<question>/<study>.json``).

A study that holds several runs (other settings, other models, a re-run after a fix) keeps each as an
entry of that one record, its settings inside it rather than in a file name::

    {"study": "peer_trl", "question": "…", "script": "bench/peer/peer_trl.py",
     "entries": [{"entry": "tiny", "settings": {"repeats": "6", "steps": "8"}, "command": "…", …}, …]}

``save_entry`` writes one entry (replacing the entry of that name, keeping the others); ``settings_of``
reads a command line's settings: its ``--flags`` and ``key=value`` overrides; ``commit_of`` names the code measured. The docs' tables read an
entry with ``docs/results_tables.py``'s ``_record(root, study, entry)``; the notebook cites one as
``study.json#entry``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def commit_of(checkout: Path = ROOT) -> str:
    """The short hash of ``checkout``'s HEAD (empty outside a git checkout)."""
    done = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return done.stdout.strip()


# flags that name where a result goes (a name, not a setting of the measurement)
NOT_SETTINGS = {"entry", "out", "results"}
# flags whose values are key=value overrides of their own (kept as a list under the flag)
OVERRIDE_FLAGS = {"rsipo_overrides", "override", "household_override", "variant", "set"}


def settings_of(argv: list[str]) -> dict:
    """The settings a command line gives: ``--flag value…`` as ``{"flag": value or [values]}`` (a bare flag:
    ``true``), positional arguments before the first flag under ``policy`` (one) or ``positional``, and
    trailing ``key=value`` Hydra overrides under ``overrides``; values stay strings, as typed."""
    settings: dict = {}
    overrides: dict[str, str] = {}
    positional: list[str] = []
    flag = None
    for token in argv:
        if token.startswith("--"):
            flag = token[2:].replace("-", "_")
            settings.setdefault(flag, True)
        elif "=" in token and flag in OVERRIDE_FLAGS:
            settings[flag] = ([] if settings[flag] is True else settings[flag]) + [token]
        elif "=" in token and not token.startswith("="):
            key, value = token.split("=", 1)
            overrides[key] = value
            flag = None
        elif flag is not None:
            old = settings[flag]
            settings[flag] = token if old is True else (old if isinstance(old, list) else [old]) + [token]
        else:
            positional.append(token)
    for name in NOT_SETTINGS:
        settings.pop(name, None)
    if positional:
        settings = {("policy" if len(positional) == 1 else "positional"):
                    positional[0] if len(positional) == 1 else positional, **settings}
    if overrides:
        settings["overrides"] = overrides
    return settings


def save_entry(study: Path, entry: str, record: dict, argv: list[str], question: str = "") -> Path:
    """Write ``record`` as entry ``entry`` of the study record ``study`` (a ``.json`` next to its script),
    with the settings of ``argv``; an entry of the same name is replaced, the others are kept."""
    study = Path(study)
    data = json.loads(study.read_text()) if study.exists() else {
        "study": study.stem, "question": question, "script": study.with_suffix(".py").relative_to(ROOT).as_posix(),
        "entries": []}
    new = {"entry": entry, "settings": settings_of(argv), **record}
    entries = [e for e in data["entries"] if e["entry"] != entry]
    at = next((i for i, e in enumerate(data["entries"]) if e["entry"] == entry), len(entries))
    data["entries"] = entries[:at] + [new] + entries[at:]
    study.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return study
