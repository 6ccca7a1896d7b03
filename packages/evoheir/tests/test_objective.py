"""The explore hosts' on-policy step: the default objective is the one it always was (value and
gradient on a small fixed example); a registered ``loss_fn`` replaces it, called on-policy."""

import copy

import torch

from coevo.core.algos.batching import Sample
from coevo.core.algos.losses import cispo_loss, clipped_policy_gradient_loss
from coevo.core.algos.micro_batches import LogprobScoring, loss_normalizer, loss_tensors, split_micro_batches
from coevo.core.testing.gloo import tiny_model
from coevo.evoheir.hosts.objective import policy_gradient_step


def _samples() -> list[Sample]:
    g = torch.Generator().manual_seed(3)
    out = []
    for i in range(3):
        ids = torch.randint(3, 300, (6 + i,), generator=g).tolist()
        out.append(Sample(ids, [0] * 3 + [1] * (3 + i), 1.0 if i % 2 else -0.5))
    return out


def _step(model, loss_fn=None) -> tuple[float, dict]:
    """One step with plain SGD (lr 1, no clipping): the weights move by minus the gradient."""
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    loss, _ = policy_gradient_step(model, _samples(), torch.optim.SGD(model.parameters(), lr=1.0), 0,
                                   grad_clip=0.0, loss_fn=loss_fn)
    return loss, {n: before[n] - p.detach() for n, p in model.named_parameters()}


def _objective_before(model) -> tuple[float, dict]:
    """The objective as written before algo.loss: −Σ A·log π · mask / n (n = agent tokens)."""
    samples = _samples()
    norm = loss_normalizer(samples, "token_mean")
    scoring = LogprobScoring(0, 1.0, skip_prompt=False)
    model.zero_grad(set_to_none=True)
    total = 0.0
    for mb in split_micro_batches(samples, 8192, 0):
        mask, adv, _ = loss_tensors(mb, "cpu")
        loss = -(mb.logprobs(model, scoring, "cpu") * adv * mask).sum() / norm
        loss.backward()
        total += float(loss.detach())
    return total, {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}


def test_default_objective_is_unchanged_in_value_and_gradient():
    model = tiny_model()
    value, grads = _objective_before(copy.deepcopy(model))
    for loss_fn in (None, clipped_policy_gradient_loss):  # the grpo host passes clipped_pg by default
        loss, moved = _step(copy.deepcopy(model), loss_fn)
        assert loss == value
        for name, grad in grads.items():
            assert torch.allclose(moved[name], grad, atol=1e-6), name


def test_clipped_pg_through_the_registry_path_has_the_same_gradient_not_the_same_value():
    # why the default keeps the plain objective: at ratio 1 clipped_pg's gradient is −A ∇log π as
    # well, but its value is −ΣA/n; a wrapper (not clipped_pg itself) takes the registry path
    def wrapped(*args):
        return clipped_policy_gradient_loss(*args)

    model = tiny_model()
    value, grads = _objective_before(copy.deepcopy(model))
    loss, moved = _step(copy.deepcopy(model), wrapped)
    samples = _samples()
    assert loss == -sum(s.advantage * sum(s.agent_mask) for s in samples) / loss_normalizer(samples, "token_mean")
    assert loss != value
    for name, grad in grads.items():
        assert torch.allclose(moved[name], grad, atol=1e-6), name


def test_a_registered_loss_is_called_on_policy():
    calls = []

    def spy(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer):
        calls.append((bool(old_logprobs.requires_grad), torch.equal(old_logprobs, logprobs.detach()), aggregate_mode,
                      normalizer))
        return cispo_loss(logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer)

    loss, _ = _step(tiny_model(), spy)
    assert calls and set(calls) == {(False, True, "token_mean", loss_normalizer(_samples(), "token_mean"))}
