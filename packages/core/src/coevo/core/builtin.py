"""Entry point of coevo-core in the ``coevo.plugins`` group: registers core's own components.

Only real components: the test scaffolding registers itself from the tests
(:mod:`coevo.core.testing.components`).
"""


def register() -> None:
    # Importing these modules runs their @registry.register decorators.
    import coevo.core.algos.advantages  # noqa: F401
    import coevo.core.algos.grpo  # noqa: F401
    import coevo.core.algos.sft  # noqa: F401
    import coevo.core.policy.builders  # noqa: F401
    import coevo.core.policy.smollm2  # noqa: F401  (model=smollm2; its packages load only when chosen)
    import coevo.core.rollout.hf_engine  # noqa: F401
    import coevo.core.testing.boxes_env  # noqa: F401  (a tiny env for smoke tests: env=boxes)
    from coevo.core import registry

    # heavy optional backend: imported only when chosen (rollout=vllm), so core imports without vLLM
    registry.rollout_engines.register("vllm", "coevo.core.rollout.vllm_engine:VLLMEngine")
    # test scaffolding (scripted_commits, unequal_forwards) is registered by the tests that use it:
    # coevo.core.testing.components
