"""How ``coevo-train`` and ``coevo-eval`` hand the command line to Hydra: the overrides are checked
first (one line per mistake, ``cli/overrides.py``), then ``hydra.main`` runs the task on core's
primary config with every installed package's configs on the search path (``cli/config_sources.py``)."""

from __future__ import annotations

import sys
from collections.abc import Callable

import hydra
from omegaconf import DictConfig
from rich.console import Console

from coevo.core.cli.config_sources import hydra_overrides, package_config_dir, prepare_components
from coevo.core.cli.overrides import precheck_overrides


def run_hydra(config_name: str, task: Callable[[DictConfig], None], console: Console) -> None:
    """Check ``sys.argv``'s overrides, then ``task(cfg)`` under ``hydra.main`` (its flags included)."""
    precheck_overrides(config_name, sys.argv[1:], console)
    # also where the command line has its search path already (a relaunched rank) or Hydra's flags
    prepare_components(config_name, sys.argv[1:])
    if not any(arg.startswith("hydra.searchpath=") for arg in sys.argv[1:]):
        # first: argparse takes no positional override after a flag (--cfg job)
        sys.argv[1:] = [*hydra_overrides([]), *sys.argv[1:]]
    hydra.main(config_path=package_config_dir(), config_name=config_name, version_base="1.3")(task)()
