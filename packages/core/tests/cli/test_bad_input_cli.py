"""Bad command lines through the real entry points (``coevo-train`` / ``coevo-eval`` ``main()``,
Hydra included): exit code 2, one error line naming the key, no traceback, the run dir untouched.

Each case fails before any heavy work, so it costs a config composition; the full list of bad
inputs, as subprocesses, is ``bench/robustness/bad_inputs.py``.
"""

import json
import sys

import pytest

from coevo.core.cli import eval as eval_cli
from coevo.core.cli import train
from coevo.core.testing.fast_configs import TINY_MODEL, repository_configs

FAST = ["env=boxes", *TINY_MODEL, "warmstart.enabled=false", "trainer.max_steps=1", "eval.num_tasks=2",
        "trainer.progress_bar=false"]

TRAIN_CASES = [
    # (case overrides, the key the error line must name)
    (["run_dir=/proc/coevo-x"], "run_dir"),
    (["run_dir='/proc/[/x]/run'"], "run_dir"),  # Rich markup in a path
    (["run_dir=/proc/[/x]/run"], "run_dir"),  # unquoted brackets: Hydra cannot parse it
    (["seed=abc"], "seed"),
    (["overwrite=maybe"], "overwrite"),
    (["resume=/nonexistent/run"], "resume"),
    (["sed=3"], "sed"),  # a misspelt top-level key
    (["trainer.max_steps=abc"], "trainer.max_steps"),
    (["trainer.strategy=bogus"], "trainer.strategy"),
    (["trainer.devices=0"], "trainer.devices"),
    (["trainer.cpu_threads=0"], "trainer.cpu_threads"),
    (["trainer.max_stesp=5"], "trainer.max_stesp"),
    (["algo.grup_size=4"], "algo.grup_size"),
    (["+algo.grup_size=4"], "algo.grup_size"),
    (["algo=nope"], "algo"),
    (["algo.name=nope"], "algo.name"),
    (["algo.optim.lr=[1"], "algo.optim.lr"),  # unparsable
    (["algo.group_size=1"], "algo.group_size"),
    (["algo.loss_aggregation=median"], "algo.loss_aggregation"),
    (["agent.mode=telepathy"], "agent.mode"),
    (["agent.prompt.histroy_turns=3"], "agent.prompt.histroy_turns"),
    (["eval.split=bogus"], "eval.split"),
    (["eval.mode=bogus"], "eval.mode"),
    (["eval.samples_per_task=0"], "eval.samples_per_task"),
    (["env=nope"], "env"),
    (["env.name=nope"], "env.name"),
    (["env.num_boxes=9"], "num_boxes"),
    (["env.bogus=1"], "env.bogus"),
    (["model=nope"], "model"),
    (["model=hf", "model.path=/nonexistent/model"], "model.path"),
    (["model=hf"], "model.path"),  # path=??? is missing
    (["model.hiden_size=64"], "model.hiden_size"),
    (["rollout=nope"], "rollout"),
    (["rollout.name=nope"], "rollout.name"),
    (["+callbacks.audit.name=nope"], "callbacks.audit.name"),
    (["warmstart.enabled=true", "warmstart.cache_dir=/proc/coevo-x"], "warmstart.cache_dir"),
    (["rollout.async.max_staleness=-1"], "rollout.async.max_staleness"),
    (["rollout.async.workers=0"], "rollout.async.workers"),
    (["rollout.async.stalenes=1"], "rollout.async.stalenes"),
    (["rollout.ray.connect_timeout_s=0"], "rollout.ray.connect_timeout_s"),
    (["rollout.async.enabled=true", "algo.dynamic_sampling.enabled=true"], "algo.dynamic_sampling.enabled"),
    (["rollout.async.enabled=true", "algo.updates_per_batch=2"], "algo.updates_per_batch"),
    (["rollout.async.enabled=true", "trainer=ddp_cpu"], "trainer"),
    (["rollout.async.enabled=true", "rollout=vllm"], "rollout"),
]


@pytest.fixture
def argv(monkeypatch, tmp_path):
    monkeypatch.setenv("COEVO_CONFIG_DIR", repository_configs(__file__))

    def _set(*args: str) -> None:
        monkeypatch.setattr(sys, "argv", ["coevo", *args])

    return _set


def _refused(main, capsys) -> str:
    with pytest.raises(SystemExit) as info:
        main()
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert info.value.code == 2, text
    assert "Traceback" not in text
    errors = [line for line in text.splitlines() if line.startswith("error")]
    assert len(errors) == 1, text
    return errors[0]


def test_async_without_ray_names_the_extra(argv, capsys, tmp_path, monkeypatch):
    from coevo.core.rollout import async_settings

    monkeypatch.setattr(async_settings, "ray_installed", lambda: False)
    argv(*FAST, f"run_dir={tmp_path / 'run'}", "rollout.async.enabled=true")
    line = _refused(train.main, capsys)
    assert "rollout.async.enabled" in line and "pip install 'coevo-core[async]'" in line
    assert not (tmp_path / "run").exists()


def _bad_model_folders(root):
    config = {"model_type": "qwen2", "hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2,
              "vocab_size": 300}
    folders = {}
    for name, files in {
        "empty": {},
        "garbage_config": {"config.json": "{not json"},
        "no_weights": {"config.json": json.dumps(config), "tokenizer.json": "{}"},
        "garbage_weights": {"config.json": json.dumps(config), "tokenizer.json": "{}",
                            "model.safetensors": "\x00garbage" * 64},
    }.items():
        folder = root / name
        folder.mkdir()
        for file, text in files.items():
            (folder / file).write_text(text)
        folders[name] = folder
    return folders


@pytest.mark.parametrize(("case", "key"), TRAIN_CASES, ids=[" ".join(c) for c, _ in TRAIN_CASES])
def test_train_refuses_with_one_line_naming_the_key(argv, capsys, tmp_path, case, key):
    run_dir = tmp_path / "run"
    base = [o for o in FAST if o not in TINY_MODEL] if "model=hf" in case else FAST
    argv(*base, f"run_dir={run_dir}", f"warmstart.cache_dir={tmp_path / 'cache'}", *case)
    line = _refused(train.main, capsys)
    assert key in line
    assert not run_dir.exists() and not (tmp_path / "cache").exists()  # nothing on disk touched


@pytest.mark.parametrize("folder", ["empty", "garbage_config", "no_weights", "garbage_weights"])
def test_train_refuses_a_model_folder_that_is_no_model(argv, capsys, tmp_path, folder):
    path = _bad_model_folders(tmp_path)[folder]
    argv(*[o for o in FAST if o not in TINY_MODEL], "model=hf", f"model.path={path}", f"run_dir={tmp_path / 'run'}")
    assert "model.path" in _refused(train.main, capsys)
    assert not (tmp_path / "run").exists()


def test_a_refused_run_leaves_a_previous_run_as_it_was(argv, capsys, tmp_path):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    (run_dir / "config.yaml").write_text("previous: run\n")
    argv(*FAST, f"run_dir={run_dir}", "overwrite=true", "algo.group_size=1")
    assert "algo.group_size" in _refused(train.main, capsys)
    assert (run_dir / "config.yaml").read_text() == "previous: run\n"


@pytest.mark.parametrize(
    ("case", "key"),
    [
        ([], "checkpoint"),  # make eval without CKPT
        (["checkpoint=/nonexistent/run"], "checkpoint"),
        (["checkpoint='/tmp/[/x]'"], "checkpoint"),
        (["checkpoint={no_weights}"], "checkpoint"),
        (["checkpoint={garbage_weights}"], "checkpoint"),
        (["checkpoint={no_weights}", "eval.split=bogus"], "eval.split"),
        (["checkpoint={no_weights}", "eval.grup=1"], "eval.grup"),
        (["checkpoint={no_weights}", "env=nope"], "env"),
        (["checkpoint={no_weights}", "rollout=nope"], "rollout"),
    ],
)
def test_eval_refuses_with_one_line_naming_the_key(argv, capsys, tmp_path, case, key):
    folders = _bad_model_folders(tmp_path)
    argv("env=boxes", *[c.format(**folders) for c in case])
    assert key in _refused(eval_cli.main, capsys)


def test_a_misspelt_key_lists_the_valid_keys_closest_first(argv, capsys, tmp_path):
    # Hydra's own answer suggested appending the misspelt key: "+algo.grup_size=4"
    argv(*FAST, f"run_dir={tmp_path / 'run'}", "algo.grup_size=4")
    line = _refused(train.main, capsys)
    assert line.startswith("error (command line): unknown key algo.grup_size; valid keys of algo: ['group_size', ")
    assert "+algo" not in line


def test_debug_true_adds_the_traceback(argv, capsys, tmp_path):
    argv(*FAST, f"run_dir={tmp_path / 'run'}", "algo.group_size=1", "debug=true")
    with pytest.raises(SystemExit) as info:
        train.main()
    captured = capsys.readouterr()
    assert info.value.code == 2
    assert "Traceback" in captured.err and "error (config): " in captured.out
