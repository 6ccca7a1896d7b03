"""coevo-train/coevo-eval keep named third-party notices off the terminal, and only those."""

import warnings

from coevo.core.cli.notices import NOTICES, quiet_third_party

# the texts as the libraries print them (lightning 2.6.6, torch 2.13, transformers 5.x)
SEEN = {
    "lightning.pytorch.utilities._pytree": ("`isinstance(treespec, LeafSpec)` is deprecated, use "
                                            "`isinstance(treespec, TreeSpec) and treespec.is_leaf()` instead.",
                                            FutureWarning),
    "transformers.modeling_utils": ("`is_gradient_checkpointing` is deprecated and will be removed in v6. Use "
                                    "`is_activation_checkpointing` instead.", FutureWarning),
    "lightning.pytorch.trainer.connectors.data_connector": (
        "You have overridden `transfer_batch_to_device` in `LightningModule` but have passed in a "
        "`LightningDataModule`. It will use the implementation from `LightningModule` instance.", UserWarning),
}


def _shown(message: str, category: type[Warning], module: str) -> bool:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet_third_party()
        warnings.warn_explicit(message, category, f"{module.replace('.', '/')}.py", 1, module=module)
    return bool(caught)


def test_each_notice_is_silenced_from_its_module_only():
    assert len(NOTICES) == len(SEEN)
    for module, (message, category) in SEEN.items():
        assert not _shown(message, category, module), message
        assert _shown(message, category, "coevo.core.algos.grpo"), message  # the same text from elsewhere
    assert _shown("some other deprecation", FutureWarning, "transformers.modeling_utils")


def test_importing_the_entry_points_installs_nothing():
    from coevo.core.cli import eval as _eval  # noqa: F401
    from coevo.core.cli import train as _train  # noqa: F401

    message, category = SEEN["transformers.modeling_utils"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.warn_explicit(message, category, "modeling_utils.py", 1, module="transformers.modeling_utils")
    assert caught  # pytest's (and a library user's) view: only main() installs the filters
