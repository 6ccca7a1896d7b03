"""``eval.depth=…`` / ``eval.size=…``: evaluate beyond the training range.

Procedural environments keep one value of their difficulty knob for training and the
in-distribution split, and a larger one (``env.ood_<knob>``) for ``eval_out_of_distribution``.
These two top-level keys set that larger value without knowing the env's field name:

- ``eval.depth`` → ``env.ood_depth`` (algebra, craft);
- ``eval.size`` → ``env.ood_size`` (maze), or ``env.ood_num_chunks`` where an env measures its
  size in chunks (longctx).

Core's flat before/after evaluation plays ``eval.split``, so a knob needs
``eval.split=eval_out_of_distribution`` there (an error says so); RAO's report evaluates the
out-of-distribution split (or size) itself.
"""

from __future__ import annotations

from omegaconf import DictConfig, open_dict

from coevo.core.config import ConfigError

OOD_SPLIT = "eval_out_of_distribution"
# top-level key -> the env config fields it may set, in order of preference
KNOB_FIELDS = {"depth": ("ood_depth",), "size": ("ood_size", "ood_num_chunks")}


def apply_eval_range(cfg: DictConfig, flat_eval: bool) -> DictConfig:
    """Copy ``eval.depth`` / ``eval.size`` (when set) onto the env's out-of-distribution field.

    ``flat_eval``: core's own evaluation will run (``eval.before`` or ``eval.after``), which plays
    ``eval.split``; a knob is then only meaningful with the out-of-distribution split.
    """
    evaluation = cfg.get("eval") or {}
    env = cfg.get("env")
    for key, fields in KNOB_FIELDS.items():
        value = evaluation.get(key)
        if value is None:
            continue
        env_name = env.get("name") if env is not None else None
        field = next((f for f in fields if env is not None and f in env), None)
        if field is None:
            raise ConfigError(
                f"config error at 'eval.{key}': env '{env_name}' has no out-of-distribution {key} "
                f"(none of {', '.join('env.' + f for f in fields)}); eval.{key} applies to envs with a "
                f"{key} knob (depth: algebra, craft; size: maze, longctx), remove it for this env"
            )
        if flat_eval and evaluation.get("split") != OOD_SPLIT:
            raise ConfigError(
                f"config error at 'eval.{key}': eval.{key}={value} sets the {key} of {OOD_SPLIT}, but the "
                f"evaluation plays eval.split={evaluation.get('split')}; add eval.split={OOD_SPLIT}"
            )
        with open_dict(env):
            env[field] = value
    return cfg
