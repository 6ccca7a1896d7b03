"""``coevo-train`` with every rank's second vLLM weight sync skipped on purpose (a script, not a
test: ``test_vllm_fsdp_ranks.py`` runs it, and Lightning's launcher re-runs it for rank 1, so the
skip happens on both ranks and the ranks still meet in the same collectives)."""

from coevo.core.cli.train import main
from coevo.core.rollout.vllm_engine import VLLMEngine

real_sync = VLLMEngine.sync_weights
calls = []


def skip_second_sync(self, model):
    calls.append(self.syncs)
    if len(calls) == 2:  # the sync after step 1's optimizer step
        print("test: weight sync skipped on purpose", flush=True)
        return
    real_sync(self, model)


if __name__ == "__main__":
    VLLMEngine.sync_weights = skip_second_sync
    main()
