"""What ``resume=`` may change: the config of a resumed run, and the record of what changed.

A resumed run continues the training saved in ``<run>/config.yaml``; that file, not the presets
of today's command line, is its config. A key given on the command line is compared with it:

- equal: nothing to do (``make train`` passes ``algo=…`` and presets on every call);
- a key in ``RESUMABLE`` (how long the run goes, how often it checkpoints and logs, the progress
  bar, CPU threads, the evaluation, where the warm-start cache lives, ``debug``): applied, and recorded in
  ``config.yaml`` (new values, plus a ``resumed:`` history of every change);
- the number of processes (``trainer.devices``, ``trainer.num_nodes``) only for a ``trainer=fsdp``
  run whose checkpoint is sharded (a folder, ``trainer.fsdp.state_dict_type=sharded``):
  torch.distributed.checkpoint reshards the weights and the AdamW state on load. The weights, the
  optimizer moments and step counts, the global step and the data position stay exact; each rank's
  sampling RNG stream cannot (the ranks are others: every rank starts from rank 0's saved stream),
  so the episodes after the resume differ from those of a run never stopped. A commit/rollback root
  held as per-rank shards is refused by ``CommitRollback`` at load, naming the count to use;
- anything else (algorithm, environment, model, seed, optimizer, agent, callbacks, trainer
  strategy, …): refused with a ``ConfigError`` naming the key, its saved value and the way out,
  because the result would be neither the old run nor a new one.

``run_dir`` must be the resumed folder (or absent) and ``overwrite=true`` contradicts ``resume=``.

Which keys were given: Hydra's ``HydraConfig.get().overrides.task`` under the CLI (a given group
that no key carries, like ``experiment=…`` whose presets set keys anywhere, makes every key count
as given). A programmatic
``run(cfg)`` has no command line: then every key whose value differs from the saved one counts
as given (the caller composed exactly what it wants).

Why a resumed 8-step run went to 12 steps: the resume took ``trainer.max_steps`` from the newly
composed config, where the ``trainer=cpu`` preset's 12 stood in for the absent key.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, ListConfig, OmegaConf

from coevo.core.cli.run_dir import LAST_CHECKPOINT, SHARDED_METADATA
from coevo.core.config import ConfigError

# keys (and key prefixes) a resume may change; the rest must equal the saved run's
RESUMABLE = (
    "trainer.max_steps",
    "trainer.checkpoint_every",
    "trainer.log_every",
    "trainer.progress_bar",
    "trainer.cpu_threads",
    "trainer.collective_timeout",  # how long a collective waits, and whether calls are checked: not results
    "trainer.check_collectives",
    "eval",
    "warmstart.cache_dir",
    "debug",
)
PROCESS_COUNT = ("trainer.devices", "trainer.num_nodes")  # resumable from a sharded FSDP checkpoint only
SPECIAL = ("resume", "run_dir", "overwrite", "hydra")  # handled by name, not by comparison
HISTORY = "resumed"  # config.yaml's list of resumes: [{at, changed: {key: {from, to}}}]

_MISSING = object()


def command_line_keys() -> list[str] | None:
    """The keys given on the command line (``algo``, ``algo.optim.lr``, …), or ``None`` outside the CLI."""
    from hydra.core.hydra_config import HydraConfig
    from hydra.core.override_parser.overrides_parser import OverridesParser

    if not HydraConfig.initialized():
        return None
    task = list(HydraConfig.get().overrides.task)
    return [o.key_or_group for o in OverridesParser.create().parse_overrides(task)]


def resumable(key: str) -> bool:
    return any(key == k or key.startswith(k + ".") for k in RESUMABLE)


def _leaves(node: Any, prefix: str) -> dict[str, Any]:
    """``{dotted key: value}`` of every leaf under ``node`` (interpolations unresolved)."""
    if isinstance(node, DictConfig):
        if node._is_missing() or node._is_none():
            return {prefix: None}
        out: dict[str, Any] = {}
        for key in node.keys():
            out |= _leaves(node._get_node(key), f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(node, ListConfig):
        return {prefix: OmegaConf.to_container(node, resolve=False)}
    if node is None:
        return {prefix: _MISSING}
    value = node._value() if hasattr(node, "_value") else node
    return {prefix: value}


def _subtree(cfg: DictConfig, key: str) -> dict[str, Any]:
    node = OmegaConf.select(cfg, key, default=_MISSING, throw_on_resolution_failure=False)
    if node is _MISSING:
        return {}
    parent_key, _, last = key.rpartition(".")
    parent = OmegaConf.select(cfg, parent_key) if parent_key else cfg
    return _leaves(parent._get_node(last), key)


def _absent(key: str, cfg: DictConfig, saved: DictConfig) -> bool:
    """A given key that neither config holds: a config group packaged elsewhere (``experiment``)."""
    if key.split(".")[0] in SPECIAL:
        return False
    return all(OmegaConf.select(c, key, default=_MISSING, throw_on_resolution_failure=False) is _MISSING
               for c in (cfg, saved))


def _show(value: Any) -> str:
    return "(absent)" if value is _MISSING else repr(value) if isinstance(value, str) else str(value)


def changed_keys(cfg: DictConfig, saved: DictConfig, given: list[str] | None) -> list[tuple[str, Any, Any]]:
    """``(key, saved value, new value)`` for every leaf under a given key whose value differs."""
    everything = sorted({*cfg.keys(), *saved.keys()})
    roots = list(given) if given is not None else everything
    if any(_absent(root, cfg, saved) for root in roots):  # a global preset (experiment=…): it may set any key
        roots = everything
    changes, seen = [], set()
    for root in roots:
        if root.split(".")[0] in SPECIAL:
            continue
        new, old = _subtree(cfg, root), _subtree(saved, root)
        for key in sorted({*new, *old}):
            if key in seen:
                continue
            seen.add(key)
            a, b = old.get(key, _MISSING), new.get(key, _MISSING)
            if a != b and not (b is _MISSING and resumable(key)):  # an absent resumable key keeps its value
                changes.append((key, a, b))
    return changes


def reshardable(saved: DictConfig, folder: Path) -> bool:
    """The saved run trained under FSDP and its last checkpoint is a sharded folder (any number of
    processes can load it)."""
    return (OmegaConf.select(saved, "trainer.strategy", default=None) == "fsdp"
            and (folder / LAST_CHECKPOINT / SHARDED_METADATA).is_file())


def _refuse_process_count(key: str, old: Any, new: Any, folder: Path, saved: DictConfig) -> None:
    strategy = OmegaConf.select(saved, "trainer.strategy", default=None)
    why = ("its checkpoint is a full state dict (trainer.fsdp.state_dict_type=full)" if strategy == "fsdp"
           else f"it ran with trainer.strategy={strategy}, whose ranks' RNG streams and replicas are per process")
    raise ConfigError(
        f"config error at '{key}': resume with {key}={_show(new)} but the run in '{folder}' has {key}={_show(old)}; "
        f"the number of processes may change on resume only for a trainer=fsdp run with sharded checkpoints "
        f"(trainer.fsdp.state_dict_type=sharded), and {why}; resume with {key}={_show(old)}, or start a new run"
    )


def _refuse(key: str, old: Any, new: Any, folder: Path, cfg: DictConfig, saved: DictConfig) -> None:
    group = key.split(".")[0]
    name = f"{group}.name"
    new_name = OmegaConf.select(cfg, name, default=None, throw_on_resolution_failure=False)
    old_name = OmegaConf.select(saved, name, default=None, throw_on_resolution_failure=False)
    if new_name != old_name:  # another component: say which
        what = f"{group}={new_name} but the run in '{folder}' was trained with {group}={old_name}"
    else:
        what = f"{key}={_show(new)} but the run in '{folder}' has {key}={_show(old)}"
    raise ConfigError(
        f"resume: {what}; a resume continues the same run and may change only {', '.join(RESUMABLE)}. "
        f"Drop it from the command line, or start a new run (another run_dir=…, or overwrite=true)"
    )


def resumed_config(cfg: DictConfig, folder: Path, given: list[str] | None) -> tuple[DictConfig, list]:
    """The saved config with the allowed changes applied (``resume`` set) and the list of changes;
    raises ``ConfigError`` for a change a resume may not make."""
    saved = OmegaConf.load(folder / "config.yaml")
    with_history = OmegaConf.to_container(saved, resolve=False)
    with_history.pop(HISTORY, None)
    saved = OmegaConf.create(with_history)
    if cfg.get("overwrite") and (given is None or "overwrite" in given):
        raise ConfigError(f"resume: overwrite=true would replace the run that resume={folder} continues; "
                          f"pass one of them")
    if given is None or "run_dir" in given:
        run_dir = OmegaConf.select(cfg, "run_dir", throw_on_resolution_failure=False)
        if run_dir is not None and Path(str(run_dir)).resolve() != folder.resolve():
            raise ConfigError(f"resume: run_dir={run_dir} differs from the resumed folder '{folder}'; a resumed run "
                              f"continues in its own folder: drop run_dir=… (or start a new run there without resume=)")
    changes = changed_keys(cfg, saved, given)
    for key, old, new in changes:
        if key in PROCESS_COUNT and not reshardable(saved, folder):
            _refuse_process_count(key, old, new, folder, saved)
        if not resumable(key) and key not in PROCESS_COUNT:
            _refuse(key, old, new, folder, cfg, saved)
    merged = OmegaConf.merge(saved, {})
    for key, _, new in changes:
        OmegaConf.update(merged, key, new, force_add=True)
    OmegaConf.update(merged, "resume", str(folder), force_add=True)
    return merged, changes


def record_resume(folder: Path, cfg: DictConfig, changes: list) -> None:
    """Write the resumed run's ``config.yaml``: its values now, and the history of resumes."""
    path = folder / "config.yaml"
    history = list(OmegaConf.to_container(OmegaConf.load(path), resolve=False).get(HISTORY) or [])
    history.append({"at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                    "changed": {k: {"from": None if a is _MISSING else a, "to": None if b is _MISSING else b}
                                for k, a, b in changes}})
    data = OmegaConf.to_container(cfg, resolve=False)
    data["resume"] = None  # config.yaml describes the run; how it was last launched is in the history
    data[HISTORY] = history
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    OmegaConf.save(OmegaConf.create(data), tmp)
    os.replace(tmp, path)
