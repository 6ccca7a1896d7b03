"""Recover: distil the round's qualified experience into the recipient with a LoRA student.

1. The recipient θ_sel attempts every qualified record's question without a reference (one
   greedy rollout batch). Failed → D_repair; succeeded → D_keep.
2. Frozen teachers start from θ_sel: the repair teacher reads the question *and* the reference
   solution, the keep teacher only the question. Both score the recipient's own attempt y.
3. A LoRA student (rank 8, α 16 on q_proj/v_proj by default) on a copy of θ_sel minimises
   L_rec = mean_repair d(T_repair ‖ P_θ) + λ_keep·mean_keep d(T_keep ‖ P_θ) on y_<j
   (``recovery_loss``), for at most ``steps`` full-batch AdamW steps; the adapters' deltas are added
   to θ_sel's weights: the proposal S_t^+.

Sharded over ranks (``trainer=fsdp``): the teachers and the student work on the rollout replica
(``full_model``: θ_sel's full weights on every rank, no collective), every rank on the same records
with the same seeds; the student's deltas are added to the sharded policy unit by unit
(``coevo.core.policy.weight_deltas``), so each rank keeps its own shards of S_t^+.
4. Recovery gain: greedy success on the same questions after minus before (a training-set
   diagnostic; Confirm judges on fresh items).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import torch

from coevo.core.agent.loop import AgentLoop, AgentSettings
from coevo.core.agent.prompt import build_messages, opening
from coevo.core.fields import bounded, free_text
from coevo.core.policy.conversation import render_prompt
from coevo.core.policy.lora import LoraSettings, apply_lora, is_peft
from coevo.core.policy.weight_deltas import add_to_weights
from coevo.core.rollout.weight_export import lora_deltas
from coevo.core.state.snapshot import trainable_weights
from coevo.evoheir.experience import Record
from coevo.evoheir.math_env import MathEnv, Problem
from coevo.evoheir.paired import evaluation_guard
from coevo.evoheir.proposed_env import proposed_envs
from coevo.evoheir.recovery_loss import record_forward_kl, recovery_loss


@dataclass
class RecoverySettings:
    enabled: bool = True  # false: ablation "no recovery" (the proposal is the recipient itself)
    steps: int = bounded(8, ge=1)  # full-batch AdamW steps of the LoRA student (paper: at most 16)
    lr: float = bounded(5.0e-4, gt=0)  # the student's AdamW learning rate
    lambda_keep: float = bounded(1.0, ge=0)  # weight of the keep (forward-KL to the recipient) term
    lora_r: int = bounded(8, ge=1)  # the student's adapter rank
    lora_alpha: int = bounded(16, ge=1)  # its scaling numerator (scale = alpha / r)
    # the model's modules the student adapts (the model's own names: free text, at least one)
    target_modules: list[str] = free_text(["q_proj", "v_proj"], length=(1, None))
    max_records: int = bounded(32, ge=1)  # qualified records used per round (newest first)
    # reference-reading examples (a problem and a reference solution → the reply that reaches its answer)
    # taught with the pre-round warm-up, so the repair teacher can use the reference it is shown: a model
    # never trained on that prompt ignores it (the tiny model: 0% with the reference against 32% without,
    # packages/evoheir/README.md). 0: none (a pretrained model reads a reference untaught)
    teacher_warmup_examples: int = bounded(0, ge=0)


@dataclass
class RecoveryOutcome:
    weights: dict[str, torch.Tensor] | None  # the proposal's weights; None: nothing to learn from
    n_repair: int = 0
    n_keep: int = 0
    loss_first: float = float("nan")
    loss_last: float = float("nan")
    success_before: float = float("nan")
    success_after: float = float("nan")
    # the repair teacher's own greedy success on D_repair's questions shown with their references: what it
    # can teach (near the recipient's 0 there: the teacher does not read the reference, Recovery moves nothing)
    teacher_success: float = float("nan")
    tokens: int = 0  # forward-token cost (generation 1x, teacher 1x, student 3x per step)

    @property
    def gain(self) -> float:
        return self.success_after - self.success_before


@dataclass
class _Item:
    student_ids: list[int]  # question prompt + y
    teacher_ids: list[int]  # (question [+ reference]) prompt + y
    n_student_prompt: int
    n_teacher_prompt: int
    n_response: int
    repair: bool
    teacher_logits: torch.Tensor | None = None  # [n_response, V]


def repair_question(question: str, reference: str) -> str:
    """What the repair teacher reads: the question and a reference solution that reaches its label."""
    return f"{question}\nReference solution: {reference}"


def _response_logits(model, ids: list[int], n_prompt: int, n_response: int) -> torch.Tensor:  # [n_response, V]
    logits = model(input_ids=torch.tensor([ids])).logits[0]  # [L, V]
    return logits[n_prompt - 1 : n_prompt - 1 + n_response]


def _prompt_ids(tokenizer, agent: AgentSettings, env: MathEnv, task) -> list[int]:
    first = opening(agent.prompt, env.reset(task), env.goal)
    return render_prompt(tokenizer, build_messages(agent.prompt, first, [], None, None))


def _attempts(loop: AgentLoop, math_config, problems: list[Problem]):
    envs, tasks = proposed_envs(math_config, problems, len(problems))
    with torch.no_grad():
        return loop.run(tasks, envs, greedy=True)


def recover(
    model: torch.nn.Module,  # the recipient θ_sel (left unchanged), sharded or not
    loop: AgentLoop,  # plays with ``model``'s weights (synced here)
    tokenizer,
    math_config: MathEnv.Config,
    records: list[Record],
    settings: RecoverySettings,
    full_model: torch.nn.Module | None = None,  # θ_sel unsharded (the rollout replica); None: ``model``
) -> RecoveryOutcome:
    records = records[-settings.max_records :]
    if not records:
        return RecoveryOutcome(None)
    if is_peft(model):
        raise ValueError("algo.recovery needs a policy without its own LoRA adapters (set model.lora.enabled=false)")
    full_model = model if full_model is None else full_model
    agent = loop.settings
    loop.engine.sync_weights(model)
    problems = [Problem(r.question, r.answer, r.problem_type) for r in records]
    with evaluation_guard(model):
        episodes = _attempts(loop, math_config, problems)
    repair_problems = [Problem(repair_question(r.question, r.reference), r.answer, r.problem_type)
                       for r in records]
    teacher_envs, teacher_tasks = proposed_envs(math_config, repair_problems, 1)
    items, shown, tokens = [], [], 0  # shown: D_repair's questions with their references
    for episode, task in zip(episodes, teacher_tasks):
        turn = episode.turns[0] if episode.turns else None
        tokens += len(turn.prompt_ids) + len(turn.response_ids) if turn else 0
        if turn is None or not turn.response_ids:
            continue
        repair = not episode.won
        if repair:
            shown.append(repair_problems[task.index])
        teacher_prompt = _prompt_ids(tokenizer, agent, teacher_envs[0], task) if repair else turn.prompt_ids
        n = len(turn.response_ids)
        items.append(_Item(turn.prompt_ids + turn.response_ids, teacher_prompt + turn.response_ids,
                           len(turn.prompt_ids), len(teacher_prompt), n, repair))
    outcome = RecoveryOutcome(None, sum(i.repair for i in items), sum(not i.repair for i in items))
    outcome.success_before = sum(ep.won for ep in episodes) / len(episodes)
    if shown:
        with evaluation_guard(model):
            taught = _attempts(loop, math_config, shown)
        outcome.teacher_success = sum(ep.won for ep in taught) / len(taught)
        tokens += sum(len(ep.turns[0].prompt_ids) + len(ep.turns[0].response_ids) for ep in taught if ep.turns)
    if not items:
        outcome.tokens = tokens
        return outcome
    was_training = full_model.training
    full_model.eval()
    with torch.no_grad():  # frozen teachers: the recipient's weights, computed once
        for item in items:
            item.teacher_logits = _response_logits(full_model, item.teacher_ids, item.n_teacher_prompt,
                                                   item.n_response)
            tokens += len(item.teacher_ids)
    full_model.train(was_training)
    student = apply_lora(copy.deepcopy(full_model), LoraSettings(True, settings.lora_r, settings.lora_alpha, 0.0,
                                                            list(settings.target_modules)))
    student.train()
    optimizer = torch.optim.AdamW([p for p in student.parameters() if p.requires_grad], lr=settings.lr)
    for step in range(settings.steps):
        repair, keep = [], []
        for item in items:
            logits = _response_logits(student, item.student_ids, item.n_student_prompt, item.n_response)
            (repair if item.repair else keep).append(record_forward_kl(item.teacher_logits, logits))
            tokens += 3 * len(item.student_ids)
        loss = recovery_loss(repair, keep, settings.lambda_keep)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        outcome.loss_first = float(loss.detach()) if step == 0 else outcome.loss_first
        outcome.loss_last = float(loss.detach())
    deltas = lora_deltas(student)  # {base weight name: B @ A · scale}, what merging would add
    with evaluation_guard(model):
        add_to_weights(model, deltas)
        outcome.weights = trainable_weights(model)
        loop.engine.sync_weights(model)
        after = _attempts(loop, math_config, problems)
    tokens += sum(len(ep.turns[0].prompt_ids) + len(ep.turns[0].response_ids) for ep in after if ep.turns)
    outcome.success_after = sum(ep.won for ep in after) / len(after)
    outcome.tokens = tokens
    return outcome
