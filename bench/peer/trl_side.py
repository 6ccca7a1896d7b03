"""Run the workload with TRL's ``GRPOTrainer`` (transformers generation on the CPU) and time each step.

Settings mirror coevo's: one generation batch of ``tasks_per_step x group_size`` completions per
optimizer step (no gradient accumulation, so TRL's old log-probs are the detached current ones,
as in coevo), token-mean loss over the batch (``loss_type="dapo"``), group std scaling, clip 0.2,
AdamW with a constant LR, grad-norm clip 1.0, fp32, no gradient checkpointing (TRL's default is
on; coevo does not checkpoint), no checkpoints or reporting. The dataset holds the workload's
prompts in order (``shuffle_dataset=False``), so both sides see the same problems per step.
"""

from __future__ import annotations

import tempfile
import time

import torch
from datasets import Dataset
from transformers import TrainerCallback
from trl import GRPOConfig, GRPOTrainer

from coevo.core.policy.builders import load_pretrained
from coevo.core.policy.conversation import render_prompt

from .workload import Workload, episode_reward, make_env, prompt_messages, settings, tasks, train_config


class StepTimer(TrainerCallback):
    def __init__(self):
        self.rows: list[dict] = []

    def on_step_begin(self, args, state, control, **kwargs):
        self._start = time.perf_counter()

    def on_step_end(self, args, state, control, **kwargs):
        self.rows.append({"step_seconds": time.perf_counter() - self._start, "threads": torch.get_num_threads()})


class MathReward:
    """coevo's episode return for each completion (the math environment's own check)."""

    __name__ = "math_reward"

    def __init__(self, w: Workload, env, tokenizer, task_list):
        self.w, self.env, self.tokenizer, self.tasks = w, env, tokenizer, task_list
        self.batches: list[dict] = []

    def __call__(self, prompts, completions, completion_ids, task_index, prompt_tokens, **kwargs):
        eos = self.tokenizer.eos_token_id
        rewards = []
        for ids, index in zip(completion_ids, task_index):
            text = self.tokenizer.decode([t for t in ids if t != eos], skip_special_tokens=False)
            finished = bool(ids) and ids[-1] == eos
            rewards.append(episode_reward(self.env, self.tasks[index], text, finished, self.w.invalid_penalty))
        lengths = [p + len(ids) for p, ids in zip(prompt_tokens, completion_ids)]
        self.batches.append({"reward": sum(rewards) / len(rewards),
                             "generated_tokens": float(sum(len(ids) for ids in completion_ids)),
                             "trained_tokens": float(sum(lengths)), "trained_tokens_sq": float(sum(n * n for n in lengths))})
        return rewards


def _timed(trainer_cls):
    class Timed(trainer_cls):
        """GRPOTrainer recording how long generation + rewards (+ reference log-probs) take."""

        def _generate_and_score_completions(self, inputs):
            start = time.perf_counter()
            out = super()._generate_and_score_completions(inputs)
            self.rollout_seconds.append(time.perf_counter() - start)
            return out

    return Timed


def run(w: Workload) -> dict:
    torch.set_num_threads(w.threads)
    cfg = train_config(w)
    prompt = settings(cfg).agent.prompt
    env = make_env(cfg)
    model, tokenizer = load_pretrained(w.model_dir)
    task_list = tasks(w, env)
    rows = []
    for i, task in enumerate(task_list):
        messages = prompt_messages(prompt, env, task)
        rows.append({"prompt": messages, "task_index": i, "prompt_tokens": len(render_prompt(tokenizer, messages))})
    reward = MathReward(w, make_env(cfg), tokenizer, task_list)
    out_dir = tempfile.mkdtemp(prefix="bench-trl-")
    args = GRPOConfig(
        output_dir=out_dir, max_steps=w.steps, per_device_train_batch_size=w.batch_size,
        gradient_accumulation_steps=1, num_generations=w.group_size, steps_per_generation=1,
        max_completion_length=w.max_new_tokens, temperature=w.temperature, top_p=1.0, top_k=0,
        learning_rate=w.lr, lr_scheduler_type="constant", warmup_steps=0, weight_decay=0.0,
        adam_beta1=0.9, adam_beta2=0.999, optim="adamw_torch", max_grad_norm=1.0,
        beta=w.kl_coef, epsilon=0.2, loss_type="dapo", scale_rewards="group",
        mask_truncated_completions=False, shuffle_dataset=False, seed=w.seed,
        bf16=False, fp16=False, use_cpu=True, gradient_checkpointing=False,
        logging_steps=1, report_to="none", save_strategy="no", disable_tqdm=True,
        dataloader_num_workers=0, log_completions=False,
    )
    timer = StepTimer()
    trainer = _timed(GRPOTrainer)(model=model, reward_funcs=reward, args=args, train_dataset=Dataset.from_list(rows),
                                  processing_class=tokenizer, callbacks=[timer])
    trainer.rollout_seconds = []
    start_params = [p.detach().clone() for p in model.parameters()]
    trainer.train()
    assert len(timer.rows) == len(reward.batches) == len(trainer.rollout_seconds) == w.steps
    for row, batch, rollout in zip(timer.rows, reward.batches, trainer.rollout_seconds):
        row.update(batch, generate_seconds=rollout, update_seconds=row["step_seconds"] - rollout)
    changed = sum(not torch.equal(a, p.detach()) for a, p in zip(start_params, trainer.model.parameters()))
    return {"rows": timer.rows, "params_changed": changed, "params_total": len(start_params),
            "parameters": sum(p.numel() for p in model.parameters())}
