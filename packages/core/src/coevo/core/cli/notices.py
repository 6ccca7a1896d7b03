"""Third-party notices kept off the user's terminal by ``coevo-train`` and ``coevo-eval``.

Each filter names one message and the module the warning is attributed to (never a blanket
ignore), with why it is not fixed at its source. Only the entry points install them (once, in
``main``): pytest and library users still see every warning.
"""

from __future__ import annotations

import warnings

# (message regex, category, module regex): the module is the one the warning is attributed to
NOTICES: tuple[tuple[str, type[Warning], str], ...] = (
    # Lightning's CombinedLoader flattens every batch with torch's deprecated LeafSpec (lightning
    # 2.6.6 on torch 2.13); nothing of ours is involved
    (r"`isinstance\(treespec, LeafSpec\)` is deprecated", FutureWarning, r"lightning\.pytorch\.utilities\._pytree"),
    # a deprecated property of transformers' models that peft's PeftModel reads when it wraps the
    # policy (model.lora.enabled=true); we never read it
    (r"`is_gradient_checkpointing` is deprecated", FutureWarning, r"transformers\.modeling_utils"),
    # RolloutModule keeps its no-op transfer_batch_to_device (a plain DataLoader of Task lists would
    # otherwise fail: Lightning cannot move frozen dataclasses); with RolloutDataModule, whose
    # TaskBatchRef placeholders hold nothing to move, Lightning uses the module's hook and says so
    (r"You have overridden `transfer_batch_to_device` in `LightningModule` but have passed in a"
     r" `LightningDataModule`", UserWarning, r"lightning\.pytorch\."),
)


def quiet_third_party() -> None:
    """Install the filters of ``NOTICES`` (at the front of the filter list)."""
    for message, category, module in NOTICES:
        warnings.filterwarnings("ignore", message=message, category=category, module=module)
