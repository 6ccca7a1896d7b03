"""``coevo-train``: warm start, evaluate, train with the chosen algorithm, evaluate, report.

Launch: ``make train ALGO=grpo`` or ``python -m coevo.core.cli.train algo=grpo env.num_objects=4``.
Any config key can be overridden (Hydra). Output: ``<run_dir>/`` with ``tb/`` (TensorBoard),
``checkpoints/`` (Lightning state, atomic), ``policy/`` (safetensors weights + tokenizer),
``metrics.jsonl``, ``eval_before.json``, ``eval_after.json`` and ``training.png``.
Resume exactly with ``resume=<run_dir>``.

Several processes: ``trainer=ddp_cpu`` (2 CPU processes) or ``trainer=fsdp`` (GPUs). The first
process launches the others before any work (``cli/processes.py``); rank 0 claims the run folder,
builds the warm-start cache and writes every file, while each rank rolls out its share of the
step's tasks and of the evaluation tasks (``coevo.core.distributed``).
"""

from __future__ import annotations

import json
import logging
import sys
import time
import warnings
from pathlib import Path

import lightning as L
import torch
from lightning.pytorch.callbacks import ModelCheckpoint, RichProgressBar, TQDMProgressBar
from lightning.pytorch.loggers import TensorBoardLogger
from omegaconf import DictConfig, OmegaConf
from rich.console import Console
from rich.markup import escape

from coevo.core import distributed as dist
from coevo.core import registry
from coevo.core.agent.loop import summarize
from coevo.core.algorithm_contract import ExpertSourceProvider
from coevo.core.algos.algorithm_context import AlgorithmContext
from coevo.core.callbacks.async_weight_push import AsyncWeightPush
from coevo.core.callbacks.atomic_checkpoint_io import AtomicCheckpointIO
from coevo.core.callbacks.metrics_history import MetricsHistory
from coevo.core.callbacks.policy_export import PolicyExport
from coevo.core.cli.async_setup import async_driver, check_async, datamodule_batches, stale_policy_correction
from coevo.core.cli.components import as_plain, engine_component, env_factory
from coevo.core.cli.errors import debug_flag, run_guarded, stage
from coevo.core.cli.eval_range import apply_eval_range
from coevo.core.cli.external_agent import ExternalAgent, check_external
from coevo.core.cli.hydra_entry import run_hydra
from coevo.core.cli.notices import quiet_third_party
from coevo.core.cli.preflight import check_writable_folder, eval_task_count
from coevo.core.cli.processes import start_processes
from coevo.core.cli.resume_policy import command_line_keys, record_resume, resumed_config
from coevo.core.cli.run_dir import claim_run_dir, prepare_run_dir
from coevo.core.cli.run_lock import release_run_dir
from coevo.core.cli.schema import TrainSchema, cpu_thread_count
from coevo.core.cli.strategy import build_strategy, require_gpu, require_sharded_rollouts
from coevo.core.config import build_component, validate
from coevo.core.data.rollout_datamodule import RolloutDataModule
from coevo.core.evaluation import evaluate, with_greedy
from coevo.core.expert_data import collect_expert_examples, corpus_texts
from coevo.core.policy.builders import load_pretrained
from coevo.core.policy.lora import apply_lora
from coevo.core.progress import activity
from coevo.core.reporting import plot_training, success_table
from coevo.core.rollout.async_settings import split_rollout_node
from coevo.core.warmstart import check_compiler, warm_start
from coevo.core.workers.async_rollouts import connect

log = logging.getLogger("coevo.train")
console = Console()


def warm_start_folder(settings: TrainSchema, cfg: DictConfig, make_env, env_cfg, expert=None, say=console.print):
    """The folder of the warm-started model (built and cached on first use), announced on ``say``.

    ``expert``: the algorithm's own demonstrations (``expert_source``), else the environment's expert.
    """
    builder_cls, model_cfg = build_component(registry.models, cfg.model, "model")

    def announce(cached: bool) -> None:
        how = "(cached)" if cached else "(building…)"
        say(f"[bold]warm start[/bold]: supervised fine-tuning on expert trajectories {how}")

    return warm_start(make_env(), builder_cls(model_cfg), as_plain(model_cfg), as_plain(env_cfg), settings.agent.prompt,
                      settings.warmstart, expert, announce)


def build_policy(settings: TrainSchema, cfg: DictConfig, make_env, env_cfg, expert=None, say=console.print):
    """Warm-started (cached) or freshly built policy, with LoRA applied if asked.

    ``expert``: the algorithm's own demonstrations (``expert_source``), else the environment's expert.
    """
    builder_cls, model_cfg = build_component(registry.models, cfg.model, "model")
    if settings.warmstart.enabled:
        folder = warm_start_folder(settings, cfg, make_env, env_cfg, expert, say)
        stats = json.loads((folder / "warmstart.json").read_text())
        say(f"  model folder {escape(str(folder))} ({stats['parameters']:,} parameters, "
                      f"SFT loss {stats['final_sft_loss']:.3f}, built in {stats['seconds']} s)")
        model, tokenizer = load_pretrained(folder)
    else:
        with activity(f"loading the model (model={model_cfg.name})"):
            model, tokenizer = builder_cls(model_cfg).build(lambda: tokenizer_corpus(make_env(), settings, expert))
    return apply_lora(model, model_cfg.lora), tokenizer


#: expert episodes whose text trains a freshly built tokenizer (``model=tiny`` without a warm start)
TOKENIZER_EPISODES = 50


def tokenizer_corpus(env, settings: TrainSchema, expert=None) -> list[str]:
    """The texts a builder without a tokenizer of its own trains one on: the prompts and replies of
    ``TOKENIZER_EPISODES`` expert episodes. Called by the builder only when it needs them (``tiny``);
    a pretrained model (``hf``, ``smollm2``) brings its tokenizer and plays no expert episode."""
    data = (expert or collect_expert_examples)(env, settings.agent.prompt, TOKENIZER_EPISODES, "train", 0)
    return corpus_texts(data.examples)


def run(cfg: DictConfig) -> dict:
    with stage("config"):
        settings: TrainSchema = validate(cfg, TrainSchema, "train")
    ckpt = None
    if settings.resume:  # read-only: every process may do it before the processes exist
        with stage("run folder"):
            run_dir, ckpt = prepare_run_dir(settings.run_dir, settings.resume, settings.overwrite)
        with stage("config"):  # the saved config, with only the changes a resume may make (cli/resume_policy.py)
            cfg, resume_changes = resumed_config(cfg, run_dir, command_line_keys())
            settings = validate(cfg, TrainSchema, "train")
    # every check of the input before any work and before anything is written (a refused run leaves
    # the disk as it was): components, data files (opened by the env), model folder, run folder
    with stage("config"):
        cfg = apply_eval_range(cfg, settings.eval.before or settings.eval.after)
        require_gpu(settings.trainer)
        algo_cls, algo_cfg = build_component(registry.algorithms, cfg.algo, "algo")
        extra_callbacks = configured_callbacks(cfg.get("callbacks"))
        _, engine_cfg = engine_component(cfg.get("rollout"))
        _, placement = split_rollout_node(cfg.get("rollout"))
        check_async(placement, settings.trainer, algo_cls, algo_cfg, cfg.rollout.name if cfg.get("rollout") else "hf",
                    cfg.get("callbacks"))
        require_sharded_rollouts(settings.trainer, cfg.rollout.name if cfg.get("rollout") else "hf", algo_cls,
                                 algo_cfg.name)
        check_external(settings, cfg.rollout.name if cfg.get("rollout") else "hf", placement.asynchronous.enabled)
    with stage("data"):
        env_cls, env_cfg, make_env = env_factory(cfg.env)
    with stage("config"):
        eval_tasks = eval_task_count(make_env, settings.eval.split, settings.eval.num_tasks) \
            if settings.eval.before or settings.eval.after else 0
    with stage("model folder"):
        check_model(cfg.model)
    with stage("run folder"):
        if ckpt is None:
            check_writable_folder(settings.run_dir, "run_dir")
        if settings.warmstart.enabled:
            check_writable_folder(settings.warmstart.cache_dir, "warmstart.cache_dir")
    with stage("config"):
        check_compiler(settings.warmstart)
        ray_started = connect(placement.ray) if placement.asynchronous.enabled else False  # an unreachable address: refused
    start_processes(settings.trainer)  # trainer=ddp_cpu / fsdp: the other ranks start here and run the same code
    say = console.print if dist.is_main() else _silent
    if ckpt is None:
        # rank 0 claims the folder; run_dir=runs/…-${now:…} would resolve differently in each process
        with stage("run folder"):
            run_dir = Path(dist.on_main(lambda: str(prepare_run_dir(settings.run_dir, None, settings.overwrite,
                                                                    lambda m: say(escape(m)))[0])))
    else:
        with stage("run folder"):  # rank 0 locks the folder (a second run there is refused), removes leftovers
            dist.on_main(lambda: str(claim_run_dir(run_dir, lambda m: say(escape(m)))))
    L.seed_everything(settings.seed, workers=True, verbose=False)
    threads = cpu_thread_count(settings.trainer.cpu_threads, settings.trainer.devices)
    if threads:
        torch.set_num_threads(threads)
    if ckpt is None and dist.is_main():
        OmegaConf.save(cfg, run_dir / "config.yaml")
    elif dist.is_main():
        record_resume(run_dir, cfg, resume_changes)  # config.yaml: the values now and a `resumed:` history

    # rank 0 builds (and caches) the warm start; the others then load it from the cache
    with stage("warm start" if settings.warmstart.enabled else "model load"):
        model, tokenizer = dist.main_first(
            lambda: build_policy(settings, cfg, make_env, env_cfg, expert_source(algo_cls, algo_cfg), say))
    context = AlgorithmContext(model, tokenizer, make_env, env_cls.task_types, settings.agent,
                               cfg.rollout.name if cfg.get("rollout") else "hf", engine_cfg, settings.seed)

    def run_eval(tag: str) -> dict | None:
        path = run_dir / f"eval_{tag}.json"
        if path.is_file() and tag == "before":
            return json.loads(path.read_text())
        capped = f" (all of it; eval.num_tasks={settings.eval.num_tasks})" if eval_tasks < settings.eval.num_tasks else ""
        say(f"[bold]eval ({tag})[/bold]: {eval_tasks} tasks of {escape(settings.eval.split)}{capped}, "
            f"{settings.eval.describe()}")
        with stage(f"evaluation ({tag})"), activity(f"eval ({tag}): playing the held-out episodes"):
            summary = evaluate_all_ranks(model, tokenizer, make_env, settings.agent, settings.eval,
                                         context.engine_name, engine_cfg, env_cls.task_types)
        if dist.is_main():
            path.write_text(json.dumps(summary, indent=2))
        return summary

    before = run_eval("before") if settings.eval.before else None
    with stage("training"):
        stale_policy_correction(placement, algo_cfg, say)
        module = algo_cls(algo_cfg, context)
        external = ExternalAgent(settings, {**as_plain(env_cfg), "name": env_cls.name}, module, run_dir, say) \
            if settings.external.enabled else None
        if external is not None:  # agent=openai_client: the episodes are played through the endpoint
            extra_callbacks = [external.callback, *extra_callbacks]
        datamodule = RolloutDataModule(make_env(), algo_cfg.tasks_per_step, "train", settings.seed)
        if placement.asynchronous.enabled:  # episodes from Ray workers, weights pushed after every step
            module.use_async_rollouts(async_driver(placement, context, module, datamodule_batches(datamodule),
                                                   torch.get_num_threads()))
            extra_callbacks = [AsyncWeightPush(), *extra_callbacks]
        trainer = make_trainer(settings, run_dir, tokenizer, extra_callbacks, model=model)
        start = time.perf_counter()
        try:
            trainer.fit(module, datamodule=datamodule, ckpt_path=str(ckpt) if ckpt else None)
            trainer.save_checkpoint(run_dir / "checkpoints" / "last.ckpt")  # PolicyExport also writes policy/
        finally:
            if external is not None:
                external.close()
            if module.async_rollouts is not None:
                module.async_rollouts.close()
            if ray_started:
                import ray

                ray.shutdown()
    train_seconds = time.perf_counter() - start
    if settings.eval.after:  # sharded over ranks: the full weights (algorithm contract: full_policy)
        with activity("gathering the trained weights for the evaluation"):  # (a refreshed copy on each rank)
            model = module.full_policy()
    after = run_eval("after") if settings.eval.after else None

    title = (f"{algo_cfg.name} on {env_cls.name}: held-out success "
             f"({settings.eval.split}, {settings.eval.describe()})")
    result = {"before": before, "after": after, "run_dir": str(run_dir), "steps": trainer.global_step,
              "train_seconds": train_seconds}
    if not dist.is_main():
        return result
    with stage("report"):
        png = plot_training(run_dir / "metrics.jsonl", run_dir / "training.png", before, after, title,
                            env_cls.task_type_label)
    if before is not None or after is not None:
        console.print(success_table(before, after, escape(title)))
    console.print(f"training: {trainer.global_step} optimizer steps in {train_seconds:.0f} s"
                  + (f" ({dist.world_size()} processes)" if dist.world_size() > 1 else ""))
    console.print(f"TensorBoard logs: {run_dir / 'tb'}   (tensorboard --logdir {run_dir / 'tb'})", markup=False)
    console.print(f"plot: {png}", markup=False)
    console.print(f"policy (safetensors): {run_dir / 'policy'}   checkpoints: {run_dir / 'checkpoints'}", markup=False)
    release_run_dir(run_dir)  # held since the claim (a failed run's lock goes when its process ends)
    return result


def _silent(*args, **kwargs) -> None:
    """``console.print`` on the ranks other than 0."""


def evaluate_all_ranks(model, tokenizer, make_env, agent, eval_settings, engine_name, engine_cfg,
                       task_types) -> dict:
    """Held-out evaluation (``eval.mode``); with several processes each plays its share of the
    episodes and the summary is that of all of them (identical on every rank)."""
    e = eval_settings

    def play(mode: str, samples: int) -> dict:
        how = {"mode": mode, "samples_per_task": samples, "sample_seed": e.sample_seed}
        if dist.world_size() == 1:
            return evaluate(model, tokenizer, make_env, agent, e.split, e.num_tasks, e.batch_size, engine_name,
                            engine_cfg, **how)[0]
        _, episodes = evaluate(model, tokenizer, make_env, agent, e.split, e.num_tasks, e.batch_size, engine_name,
                               engine_cfg, share=(dist.rank(), dist.world_size()), **how)
        return summarize(dist.gather_episode_stats(episodes), task_types)

    return with_greedy(play, e.mode, e.samples_per_task, e.also_greedy)


def expert_source(algo_cls, algo_cfg):
    """The algorithm's own warm-start demonstrations (``algo_cls.expert_source(config)``, e.g. RAO's
    recursive oracle with delegation turns), or ``None`` for the environment's expert."""
    return algo_cls.expert_source(algo_cfg) if isinstance(algo_cls, ExpertSourceProvider) else None


def configured_callbacks(nodes) -> list[L.Callback]:
    """Callbacks from the ``callbacks`` config group: each node names a registered callback and
    sets its ``Config`` fields (``+callbacks=heircommit callbacks.heircommit.every_n_steps=5``)."""
    callbacks = []
    for key, node in (nodes or {}).items():
        cls, config = build_component(registry.callbacks, node, f"callbacks.{key}")
        callbacks.append(cls(config) if getattr(cls, "Config", None) is not None else cls())
    return callbacks


def make_trainer(settings: TrainSchema, run_dir: Path, tokenizer, extra_callbacks=(), model=None) -> L.Trainer:
    """The Lightning trainer; ``model`` (the policy) gives FSDP its decoder-layer wrap unit."""
    t = settings.trainer
    callbacks = [
        *extra_callbacks,  # before MetricsHistory, so the metrics they record reach metrics.jsonl
        # always checkpoints/last.ckpt (a file, or a sharded folder): without the version counter, a run
        # folder moved and resumed would write last-v1.ckpt, and a resume after a kill read the stale last.ckpt
        ModelCheckpoint(dirpath=run_dir / "checkpoints", filename="step{step}", every_n_train_steps=t.checkpoint_every,
                        save_last=True, save_top_k=1, auto_insert_metric_name=False, enable_version_counter=False),
        MetricsHistory(run_dir / "metrics.jsonl"),
        PolicyExport(run_dir / "policy", tokenizer),
    ]
    if t.progress_bar:
        callbacks.append(RichProgressBar(leave=True) if sys.stdout.isatty() else TQDMProgressBar(refresh_rate=1))
    for name in t.callbacks:
        callbacks.append(registry.callbacks.get(name)())
    return L.Trainer(
        max_steps=t.max_steps,
        accelerator=t.accelerator,
        devices=t.devices,
        num_nodes=t.num_nodes,
        strategy=build_strategy(t, model),
        precision=t.precision,
        logger=TensorBoardLogger(str(run_dir), name="tb", version=""),
        callbacks=callbacks,
        plugins=[AtomicCheckpointIO()],
        log_every_n_steps=t.log_every,
        enable_progress_bar=t.progress_bar,
        enable_model_summary=False,
        num_sanity_val_steps=0,
    )


def check_model(node: DictConfig | None) -> None:
    """The model builder's own cheap check (``hf``: the folder is a loadable model), if it has one."""
    if node is None:
        return
    builder_cls, model_cfg = build_component(registry.models, node, "model")
    check = getattr(builder_cls(model_cfg), "check", None)
    if check is not None:
        check()


def _main(cfg: DictConfig) -> None:
    run_guarded(lambda: run(cfg), console, debug_flag(cfg))


def main() -> None:
    quiet_third_party()
    warnings.filterwarnings("ignore", message=".*does not have many workers.*")
    # checkpoints hold the policy after step N, which is what a resume needs; the warning (with a
    # code listing) suggests saving the state before the optimizer step instead
    warnings.filterwarnings("ignore", message="Using ModelCheckpoint with manual optimization")
    run_hydra("train", _main, console)


if __name__ == "__main__":
    main()
