"""longctx: aggregation questions over generated documents longer than the model's context.

``LongCtxEnv`` (registered as ``"longctx"``) is the environment; ``chunks_for_context`` and
``document_tokens`` size documents against a context window.
"""

from coevo.envs.longctx.env import LongCtxEnv
from coevo.envs.longctx.length import chunks_for_context, document_tokens

__all__ = ["LongCtxEnv", "chunks_for_context", "document_tokens"]
