"""An OpenAI-compatible endpoint backed by the policy (``coevo-serve``; ``pip install 'coevo-core[serve]'``).

Pieces: ``settings`` (``server.*``), ``requests`` (OpenAI request bodies checked into sampling
requests), ``worker`` (one thread that owns the rollout engine), ``completion`` (stop strings, text,
finish reasons from the engine's tokens), ``sessions`` (per-session token traces and rewards),
``app`` (the FastAPI routes), ``background`` (uvicorn in a thread), ``rewards`` (the client helper).
"""
