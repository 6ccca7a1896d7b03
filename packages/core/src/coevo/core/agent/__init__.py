"""The multi-turn agent loop: prompts, action parsing, episodes."""
