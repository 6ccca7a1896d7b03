"""coevo-rsipo: RSIPO (skill-policy co-evolution with replay-gain rewards and trust-calibrated
on-policy self-distillation) and its baselines, as plugins of coevo-core."""

__version__ = "0.1.0"
