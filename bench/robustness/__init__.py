"""Robustness: bad inputs to the CLIs and hostile model output."""
