"""Hypothesis runs without its example database (no .hypothesis/ folder in the working tree)."""

from hypothesis import settings

settings.register_profile("coevo-envs", database=None)
settings.load_profile("coevo-envs")
