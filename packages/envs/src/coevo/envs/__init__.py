"""coevo-envs: text environments that register themselves into ``coevo.core.registry.envs``.

Each environment lives in its own subpackage (``household`` ...) and is registered when
``coevo.envs.plugin.register`` runs, which core's entry-point discovery does lazily.
"""
