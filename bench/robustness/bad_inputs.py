"""Run bad command lines through ``coevo-train`` / ``coevo-eval`` and classify what each one got.

Every case is a real subprocess (``python -m coevo.core.cli.train`` or ``cli.eval``) on a fast
config (boxes, a tiny model, no warm start, 1 step, 2 evaluation tasks, a temporary run folder),
so a bad value that is silently accepted runs to the end instead of hanging the harness. Each
outcome is one of:

- clear: exit != 0, no "Traceback", exactly one ``error ...`` line, and it names the case's key
- traceback: a Python traceback was printed
- unclear: it failed without a traceback, but not with one error line naming the key
- silent: exit 0 (the bad value was accepted), or still running at the timeout

It also checks that a refused run left its run folder untouched (``touched``: it exists after).

    .venv/bin/python -m bench.robustness.bad_inputs            # all cases, 2 workers; writes bench/robustness/bad_inputs.json
    .venv/bin/python -m bench.robustness.bad_inputs -k model   # only cases whose command line contains "model"
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).with_name("bad_inputs.json")
TINY = ["model.hidden_size=32", "model.num_layers=2", "model.num_heads=2", "model.num_kv_heads=1",
        "model.intermediate_size=64", "model.vocab_size=300"]
FAST_TRAIN = ["env=boxes", *TINY, "warmstart.enabled=false", "agent.choice_score=mean", "trainer.max_steps=1",
              "algo.tasks_per_step=2", "algo.group_size=2", "eval.num_tasks=2", "eval.batch_size=2",
              "eval.samples_per_task=1", "eval.also_greedy=false", "trainer.progress_bar=false"]
FAST_EVAL = ["env=boxes", "eval.num_tasks=2", "eval.batch_size=2", "eval.samples_per_task=1",
             "eval.also_greedy=false"]
ERROR_LINE = re.compile(r"^error\b", re.IGNORECASE)


@dataclass
class Case:
    args: list[str]  # the case's own overrides (placed after the fast config)
    key: str  # the key (or text) the one error line must name
    cli: str = "train"  # train | eval
    note: str = ""


def write(folder: Path, name: str, text: str | bytes) -> str:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(path)


def make_files(tmp: Path) -> dict[str, str]:
    """Bad (and a few good) data files and model folders under ``tmp``."""
    qa = [json.dumps({"question": f"Who is {i}?", "golden_answers": [f"p{i}"]}) for i in range(6)]
    corpus = [json.dumps({"id": str(i), "contents": f'"T{i}"\ntext {i}'}) for i in range(6)]
    math = [json.dumps({"problem": f"{i} + 1 = ?", "answer": str(i + 1)}) for i in range(6)]
    f = {
        "qa": write(tmp, "qa/good.jsonl", "\n".join(qa) + "\n"),
        "qa_empty": write(tmp, "qa/empty.jsonl", ""),
        "qa_badjson": write(tmp, "qa/badjson.jsonl", "\n".join([qa[0], qa[1], "{not json"]) + "\n"),
        "qa_noanswers": write(tmp, "qa/noanswers.jsonl", json.dumps({"question": "q?"}) + "\n"),
        "qa_list": write(tmp, "qa/list.jsonl", "[1, 2]\n"),
        "qa_one": write(tmp, "qa/one.jsonl", qa[0] + "\n"),
        "corpus": write(tmp, "qa/corpus.jsonl", "\n".join(corpus) + "\n"),
        "corpus_empty": write(tmp, "qa/corpus_empty.jsonl", "\n"),
        "corpus_bad": write(tmp, "qa/corpus_bad.jsonl", corpus[0] + "\n" + json.dumps({"id": "x"}) + "\n"),
        "corpus_binary": write(tmp, "qa/corpus.bin", bytes(range(256)) * 4),
        "math": write(tmp, "math/good.jsonl", "\n".join(math) + "\n"),
        "math_empty": write(tmp, "math/empty.jsonl", ""),
        "math_badjson": write(tmp, "math/badjson.jsonl", "\n".join([math[0], "{oops", math[1]]) + "\n"),
        "math_noanswer": write(tmp, "math/noanswer.jsonl", json.dumps({"problem": "1+1"}) + "\n"),
        "math_one": write(tmp, "math/one.jsonl", math[0] + "\n"),
        "math_dir": str(tmp / "math"),
        "model_empty": str(tmp / "models/empty"),
        "model_garbage_config": str(tmp / "models/garbage_config"),
        "model_no_weights": str(tmp / "models/no_weights"),
        "model_garbage_weights": str(tmp / "models/garbage_weights"),
        "existing_run": str(tmp / "existing_run"),
        "bracket": str(tmp / "x[/x]" / "run"),
    }
    (tmp / "models/empty").mkdir(parents=True)
    write(tmp, "models/garbage_config/config.json", "{this is not json")
    config = json.dumps({"model_type": "qwen2", "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
                         "num_key_value_heads": 1, "intermediate_size": 64, "vocab_size": 300})
    write(tmp, "models/no_weights/config.json", config)
    write(tmp, "models/no_weights/tokenizer.json", "{}")
    write(tmp, "models/garbage_weights/config.json", config)
    write(tmp, "models/garbage_weights/tokenizer.json", "{}")
    write(tmp, "models/garbage_weights/model.safetensors", b"\x00garbage" * 64)
    write(tmp, "existing_run/config.yaml", "previous: run\n")
    return f


def cases(f: dict[str, str]) -> list[Case]:
    t = []

    def add(key: str, *args: str, cli: str = "train", note: str = ""):
        t.append(Case(list(args), key, cli, note))

    # top level
    add("run_dir", "run_dir=/proc/x")
    add("run_dir", "run_dir=/etc/passwd/x")
    add("run_dir", f"run_dir={f['existing_run']}", note="holds a run")
    add("run_dir", f"run_dir='/proc/{f['bracket']}'", note="markup in a path")
    add("run_dir", f"run_dir=/proc/{f['bracket']}", note="unquoted brackets")
    add("seed", "seed=abc")
    add("seed", "seed=1.5")
    add("resume", "resume=/nonexistent/run")
    add("overwrite", "overwrite=maybe")
    add("debug", "debug=maybe")
    add("foo", "foo=1")
    add("sed", "sed=3", note="misspelt top-level key")
    # trainer
    for arg in ("trainer.max_steps=-5", "trainer.max_steps=0", "trainer.max_steps=abc", "trainer.accelerator=tpu",
                "trainer.devices=0", "trainer.devices=abc", "trainer.num_nodes=0", "trainer.strategy=bogus",
                "trainer.precision=64-bogus", "trainer.checkpoint_every=0", "trainer.log_every=0",
                "trainer.progress_bar=maybe", "trainer.cpu_threads=0", "trainer.cpu_threads=many",
                "trainer.callbacks=[nope]", "trainer.process_group_backend=bogus", "trainer.max_stesp=5",
                "trainer.fsdp.sharding_strategy=bogus"):
        add(arg.split("=")[0], arg)
    # algo (grpo)
    for arg in ("algo.optim.lr=-1", "algo.optim.lr=abc", "algo.optim.schedule=bogus", "algo.tasks_per_step=0",
                "algo.group_size=1", "algo.group_size=0", "algo.updates_per_batch=0", "algo.kl_coef=-1",
                "algo.clip_low=-0.2", "algo.clip_high=-1", "algo.advantage=bogus", "algo.scale_by_std=maybe",
                "algo.loss_aggregation=median", "algo.choice_loss=both", "algo.micro_batch_tokens=0",
                "algo.optim.weight_decay=-1", "algo.optim.betas=[2,0.9]", "algo.optim.warmup_steps=-1",
                "algo.optim.grad_clip=-1", "algo.optim.min_lr_ratio=2", "algo.optim.decay_steps=-1",
                "algo.skip_zero_advantage=maybe", "algo.grup_size=4", "+algo.grup_size=4", "algo.name=nope"):
        add(arg.split("=")[0].lstrip("+"), arg)
    add("algo", "algo=nope")
    add("algo.optim.lr", "algo.optim.lr=[1", note="unparsable")
    # agent
    for arg in ("agent.choice_temperature=0", "agent.choice_temperature=-1", "agent.mode=telepathy",
                "agent.max_turns=0", "agent.max_turns=-1", "agent.invalid_penalty=abc", "agent.choice_score=median",
                "agent.sampling.top_p=0", "agent.sampling.top_p=1.5", "agent.sampling.temperature=-1",
                "agent.sampling.max_new_tokens=0", "agent.prompt.history_turns=-1", "agent.prompt.max_prompt_tokens=0",
                "agent.prompt.first_observation=bogus", "agent.prompt.histroy_turns=3", "agent.prompt.memory=maybe"):
        add(arg.split("=")[0], arg)
    # warm start (enabled, so a bad value would reach it)
    for arg in ("warmstart.sft.epochs=0", "warmstart.episodes=0", "warmstart.episodes=-5", "warmstart.first_index=-1",
                "warmstart.sft.batch_size=0", "warmstart.sft.optim.lr=-1", "warmstart.sft.optim.schedule=bogus",
                "warmstart.precision=bogus", "warmstart.cache_dir=/proc/x"):
        add(arg.split("=")[0], "warmstart.enabled=true", arg)
    add("warmstart.enabled", "warmstart.enabled=maybe")
    # eval
    for arg in ("eval.batch_size=0", "eval.split=bogus", "eval.num_tasks=0", "eval.num_tasks=-3",
                "eval.samples_per_task=0", "eval.mode=bogus", "eval.depth=-1", "eval.size=0",
                "eval.before=maybe", "eval.sample_seed=abc"):
        add(arg.split("=")[0], arg)
    add("eval.samples_per_task", "eval.mode=greedy", "eval.samples_per_task=4")
    add("eval.split", "env=math", f"env.data_file={f['math']}", "eval.split=eval_out_of_distribution",
        note="an empty split")
    # environments
    add("env", "env=nope")
    add("env.name", "env.name=nope")
    add("env.num_boxes", "env.num_boxes=9")
    add("env.num_boxes", "env.num_boxes=-1")
    add("env.max_steps", "env.max_steps=0")
    add("env.eval_size", "env.eval_size=0")
    add("env.num_objects", "env=household", "env.num_objects=-1")
    add("env.closed_fraction", "env=household", "env.closed_fraction=2")
    add("env.usual_place_prob", "env=household", "env.usual_place_prob=-0.5")
    add("env.num_receptacles", "env=household", "env.num_receptacles=0")
    add("env.task_types", "env=household", "env.task_types=[bogus]")
    add("env.bogus_key", "env=household", "env.bogus_key=1")
    add("env.retriever", "env=search", "env.retriever=dense", note="faiss missing here")
    add("env.retriever", "env=search", "env.retriever=bogus")
    add("env.top_k", "env=search", "env.top_k=0")
    add("env.hops", "env=search", "env.hops=[4]")
    add("env.num_people", "env=search", "env.num_people=1")
    add("env.eval_qa_file", "env=search", f"env.eval_qa_file={f['qa']}")
    add("env.qa_file", "env=search", "env.qa_file=/nonexistent.jsonl", f"env.corpus_file={f['corpus']}")
    add("env.qa_file", "env=search", f"env.qa_file={f['qa_empty']}", f"env.corpus_file={f['corpus']}")
    add("env.qa_file", "env=search", f"env.qa_file={f['qa_badjson']}", f"env.corpus_file={f['corpus']}")
    add("env.qa_file", "env=search", f"env.qa_file={f['qa_noanswers']}", f"env.corpus_file={f['corpus']}")
    add("env.qa_file", "env=search", f"env.qa_file={f['qa_list']}", f"env.corpus_file={f['corpus']}")
    add("env.qa_file", "env=search", f"env.qa_file={f['qa_one']}", f"env.corpus_file={f['corpus']}")
    add("env.corpus_file", "env=search", f"env.qa_file={f['qa']}")
    add("env.corpus_file", "env=search", f"env.qa_file={f['qa']}", f"env.corpus_file={f['corpus_empty']}")
    add("env.corpus_file", "env=search", f"env.qa_file={f['qa']}", f"env.corpus_file={f['corpus_bad']}")
    add("env.corpus_file", "env=search", f"env.qa_file={f['qa']}", f"env.corpus_file={f['corpus_binary']}")
    add("env.data_file", "env=math", "env.data_file=/nonexistent.jsonl")
    add("env.data_file", "env=math", f"env.data_file={f['math_empty']}")
    add("env.data_file", "env=math", f"env.data_file={f['math_badjson']}")
    add("env.data_file", "env=math", f"env.data_file={f['math_noanswer']}")
    add("env.data_file", "env=math", f"env.data_file={f['math_one']}")
    add("env.data_file", "env=math", f"env.data_file={f['math_dir']}")
    add("env.ood_data_file", "env=math", f"env.ood_data_file={f['math']}")
    add("env.difficulty", "env=math", "env.difficulty=0")
    add("env.problem_types", "env=math", "env.problem_types=[bogus]")
    add("env.max_attempts", "env=math", "env.max_attempts=0")
    add("pip install 'coevo-envs[alfworld]'", "env=alfworld", note="extras kept (no markup)")
    add("env.depth", "env=algebra", "env.depth=bogus")
    add("env.grid_size", "env=maze", "env.grid_size=1")
    add("env.bogus", "env=craft", "env.bogus=1")
    add("env.bogus", "env=longctx", "env.bogus=1")
    # model
    add("model.path", "model=hf", "model.path=/nonexistent/model")
    add("model.path", "model=hf")
    add("model.path", "model=hf", f"model.path={f['model_empty']}")
    add("model.path", "model=hf", f"model.path={f['model_garbage_config']}")
    add("model.path", "model=hf", f"model.path={f['model_no_weights']}")
    add("model.path", "model=hf", f"model.path={f['model_garbage_weights']}")
    add("model.path", "model=hf", "model.path='/tmp/[/x]'")
    add("model.dtype", "model=hf", f"model.path={f['model_no_weights']}", "model.dtype=float8")
    add("model", "model=nope")
    for arg in ("model.hidden_size=0", "model.num_heads=3", "model.vocab_size=-1", "model.num_layers=0",
                "model.lora.r=0", "model.lora.enabled=maybe", "model.lora.dropout=2", "model.hiden_size=64"):
        add(arg.split("=")[0], arg)
    # rollout and callbacks
    add("rollout", "rollout=nope")
    add("rollout.name", "rollout.name=nope")
    add("rollout.bogus", "rollout.bogus=1")
    add("rollout.max_batch_tokens", "rollout.max_batch_tokens=0")
    add("rollout.sync_check.max_abs_diff", "rollout.sync_check.max_abs_diff=-1")
    add("callbacks", "+callbacks=nope")
    add("callbacks.audit.name", "+callbacks.audit.name=nope")
    add("callbacks.heircommit.every_n_steps", "+callbacks=heircommit", "callbacks.heircommit.every_n_steps=0")
    add("callbacks.heircommit.mode", "+callbacks=heircommit", "callbacks.heircommit.mode=bogus")
    # coevo-eval
    add("checkpoint", cli="eval")
    add("checkpoint", "checkpoint=/nonexistent/run", cli="eval")
    add("checkpoint", f"checkpoint={f['model_empty']}", cli="eval")
    add("checkpoint", f"checkpoint={f['model_garbage_weights']}", cli="eval")
    add("checkpoint", f"checkpoint={f['model_garbage_config']}", cli="eval")
    add("checkpoint", "checkpoint='/tmp/[/x]'", cli="eval")
    for arg in ("eval.split=bogus", "eval.num_tasks=0", "eval.num_tasks=-3", "eval.batch_size=0",
                "eval.samples_per_task=0", "eval.mode=bogus", "agent.choice_temperature=0",
                "agent.sampling.top_p=0", "eval.grup=1", "rollout=nope"):
        add(arg.split("=")[0], f"checkpoint={f['model_no_weights']}", arg, cli="eval")
    add("env", f"checkpoint={f['model_no_weights']}", "env=nope", cli="eval")
    add("env.data_file", f"checkpoint={f['model_no_weights']}", "env=math", f"env.data_file={f['math_empty']}",
        cli="eval")
    return t


def command(case: Case, run_dir: Path, cache: Path) -> list[str]:
    groups = {a.split("=")[0].lstrip("+") for a in case.args if "." not in a.split("=")[0]}
    if case.cli == "eval":
        base = [a for a in FAST_EVAL if not ("env" in groups and a.startswith("env"))]
        return [sys.executable, "-m", "coevo.core.cli.eval", *base, *case.args]
    base = [a for a in FAST_TRAIN
            if not any(a.split("=")[0] == g or a.startswith(g + ".") for g in groups)]
    return [sys.executable, "-m", "coevo.core.cli.train", *base, f"run_dir={run_dir}",
            f"warmstart.cache_dir={cache}", *case.args]


def classify(rc: int | None, output: str, key: str) -> tuple[str, str]:
    """``(outcome, the error line)``."""
    errors = [line.strip() for line in output.splitlines() if ERROR_LINE.match(line.strip())]
    line = errors[-1] if errors else ""
    if rc is None or rc == 0:
        return "silent", line
    if "Traceback" in output:
        return "traceback", line
    if len(errors) == 1 and key in line:
        return "clear", line
    return "unclear", line or (output.strip().splitlines() or [""])[-1]


def run_case(index: int, case: Case, tmp: Path, timeout: float) -> dict:
    run_dir = tmp / "runs" / f"case{index}"
    cmd = command(case, run_dir, tmp / "cache")
    env = dict(os.environ, OMP_NUM_THREADS="1", COEVO_CONFIG_DIR=str(ROOT / "configs"), PYTHONWARNINGS="ignore",
               COLUMNS="200")
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
        rc, output = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        rc = None
        output = (exc.stdout or b"").decode(errors="replace") + (exc.stderr or b"").decode(errors="replace")
    outcome, line = classify(rc, output, case.key)
    cli_args = [a for a in cmd[3:] if a not in FAST_TRAIN and a not in FAST_EVAL and not a.startswith(
        ("run_dir=", "warmstart.cache_dir="))]
    return {"cli": case.cli, "args": " ".join(cli_args), "key": case.key, "note": case.note, "exit": rc,
            "outcome": outcome, "touched_run_dir": outcome != "silent" and run_dir.exists(),
            "seconds": round(time.perf_counter() - start, 1), "message": line[:400]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", default="", help="only cases whose command line contains this text")
    parser.add_argument("--workers", type=int, default=2, help="parallel cases (2 at most on a shared machine)")
    parser.add_argument("--timeout", type=float, default=240.0, help="seconds before a case counts as silent")
    parser.add_argument("--out", default=str(RESULTS), help="the JSON written (empty: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coevo-bad-inputs-") as name:
        tmp = Path(name)
        selected = [c for c in cases(make_files(tmp)) if args.k in " ".join([c.cli, *c.args])]
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=max(1, min(args.workers, 2))) as pool:
            rows = list(pool.map(lambda ic: run_case(ic[0], ic[1], tmp, args.timeout), enumerate(selected)))
    counts = {k: sum(r["outcome"] == k for r in rows) for k in ("clear", "traceback", "unclear", "silent")}
    touched = sum(r["touched_run_dir"] for r in rows)
    for r in rows:
        if r["outcome"] != "clear" or r["touched_run_dir"]:
            print(f"{r['outcome']:9} {r['cli']:5} {r['args']}\n          -> {r['message'][:300]}")
    print()
    print("| bad inputs tried | clear | traceback | unclear | silent | refused runs that touched the run dir |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| {len(rows)} | {counts['clear']} | {counts['traceback']} | {counts['unclear']} | {counts['silent']} "
          f"| {touched} |")
    print(f"({time.perf_counter() - start:.0f} s)")
    if args.out and not args.k:
        summary = {"command": "make install && .venv/bin/python -m bench.robustness.bad_inputs", "tried": len(rows), **counts,
                   "touched_run_dir": touched, "seconds": round(time.perf_counter() - start), "cases": rows}
        Path(args.out).write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
