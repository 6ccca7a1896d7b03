"""The ``trainer=fsdp`` training path run end to end on the CPU in one process (``trainer=fsdp_cpu
trainer.devices=1``: Lightning's FSDPStrategy as ``CPUFSDPStrategy``, gloo, float32).

What it guards: manual optimisation with FSDP (a backward per micro-batch inside ``training_step``,
which failed on a GPU before ``policy/sharding``), rollouts through the wrapped policy, checkpoints
(sharded folders, the preset's, and full files), the exported policy and exact resume from either.
Several processes: ``test_fsdp_cpu_ranks.py``, ``test_fsdp_cpu_rollback.py``.
"""

import pytest
import torch
from safetensors.torch import load_file

from coevo.core.cli import train
from coevo.core.cli.strategy import CPUFSDPStrategy
from coevo.core.policy.builders import load_pretrained
from coevo.core.policy.sharding import is_sharded

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="CPU path; with a GPU, test_strategy's FSDP test runs")


@pytest.fixture
def fsdp_on_cpu():
    return ["trainer=fsdp_cpu", "trainer.devices=1", "trainer.fsdp.activation_checkpointing=true",
            "eval.before=false", "eval.after=false", "algo.micro_batch_tokens=64",
            "algo.skip_zero_advantage=false"]  # an update every step: Adam has state to checkpoint


@pytest.mark.parametrize("mode", ["generate", "choose"])
def test_grpo_trains_under_fsdp_with_a_backward_per_micro_batch(compose_train, fsdp_on_cpu, tmp_path, mode):
    modules = []
    monkey_fit = train.L.Trainer.fit

    def fit(self, module, *args, **kwargs):
        modules.append(module)
        return monkey_fit(self, module, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(train.L.Trainer, "fit", fit)
        result = train.run(compose_train(*fsdp_on_cpu, "trainer.max_steps=2", f"agent.mode={mode}"))
    assert result["steps"] == 2
    module = modules[-1]  # the GRPO module (a warm start's SFT fit comes first)
    assert is_sharded(module.policy)  # the policy is the root unit, the LightningModule is not wrapped
    assert module.trainer.strategy.model is module
    assert isinstance(module.trainer.strategy, CPUFSDPStrategy)
    weights = load_file(tmp_path / "run" / "policy" / "model.safetensors")
    assert not any("_fsdp_wrapped_module" in k or "_checkpoint_wrapped" in k for k in weights)
    exported = load_pretrained(tmp_path / "run" / "policy")[0]
    trained = {k: v for k, v in module.policy.state_dict().items()}
    for name, tensor in exported.state_dict().items():
        assert torch.equal(tensor, trained[name].cpu()), name


@pytest.mark.parametrize("state_dict_type", ["sharded", "full"])
def test_fsdp_resume_continues_exactly(compose_train, fsdp_on_cpu, tmp_path, state_dict_type):
    fsdp_on_cpu = [*fsdp_on_cpu, f"trainer.fsdp.state_dict_type={state_dict_type}"]
    straight = train.run(compose_train(*fsdp_on_cpu, "trainer.max_steps=2", f"run_dir={tmp_path / 'a'}"))
    train.run(compose_train(*fsdp_on_cpu, "trainer.max_steps=1", f"run_dir={tmp_path / 'b'}"))
    last = tmp_path / "b" / "checkpoints" / "last.ckpt"
    assert last.is_file() if state_dict_type == "full" else (last / "meta.pt").is_file()
    resumed = train.run(compose_train(*fsdp_on_cpu, "trainer.max_steps=2", f"run_dir={tmp_path / 'b'}",
                                      f"resume={tmp_path / 'b'}"))
    assert resumed["steps"] == straight["steps"] == 2
    a = load_file(tmp_path / "a" / "policy" / "model.safetensors")
    b = load_file(tmp_path / "b" / "policy" / "model.safetensors")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
