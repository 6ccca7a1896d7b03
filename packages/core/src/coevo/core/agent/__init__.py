"""The multi-turn agent loop: prompts, episodes."""
