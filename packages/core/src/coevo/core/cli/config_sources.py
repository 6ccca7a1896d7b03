"""Where ``coevo-train`` and ``coevo-eval`` find their Hydra configs.

Every installed coevo package carries the config entries of what it registers: the base nodes of
its Config dataclasses (``config_defaults.py``) and its presets, a folder of YAML files inside the
package (``coevo/rsipo/configs/algo/skill_grpo.yaml``) named by its ``coevo.configs`` entry point.
Core's folder holds the primary configs (``train.yaml``, ``eval.yaml``) and core's own presets.
The search path, first match wins:

1. core's folder (``pkg://coevo.core.configs``: Hydra's primary config path);
2. the repository's ``configs/`` (experiment presets): ``$COEVO_CONFIG_DIR``, else the nearest
   ``configs/`` folder upwards from the working directory that holds ``experiment/``;
3. each installed package's folder, in the order of their distribution names.

A wheel installed outside the repository therefore runs ``coevo-train algo=rsipo`` from any folder.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import metadata, resources
from pathlib import Path

from omegaconf import DictConfig

from coevo.core.cli.config_defaults import chosen_components, is_base, store_chosen, store_defaults

ENTRY_POINT_GROUP = "coevo.configs"  # <distribution> = "<importable package holding its YAML presets>"
REPOSITORY_MARKER = "experiment"  # the repository's configs/ holds configs/experiment/
_prepared: set[tuple] = set()  # (config name, preset choices, repository) whose components are stored


def package_config_dir() -> str:
    """Core's own config folder (``train.yaml``, ``eval.yaml``, core's presets): the primary path."""
    return str(resources.files("coevo.core.configs"))


def repository_config_dir() -> str | None:
    """``$COEVO_CONFIG_DIR``, else the nearest ``configs/`` upwards holding ``experiment/``, else None."""
    explicit = os.environ.get("COEVO_CONFIG_DIR")
    if explicit:
        path = Path(explicit).resolve()
        if not path.is_dir():
            raise SystemExit(f"COEVO_CONFIG_DIR={explicit} is not a folder; point it at a folder of config "
                             f"presets (the repository's configs/) or unset it")
        return str(path)
    here = Path.cwd().resolve()
    for folder in [here, *here.parents]:
        if (folder / "configs" / REPOSITORY_MARKER).is_dir():
            return str(folder / "configs")
    return None


def package_config_modules() -> list[str]:
    """The config packages of the installed coevo distributions (core's excluded: it is primary)."""
    found = {ep.value for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}
    return sorted(found - {"coevo.core.configs"})


def search_path(repository: str | None = None) -> list[str]:
    """Hydra search path entries after core's folder: the repository's configs/, then the packages'."""
    repository = repository or repository_config_dir()
    entries = [Path(repository).resolve().as_uri()] if repository else []
    return entries + [f"pkg://{module}" for module in package_config_modules()]


def search_path_override(repository: str | None = None) -> str:
    """The ``hydra.searchpath=[…]`` override that adds ``search_path()``."""
    quoted = ",".join(f"'{entry}'" for entry in search_path(repository))
    return f"hydra.searchpath=[{quoted}]"


def hydra_overrides(overrides: Sequence[str], repository: str | None = None) -> list[str]:
    """``overrides`` plus the search path: what Hydra composes."""
    return [*overrides, search_path_override(repository)]


def group_choices(overrides: Sequence[str]) -> list[str]:
    """The overrides that choose presets or set top-level keys (``algo=rsipo``, ``+callbacks=x``,
    ``seed=1``), not those of keys inside a node (``algo.optim.lr=…``) nor Hydra's flags."""
    return [o for o in overrides if "=" in o and not o.startswith("-")
            and "." not in o.split("=", 1)[0].lstrip("+~")]


def prepare_components(config_name: str, overrides: Sequence[str], repository: str | None = None) -> None:
    """Store the base nodes, with the Config defaults of the components that ``overrides`` choose:
    a first composition of their preset choices alone, on placeholders, names them."""
    from hydra import compose

    store_defaults()
    repository = repository or repository_config_dir()
    choices = (config_name, tuple(group_choices(overrides)), repository)
    if choices in _prepared:  # the CLI's precheck did it; hydra.main's composition follows
        return
    with initialized():
        first = compose(config_name, overrides=hydra_overrides(list(choices[1]), repository))
    store_chosen(chosen_components(first))
    _prepared.add(choices)


@contextmanager
def initialized() -> Iterator[None]:
    """Hydra's compose API initialised on core's config folder."""
    from hydra import initialize_config_dir

    with initialize_config_dir(config_dir=package_config_dir(), version_base="1.3"):
        yield


def compose_config(config_name: str, overrides: Sequence[str] = (), repository: str | None = None,
                   **kwargs) -> DictConfig:
    """``train`` or ``eval`` composed with ``overrides`` from every installed package's configs
    (``repository``: a configs/ folder to search first; default ``repository_config_dir()``)."""
    from hydra import compose

    prepare_components(config_name, overrides, repository)
    with initialized():
        return compose(config_name, overrides=hydra_overrides(overrides, repository), **kwargs)


def preset_names(group: str, repository: str | None = None) -> list[str]:
    """The presets a user may choose in ``group`` (``algo`` → grpo, rsipo, …; base nodes left out)."""
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.object_type import ObjectType

    store_defaults()  # placeholders name every option
    with initialized():
        loader = GlobalHydra.instance().config_loader()
        options = loader.get_group_options(group, results_filter=ObjectType.CONFIG, config_name="train",
                                           overrides=hydra_overrides([], repository))
    return [name for name in options if not is_base(name)]
