"""Entry point of coevo-core in the ``coevo.plugins`` group: registers core's own components."""


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
    # decisions from a fixed script: tests of rollback in real (multi-process) runs
    registry.callbacks.register("scripted_commits", "coevo.core.testing.scripted_commits:ScriptedCommits")
    # a deliberate rank mismatch (one extra forward on the last rank): tests of the collective timeout
    registry.algorithms.register("unequal_forwards", "coevo.core.testing.unequal_forwards:UnequalForwards")
