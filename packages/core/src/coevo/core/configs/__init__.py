"""coevo-core's Hydra configs: the primary ``train.yaml`` and ``eval.yaml`` (Hydra's config path) and
core's presets (``algo/grpo``, ``env/boxes``, ``model/*``, ``rollout/*``, ``trainer/*``). Each preset
inherits the base node of its Config dataclass (``coevo.core.cli.config_defaults``) and lists only
the keys that differ; other packages add theirs through the ``coevo.configs`` entry point."""
