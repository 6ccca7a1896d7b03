"""``agent=openai_client`` (``external.enabled=true``): the trainer serves its policy and an external agent plays.

Started by ``coevo-train`` after the algorithm is built and before training: the endpoint
(``coevo.core.serve``) over the algorithm's own rollout engine, in this process, on ``server.host``
/ ``server.port``; the task board its jobs go out on; ``EndpointLoop`` in place of the algorithm's
agent loop; and, with ``external.command``, the agent program (its output in ``<run>/agent.log``),
stopped when training ends. ``EndpointMetrics`` logs the ``external/*`` counters every step.
Refused before any work: asynchronous rollouts (the endpoint serves from the trainer's process),
several trainer processes, an engine other than ``hf``, a missing ``coevo-core[serve]``.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import lightning as L

from coevo.core.algorithm_contract import StepMetrics
from coevo.core.cli.errors import InputError


def check_external(settings, rollout_name: str, asynchronous: bool) -> None:
    """The settings training through the endpoint cannot run with, named before any work."""
    if not settings.external.enabled:
        return
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise InputError("agent=openai_client serves the policy over HTTP, which needs FastAPI and uvicorn: "
                         "pip install 'coevo-core[serve]'") from None
    if asynchronous:
        raise InputError("agent=openai_client with rollout.async.enabled=true: the endpoint serves from the "
                         "trainer's process; set rollout.async.enabled=false")
    if rollout_name != "hf":
        raise InputError(f"agent=openai_client serves through the hf engine; rollout={rollout_name} is not "
                         f"supported with it yet: choose rollout=hf")
    if settings.trainer.devices != 1 or settings.trainer.num_nodes != 1:
        raise InputError("agent=openai_client runs in one trainer process; set trainer=cpu (or one GPU)")
    if settings.agent.mode == "choose":
        raise InputError("agent=openai_client: an external agent generates its replies; set agent.mode=generate")


class EndpointMetrics(L.Callback):
    """Logs the endpoint's ``external/*`` counters after every step (into ``metrics.jsonl`` too)."""

    def __init__(self, loop):
        self.loop = loop

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx) -> None:
        metrics = {f"train/{k}": v for k, v in self.loop.metrics().items()}
        if isinstance(pl_module, StepMetrics):
            pl_module.step_metrics.update(metrics)
        pl_module.log_dict(metrics, on_step=True, prog_bar=False)


class ExternalAgent:
    """The endpoint, its task board and loop, and the agent process, for one training run."""

    def __init__(self, settings, env_settings: dict, module, run_dir: Path, say):
        from coevo.core.serve.background import BackgroundServer
        from coevo.core.serve.external_loop import EndpointLoop
        from coevo.core.serve.task_board import TaskBoard

        self.board = TaskBoard()
        self.server = BackgroundServer(module.engine, module.context.tokenizer, settings.server, board=self.board,
                                       fixed_sampling=settings.agent.sampling).start()
        self.process = None
        self.loop = EndpointLoop(self.server, self.board, env_settings, settings.external.batch_timeout_s,
                                 version=lambda: module.global_step, agent_alive=self._alive)
        module.agent = self.loop  # play_groups hands each batch to it
        self.callback = EndpointMetrics(self.loop)
        say(f"[bold]external agent[/bold]: the policy is served at {self.server.url} (tasks: "
            f"{self.server.url}/tasks/next, rewards: POST {self.server.url}/sessions/<id>/reward)")
        command = settings.external.command
        if command:
            self.log_path = run_dir / "agent.log"
            env = {**os.environ, "OPENAI_BASE_URL": self.server.url, "OPENAI_API_KEY": "coevo",
                   "COEVO_TASKS_URL": f"{self.server.url}/tasks/next", "COEVO_MODEL": settings.server.model_name}
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(shlex.split(command), env=env, stdout=log, stderr=subprocess.STDOUT)
            say(f"  started the agent: {command} (output: {self.log_path})")

    def _alive(self) -> bool:
        return self.process is None or self.process.poll() is None

    def close(self) -> None:
        self.loop.close()  # the board answers 410: the agent's harness ends
        if self.process is not None:
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.terminate()
                try:
                    self.process.wait(10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
        self.server.stop()
