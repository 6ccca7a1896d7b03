"""Throughput: tokens/s and seconds per step of the agent loop, the rollout engines and the training step."""
