"""The config dataclasses are the one source of defaults, and every preset exposes every field.

- Every preset of a component group composes to a node holding every field of its component's
  schema, so that any key can be overridden from the command line (Hydra refuses to override a key
  the node does not hold).
- A preset that inherits a base node (``defaults: [base_<name>, _self_]``) lists only the keys
  that differ from it: a value equal to the inherited default would be a second source.
- The rollout presets, which list every field (the vLLM engine's Config needs vLLM to be read),
  equal their dataclass's defaults.
"""

import dataclasses
import typing
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from coevo.core import registry
from coevo.core.cli.config_defaults import COMPONENT_GROUPS, component_node, defaults_of, run_settings
from coevo.core.cli.config_sources import (
    compose_config,
    package_config_dir,
    package_config_modules,
    preset_names,
)
from coevo.core.cli.schema import EvalSchema, TrainerSettings, TrainSchema
from coevo.core.rollout.async_settings import AsyncRolloutSettings, RaySettings, split_rollout_node

REPOSITORY = str(Path(__file__).resolve().parents[1] / "configs")
GROUPS = {**COMPONENT_GROUPS, "rollout": registry.rollout_engines}
HF_PATH = ["model.path=/nonexistent/model"]  # model=hf needs a folder; only the node's shape is checked


def missing_keys(node, schema, prefix=""):
    """Schema fields (recursively through nested dataclasses) that ``node`` does not set."""
    hints = typing.get_type_hints(schema)
    missing = []
    for f in dataclasses.fields(schema):
        key = f"{prefix}{f.name}"
        if f.name not in node.keys():
            missing.append(key)
        elif dataclasses.is_dataclass(hints[f.name]) and node[f.name] is not None:
            missing += missing_keys(node[f.name], hints[f.name], key + ".")
    return missing


def component_of(group, node):
    try:
        return GROUPS[group].get(node.name)
    except registry.RegistryError as exc:  # an optional dependency (vllm) absent here: its own suite checks it
        if "failed to import" not in str(exc):
            raise
        pytest.skip(str(exc).splitlines()[0])


def composed_nodes(group, name):
    """``[(node, …)]`` of preset ``group/name`` as a run sees it (a callbacks preset: its one entry)."""
    override = f"+callbacks={name}" if group == "callbacks" else f"{group}={name}"
    extra = HF_PATH if (group, name) == ("model", "hf") else []
    cfg = compose_config("train", [override, *extra], repository=REPOSITORY)
    return list(cfg.callbacks.values()) if group == "callbacks" else [cfg[group]]


PRESETS = [(group, name) for group in GROUPS for name in preset_names(group, REPOSITORY)]


@pytest.mark.parametrize("group,name", PRESETS, ids=lambda v: str(v))
def test_every_preset_holds_every_field(group, name):
    for node in composed_nodes(group, name):
        schema = component_of(group, node).Config
        if group == "rollout":  # where the engine runs: validated apart (coevo.core.rollout.async_settings)
            node = OmegaConf.create(split_rollout_node(node)[0])
        assert missing_keys(node, schema) == []
        assert set(node.keys()) - {f.name for f in dataclasses.fields(schema)} <= {"name"}, "unknown keys"


def preset_files():
    """(group, path) of every YAML preset shipped by core and the installed packages."""
    from importlib import resources

    folders = [Path(package_config_dir())] + [Path(str(resources.files(m))) for m in package_config_modules()]
    return [(path.parent.name, path) for folder in folders for path in sorted(folder.glob("*/*.yaml"))]


def _leaves(node, prefix=""):
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            out |= _leaves(value, f"{prefix}{key}.")
        return out
    return {prefix[:-1]: node}


def base_of(group, path):
    """The base node a preset file inherits, and where its own keys sit in it (None: no base)."""
    raw = OmegaConf.to_container(OmegaConf.load(path))
    for entry in raw.get("defaults", []):
        text = entry if isinstance(entry, str) else ""
        if text.startswith("base_"):
            base_name, _, package = text.partition("@")
            name = base_name.removeprefix("base_")
            if group == "trainer":
                return defaults_of(TrainerSettings), raw, ""
            node = component_node(COMPONENT_GROUPS[group], name)
            return ({name: node} if group == "callbacks" else node), raw, package
    return None, raw, ""


@pytest.mark.parametrize("group,path", preset_files(), ids=lambda v: v if isinstance(v, str) else v.name)
def test_a_preset_lists_only_what_differs_from_its_base(group, path):
    base, raw, package = base_of(group, path)
    if base is None:
        pytest.skip("inherits another preset or lists every field (rollout)")
    own = raw.get(package, {}) if package else {k: v for k, v in raw.items() if k != "defaults"}
    base_leaves = _leaves(base)
    repeated = {k: v for k, v in _leaves(own).items() if k in base_leaves and base_leaves[k] == v and k != "name"}
    assert repeated == {}, f"{path} repeats its base's defaults"


@pytest.mark.parametrize("name", ["hf"])
def test_rollout_presets_equal_their_dataclass(name):
    node = OmegaConf.to_container(compose_config("train", [f"rollout={name}"]).rollout)
    placement = {"async": defaults_of(AsyncRolloutSettings), "ray": defaults_of(RaySettings)}
    assert node == {**defaults_of(registry.rollout_engines.get(name).Config), "name": name, **placement}


def test_the_run_settings_come_from_the_schemas():
    cfg = compose_config("train", [], repository=REPOSITORY)
    for group in ("agent", "warmstart", "eval"):
        assert missing_keys(cfg[group], typing.get_type_hints(TrainSchema)[group], group + ".") == []
    assert missing_keys(cfg.trainer, TrainerSettings) == []
    assert set(run_settings(TrainSchema)) <= set(cfg.keys())
    evaluated = compose_config("eval", ["checkpoint=x"], repository=REPOSITORY)
    assert set(run_settings(EvalSchema)) <= set(evaluated.keys())


def test_composing_reads_only_the_chosen_components():
    """The default run's composition imports no other component's module: vLLM scans every imported
    module when it starts and failed on numba's, which the search env brings in."""
    import subprocess
    import sys

    script = ("import sys; from coevo.core.cli.config_sources import compose_config; "
              "cfg = compose_config('train', ['algo.optim.lr=1e-3']); "
              "print(cfg.algo.name, cfg.env.name, len(cfg.algo), "
              "[m for m in ('coevo.envs.search.env', 'coevo.envs.math.env', 'numba', 'coevo.rsipo.module', "
              "'coevo.rao.module', 'coevo.evoheir.module') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    name, env, fields, imported = done.stdout.strip().splitlines()[-1].split(" ", 3)
    assert (name, env, imported) == ("grpo", "household", "[]")
    assert int(fields) == len(dataclasses.fields(registry.algorithms.get("grpo").Config))  # the full node
