"""Scaling: state per rank and step time under FSDP, and the GPU check."""
