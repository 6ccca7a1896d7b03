"""Serving: the policy behind an OpenAI-compatible endpoint, against coevo's own agent loop."""
