"""coevo-envs's Hydra config presets (YAML files), found through its ``coevo.configs`` entry point.
Each preset inherits the base node of its Config dataclass (``coevo.core.cli.config_defaults``)
and lists only the keys that differ."""
