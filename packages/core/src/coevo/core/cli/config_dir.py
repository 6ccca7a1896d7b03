"""Locate the Hydra ``configs/`` folder: ``$COEVO_CONFIG_DIR``, else the nearest ``configs/`` upwards."""

from __future__ import annotations

import os
from pathlib import Path


def find_config_dir(config_name: str = "train.yaml") -> str:
    explicit = os.environ.get("COEVO_CONFIG_DIR")
    if explicit:
        path = Path(explicit).resolve()
        if not (path / config_name).is_file():
            raise SystemExit(f"COEVO_CONFIG_DIR={explicit} has no {config_name}; point it at coevo's configs/ folder")
        return str(path)
    here = Path.cwd().resolve()
    for folder in [here, *here.parents]:
        if (folder / "configs" / config_name).is_file():
            return str(folder / "configs")
    raise SystemExit(
        f"no configs/{config_name} found in {here} or its parents; run from the coevo repository "
        f"or set COEVO_CONFIG_DIR=<path to configs/>"
    )
