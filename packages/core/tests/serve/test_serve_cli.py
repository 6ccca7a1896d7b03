"""``coevo-serve`` as a user runs it: a real process on a free port, queried with the ``openai``
client, stopped with SIGTERM (what a service manager sends; Ctrl-C stops it the same way where SIGINT
is not ignored, as it is for background jobs); bad settings refused in one line before anything loads."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("fastapi")
openai = pytest.importorskip("openai")

URL = re.compile(r"(http://127\.0\.0\.1:\d+/v1)")


@pytest.fixture(scope="module")
def run_folder(tiny_model, tokenizer, tmp_path_factory):
    """A run folder as coevo-train leaves it: the policy exported under policy/."""
    run = tmp_path_factory.mktemp("run")
    tiny_model.save_pretrained(run / "policy")
    tokenizer.save_pretrained(run / "policy")
    return run


def _serve(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "coevo.core.cli.serve", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


@pytest.mark.parametrize("which", ["checkpoint", "model.path"])
def test_serves_a_run_or_a_model_folder(run_folder, which):
    target = run_folder if which == "checkpoint" else run_folder / "policy"
    process = _serve(f"{which}={target}", "server.port=0", "server.model_name=mine", "cpu_threads=1")
    try:
        output, deadline = "", time.monotonic() + 120
        while not URL.search(output.replace("\n", "")) and time.monotonic() < deadline:
            line = process.stdout.readline()
            if not line and process.poll() is not None:
                break
            output += line
        url = URL.search(output.replace("\n", "")).group(1)
        client = openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=60)
        assert [m.id for m in client.models.list().data] == ["mine"]
        reply = client.chat.completions.create(model="mine", messages=[{"role": "user", "content": "hi"}],
                                               max_tokens=4, seed=1)
        assert reply.usage.completion_tokens >= 1
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()  # never left running after the test
            raise
    assert code == 0


@pytest.mark.parametrize("args,fragment", [
    ([], "give exactly one"),
    (["model.path=/x", "checkpoint=/y"], "give exactly one"),
    (["model.path=/x", "server.port=70000"], "server.port"),
    (["model.path=/x", "server.reward_timeout_s=0"], "server.reward_timeout_s"),
    (["model.path=/no/such/folder"], "model.path"),
    (["model.path=/x", "server.prot=1"], "unknown key server.prot"),
    (["model.path=/x", "cpu_threads=0"], "cpu_threads"),
])
def test_bad_settings_are_one_line(args, fragment):
    done = subprocess.run([sys.executable, "-m", "coevo.core.cli.serve", *args], capture_output=True, text=True,
                          timeout=120)
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode == 2, lines
    assert len(lines) == 1 and fragment in lines[0] and lines[0].startswith("error")
