"""``coevo-serve``: the policy behind an OpenAI-compatible endpoint (FastAPI + uvicorn over the hf engine).

Launch: ``coevo-serve checkpoint=runs/<run>`` (a run folder's ``policy/``, or any model folder) or
``coevo-serve model.path=<folder>``; ``server.host``, ``server.port`` (0: any free port) and the
other ``server.*`` bounds (``coevo.core.serve.settings``). Any OpenAI client then talks to
``http://<host>:<port>/v1``; requests that name a session (``X-Session-Id`` header or ``user``)
have their token traces recorded, and ``POST /v1/sessions/<id>/reward`` closes them. What differs
from a plain inference server: every answer also carries its exact token ids, log-probs, seed and
policy version (``coevo`` field), which is what training through the endpoint needs
(docs/serving.md). Needs ``pip install 'coevo-core[serve]'``.
"""

from __future__ import annotations

import signal
import sys
import warnings

from omegaconf import DictConfig
from rich.console import Console
from rich.markup import escape

from coevo.core.cli.errors import EXIT_REFUSED, debug_flag, print_error, run_guarded, stage
from coevo.core.config import validate

console = Console()
EXTRA_MISSING = ("error (startup): coevo-serve needs FastAPI and uvicorn, which are not installed: "
                 "pip install 'coevo-core[serve]'")


def extra_installed() -> bool:
    """Whether ``coevo-core[serve]``'s server libraries import."""
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return False
    return True


def run(cfg: DictConfig, block: bool = True):
    import torch

    from coevo.core.cli.eval import model_folder
    from coevo.core.policy.builders import load_pretrained
    from coevo.core.progress import activity
    from coevo.core.rollout.hf_engine import HFEngine
    from coevo.core.serve.background import BackgroundServer
    from coevo.core.serve.schema import ServeSchema

    with stage("config"):
        settings: ServeSchema = validate(cfg, ServeSchema, "serve")
        if settings.device == "cuda" and not torch.cuda.is_available():
            raise ValueError("device=cuda: no GPU is visible; set device=cpu (or auto)")
    if settings.cpu_threads:
        torch.set_num_threads(settings.cpu_threads)
    with stage("checkpoint"):
        key = "checkpoint" if settings.checkpoint is not None else "model.path"
        folder = model_folder(settings.checkpoint) if settings.checkpoint is not None else settings.model.path
        with activity(f"loading the model from {folder}"):
            model, tokenizer = load_pretrained(folder, settings.model.dtype, key=key)
    device = "cuda" if settings.device == "cuda" or (settings.device == "auto" and torch.cuda.is_available()) else "cpu"
    model = model.to(device).eval()
    torch.manual_seed(settings.seed)
    engine = HFEngine(None, model, tokenizer)
    with stage("config"):
        server = BackgroundServer(engine, tokenizer, settings.server).start()
    console.print(f"[bold]coevo-serve[/bold]: {escape(str(folder))} as '{escape(settings.server.model_name)}' "
                  f"on {device}, OpenAI-compatible at [bold]{server.url}[/bold] (Ctrl-C or SIGTERM stops)")
    if not block:
        return server
    signal.signal(signal.SIGTERM, _stop)  # a service manager's stop: the same clean exit as Ctrl-C
    try:
        while server._thread.is_alive():
            server._thread.join(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return None


def _stop(signum, frame) -> None:
    raise KeyboardInterrupt


def _main(cfg: DictConfig) -> None:
    run_guarded(lambda: run(cfg), console, debug_flag(cfg))


def main() -> None:
    if not extra_installed():
        print_error(console, EXTRA_MISSING)
        sys.exit(EXIT_REFUSED)
    from coevo.core.cli.hydra_entry import run_hydra
    from coevo.core.cli.notices import quiet_third_party

    quiet_third_party()
    warnings.filterwarnings("ignore", message=".*does not have many workers.*")
    run_hydra("serve", _main, console)


if __name__ == "__main__":
    main()
