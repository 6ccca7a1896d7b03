"""Write a policy as a Hugging Face folder (safetensors + tokenizer) atomically.

Everything goes into a temporary sibling folder that is renamed into place, so a crash never
leaves half a model where a reader (a resumed run, the warm-start cache) would take it as whole.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def save_policy_folder(model, tokenizer, folder: Path, extra_files: dict[str, str] | None = None,
                       state_dict: dict | None = None) -> Path:
    """Atomically replace ``folder`` with ``model``/``tokenizer`` and ``extra_files`` (name → text).

    ``state_dict``: the weights to write instead of the model's own (e.g. a full state dict gathered
    from FSDP shards)."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = folder.with_name(folder.name + f".tmp-{os.getpid()}")
    old = folder.with_name(folder.name + f".old-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    extra = {"state_dict": state_dict} if state_dict is not None else {}
    model.save_pretrained(tmp, safe_serialization=True, **extra)
    tokenizer.save_pretrained(tmp)
    for name, text in (extra_files or {}).items():
        (tmp / name).write_text(text)
    if folder.exists():
        os.replace(folder, old)
    os.replace(tmp, folder)
    shutil.rmtree(old, ignore_errors=True)
    return folder
