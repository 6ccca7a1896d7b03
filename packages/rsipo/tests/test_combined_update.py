"""RSIPO's combined update takes its RLVR term's loss from ``algo.loss`` (``registry.losses``, as
GRPO's update); L_skill stays the clipped policy gradient; the default is the loss it was before."""

import pytest
import torch
from test_module import _grads, _module, _rollout_with_teacher

from coevo.core import registry
from coevo.core.algos.advantages import broadcast
from coevo.core.algos.batching import Sample
from coevo.core.algos.losses import cispo_loss, clipped_policy_gradient_loss
from coevo.core.algos.micro_batches import loss_normalizer, loss_tensors, split_micro_batches


def _pg_samples(module):
    episodes, teacher = _rollout_with_teacher(module)
    advantages = broadcast(episodes, [0.5 if i % 2 else -1.0 for i in range(len(episodes))])  # fixed, non-zero
    return module.update_samples.action_samples(episodes, advantages, [1.0, 1.0], teacher)


def test_rlvr_term_trains_with_the_loss_algo_loss_names(tiny_model, tokenizer):
    calls = []

    def spy(*args):  # (logprobs, old_logprobs, advantages, mask, clip_low, clip_high, aggregate_mode, normalizer)
        calls.append((*args[4:7], bool(args[1].requires_grad)))
        return cispo_loss(*args)

    registry.losses.register("spy_rsipo", spy)
    try:
        module = _module(tiny_model, tokenizer, loss="spy_rsipo", clip_low=0.1, clip_high=0.3, opsd_coef=0.0,
                         loss_aggregation="seq_mean_token_mean")
        assert module.loss_fn is spy  # looked up once, in GRPO.__init__
        grads = _grads(module, _pg_samples(module))
        assert grads and calls and set(calls) == {(0.1, 0.3, "seq_mean_token_mean", False)}
        # L_skill is RSIPO's own term: the clipped PG whatever algo.loss is
        calls.clear()
        skill = Sample([5, 6, 7, 8, 9], [0, 0, 1, 1, 1], 0.7, [0.0, 0.0, -1.0, -1.0, -1.0])
        mb = split_micro_batches([skill], 512, tokenizer.pad_token_id)[0]
        value = module.combined_update.skill_loss(mb, module.scoring, 3.0)
    finally:
        registry.losses.unregister("spy_rsipo")
    assert calls == []
    lp = mb.logprobs(module.policy, module.scoring, module.device)
    mask, adv, _ = loss_tensors(mb, module.device)
    expected, _ = clipped_policy_gradient_loss(lp, lp.detach(), adv, mask, 0.1, 0.3, "token_mean", 3.0)
    assert torch.equal(value.detach(), expected.detach())


def test_default_rlvr_loss_is_the_clipped_pg_it_was(tiny_model, tokenizer):
    module = _module(tiny_model, tokenizer, opsd_coef=0.0)
    assert module.config.loss == "clipped_pg" and module.loss_fn is clipped_policy_gradient_loss
    samples = _pg_samples(module)
    norm = loss_normalizer(samples, module.config.loss_aggregation)
    for mb in split_micro_batches(samples, module.config.micro_batch_tokens, tokenizer.pad_token_id):
        loss, parts = module.combined_update.action_loss(mb, norm, 1.0)
        # the RLVR term before algo.loss: clipped_policy_gradient_loss called directly, on-policy
        lp = mb.logprobs(module.policy, module.scoring, module.device)
        mask, adv, _ = loss_tensors(mb, module.device)
        before, _ = clipped_policy_gradient_loss(lp, lp.detach(), adv, mask, 0.2, 0.2, "token_mean", norm)
        assert parts["pg_loss"] == float(before.detach())
        assert torch.equal(loss.detach(), before.detach())


def test_truncated_importance_weights_scale_both_policy_gradient_terms(tiny_model, tokenizer):
    """With ``algo.off_policy.tis_cap`` (what a stale asynchronous batch turns on), a token the engine
    sampled with log-prob lp − log 2 (the trainer's lp) has weight min(2, cap): at ratio 1 the RLVR
    and skill losses are linear in it, so they double under cap 4 and grow by 1.5 under cap 1.5."""
    import math

    from coevo.core.algos.off_policy import OffPolicySettings

    losses = {}
    for cap in (None, 4.0, 1.5):
        module = _module(tiny_model, tokenizer, opsd_coef=0.0, off_policy=OffPolicySettings(tis_cap=cap))
        samples = _pg_samples(module)
        norm = loss_normalizer(samples, module.config.loss_aggregation)
        skill = Sample([5, 6, 7, 8, 9], [0, 0, 1, 1, 1], 0.7, [0.0, 0.0, -1.0, -1.0, -1.0])
        pg, skill_loss = 0.0, None
        for mb in [*split_micro_batches(samples, module.config.micro_batch_tokens, tokenizer.pad_token_id),
                   split_micro_batches([skill], 512, tokenizer.pad_token_id)[0]]:
            with torch.no_grad():
                mb.rollout_logprobs = mb.logprobs(module.policy, module.scoring, module.device) - math.log(2)
            if mb.samples == [skill]:
                skill_loss = float(module.combined_update.skill_loss(mb, module.scoring, 3.0).detach())
            else:
                pg += module.combined_update.action_loss(mb, norm, 1.0)[1]["pg_loss"]
        stats = module._tis_metrics()
        assert stats == {} if cap is None else stats["tis_clipped_fraction"] == (1.0 if cap == 1.5 else 0.0)
        losses[cap] = (pg, skill_loss)
    for cap, factor in ((4.0, 2.0), (1.5, 1.5)):
        assert losses[cap][0] == pytest.approx(factor * losses[None][0], rel=1e-5)
        assert losses[cap][1] == pytest.approx(factor * losses[None][1], rel=1e-5)
