"""The ``hf`` rollout engine: candidate scoring and sampling agree with the trainer's log-probs."""

from __future__ import annotations

import pytest
import torch

from coevo.core import registry
from coevo.core.policy.logprobs import sequence_token_logprobs
from coevo.core.rollout.engine import RolloutEngine, SamplingSettings
from coevo.core.rollout.hf_engine import HFEngine, HFEngineConfig


def _enc(tokenizer, text):
    return tokenizer.encode(text, add_special_tokens=False)


def _trainer_logprobs(model, ids: list[int], start: int, temperature: float = 1.0) -> list[float]:
    """log p(ids[t] | ids[:t]) for t >= start, as the trainer computes them."""
    with torch.no_grad():
        lp = sequence_token_logprobs(model, torch.tensor([ids]), torch.ones(1, len(ids), dtype=torch.long), temperature)
    return lp[0, start:].tolist()


@pytest.fixture
def prompts_and_candidates(tokenizer):
    prompts = [
        _enc(tokenizer, "You are in a room. You see a red box, a blue box, a green box."),
        _enc(tokenizer, "You arrive at the red box."),
        _enc(tokenizer, "Nothing happens."),
        _enc(tokenizer, "Your task is to: open the yellow box. Memory: visited: nothing"),
    ]
    eos = tokenizer.eos_token_id
    candidates = [
        [_enc(tokenizer, f"<action>{a}</action>") + [eos] for a in ("go to red box", "open red box", "go to blue box")],
        [_enc(tokenizer, "<action>open red box</action>") + [eos]],
        [_enc(tokenizer, "<action>go to green box</action>") + [eos], _enc(tokenizer, "x")],  # 1-token candidate
        [_enc(tokenizer, f"<action>{a}</action>") + [eos] for a in ("go to yellow box", "go to white box")],
    ]
    return prompts, candidates


def test_hf_engine_is_registered():
    assert registry.rollout_engines.get("hf") is HFEngine
    assert issubclass(HFEngine, RolloutEngine)


@pytest.mark.parametrize("max_batch_tokens", [16384, 60])
def test_score_equals_trainer_logprobs(tiny_model, tokenizer, prompts_and_candidates, max_batch_tokens):
    prompts, candidates = prompts_and_candidates
    engine = HFEngine(HFEngineConfig(max_batch_tokens=max_batch_tokens), tiny_model, tokenizer)
    chunks = engine._prompt_groups(prompts, candidates)
    assert sorted(i for c in chunks for i in c) == [0, 1, 2, 3]
    if max_batch_tokens == 60:
        assert len(chunks) >= 3  # a small budget really splits the prompts
    else:
        assert len(chunks) <= 2  # everything fits; split only where that saves padding
    scores = engine.score(prompts, candidates)
    assert [len(s) for s in scores] == [3, 1, 2, 2]
    for prompt, cands, cand_scores in zip(prompts, candidates, scores):
        for cand, got in zip(cands, cand_scores):
            expected = _trainer_logprobs(tiny_model, prompt + cand, len(prompt))
            assert len(got) == len(cand)
            assert got == pytest.approx(expected, abs=1e-4)


def test_score_handles_empty_candidates_and_restores_train_mode(fresh_tiny_model, tokenizer):
    fresh_tiny_model.train()
    engine = HFEngine(HFEngineConfig(), fresh_tiny_model, tokenizer)
    prompt = _enc(tokenizer, "You arrive at the blue box.")
    cand = _enc(tokenizer, "<action>open blue box</action>")
    scores = engine.score([prompt, prompt], [[[], cand], []])
    assert scores[0][0] == [] and scores[1] == []
    assert scores[0][1] == pytest.approx(_trainer_logprobs(fresh_tiny_model.eval(), prompt + cand, len(prompt)), abs=1e-4)
    fresh_tiny_model.train()
    engine.score([prompt], [[cand]])
    assert fresh_tiny_model.training  # the engine puts the model back in the mode it found it in


def test_generate_logprobs_equal_trainer_logprobs(tiny_model, tokenizer, prompts_and_candidates):
    prompts, _ = prompts_and_candidates
    engine = HFEngine(HFEngineConfig(), tiny_model, tokenizer)
    torch.manual_seed(0)
    for temperature in (1.0, 0.7):
        gens = engine.generate(prompts, SamplingSettings(temperature=temperature, max_new_tokens=6))
        assert len(gens) == len(prompts)
        for prompt, g in zip(prompts, gens):
            assert 1 <= len(g.token_ids) <= 6 and len(g.logprobs) == len(g.token_ids)
            expected = _trainer_logprobs(tiny_model, prompt + g.token_ids, len(prompt), temperature)
            assert g.logprobs == pytest.approx(expected, abs=1e-4)


def test_greedy_generation_is_deterministic_and_argmax(tiny_model, tokenizer, prompts_and_candidates):
    prompts, _ = prompts_and_candidates
    engine = HFEngine(HFEngineConfig(), tiny_model, tokenizer)
    greedy = SamplingSettings(temperature=0.0, max_new_tokens=5)
    torch.manual_seed(1)
    first = engine.generate(prompts, greedy)
    torch.manual_seed(2)
    second = engine.generate(prompts, greedy)
    assert [g.token_ids for g in first] == [g.token_ids for g in second]
    # greedy = argmax of the model's next-token logits, step by step
    for prompt, g in zip(prompts, first):
        ids = list(prompt)
        for token in g.token_ids:
            with torch.no_grad():
                logits = tiny_model(input_ids=torch.tensor([ids])).logits[0, -1]
            assert token == int(logits.argmax())
            ids.append(token)
        # greedy log-probs are reported at temperature 1
        assert g.logprobs == pytest.approx(_trainer_logprobs(tiny_model, prompt + g.token_ids, len(prompt)), abs=1e-4)


def test_generate_empty_batch(tiny_model, tokenizer):
    assert HFEngine(HFEngineConfig(), tiny_model, tokenizer).generate([], SamplingSettings()) == []


def _eos_bias(model, tokenizer, value: float):
    """Add ``value`` to the eos logit (a forward hook on the LM head); returns the hook handle."""
    eos = tokenizer.eos_token_id

    def hook(module, inputs, output):
        output = output.clone()
        output[..., eos] += value
        return output

    return model.lm_head.register_forward_hook(hook)


def test_generation_that_hits_eos_is_finished_and_ends_with_eos(fresh_tiny_model, tokenizer, prompts_and_candidates):
    prompts, _ = prompts_and_candidates
    eos = tokenizer.eos_token_id
    engine = HFEngine(HFEngineConfig(), fresh_tiny_model, tokenizer)
    handle = _eos_bias(fresh_tiny_model, tokenizer, 1e4)  # eos always wins
    gens = engine.generate(prompts, SamplingSettings(temperature=0.0, max_new_tokens=8))
    assert all(g.token_ids == [eos] and g.finished for g in gens)
    handle.remove()

    # a moderate bias: rows stop at different lengths; padding after an early eos is cut off
    handle = _eos_bias(fresh_tiny_model, tokenizer, 4.0)
    torch.manual_seed(0)
    gens = engine.generate(prompts * 4, SamplingSettings(temperature=1.0, max_new_tokens=10))
    handle.remove()
    assert any(g.finished for g in gens)
    for g in gens:
        assert (eos in g.token_ids) == g.finished
        if g.finished:
            assert g.token_ids[-1] == eos and g.token_ids.count(eos) == 1
        else:
            assert len(g.token_ids) == 10
        assert len(g.logprobs) == len(g.token_ids)


def test_generation_without_eos_is_unfinished(fresh_tiny_model, tokenizer):
    engine = HFEngine(HFEngineConfig(), fresh_tiny_model, tokenizer)
    handle = _eos_bias(fresh_tiny_model, tokenizer, -1e4)  # eos never sampled
    torch.manual_seed(0)
    gens = engine.generate([_enc(tokenizer, "Nothing happens.")] * 3, SamplingSettings(max_new_tokens=7))
    handle.remove()
    for g in gens:
        assert not g.finished and len(g.token_ids) == 7 and tokenizer.eos_token_id not in g.token_ids


def test_greedy_ignores_the_models_generation_config_penalties(fresh_tiny_model, tokenizer):
    prompt = _enc(tokenizer, "You arrive at the red box.")
    engine = HFEngine(HFEngineConfig(), fresh_tiny_model, tokenizer)
    plain = engine.generate([prompt], SamplingSettings(temperature=0.0, max_new_tokens=6))[0].token_ids
    fresh_tiny_model.generation_config.repetition_penalty = 5.0  # as loaded from a generation_config.json
    penalised = engine.generate([prompt], SamplingSettings(temperature=0.0, max_new_tokens=6))[0].token_ids
    assert penalised == plain


def test_sync_weights_switches_the_model(tiny_model, fresh_tiny_model, tokenizer):
    engine = HFEngine(HFEngineConfig(), tiny_model, tokenizer)
    engine.sync_weights(fresh_tiny_model)
    assert engine.model is fresh_tiny_model
    assert engine.stop_ids == [tokenizer.eos_token_id] and engine.pad_id == tokenizer.pad_token_id
