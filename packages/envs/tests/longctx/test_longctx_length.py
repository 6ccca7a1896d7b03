"""Document length in tokens and the number of chunks for a multiple of a context window."""

import pytest

from coevo.envs.longctx.env import LongCtxEnv
from coevo.envs.longctx.length import chunks_for_context, count_tokens, document_tokens


class WordTokenizer:
    """One token per whitespace-separated word (stands in for a Hugging Face tokenizer)."""

    def encode(self, text):
        return text.split()


def test_count_tokens_takes_an_encoder_or_a_counting_callable():
    assert count_tokens("a b c", WordTokenizer()) == 3
    assert count_tokens("abc", len) == 3
    with pytest.raises(TypeError, match="encode"):
        count_tokens("abc", 42)


def test_document_tokens_counts_every_chunk_as_read_shows_it(small_document):
    expected = sum(len(small_document.chunk_text(i)) for i in range(3)) + 2  # two joining newlines
    assert document_tokens(small_document, len) == expected


@pytest.mark.parametrize("multiple", [1, 2, 4, 8])
def test_chunks_for_context_reaches_the_multiple(multiple):
    window = 2048
    num_chunks = chunks_for_context(multiple, window, len, records_per_chunk=10)
    env = LongCtxEnv(LongCtxEnv.Config(num_chunks=num_chunks))
    for index in range(4):
        env.reset(env.task("train", index))
        tokens, chunk = env.document_tokens(len), len(env.document.chunk_text(0))
        # at least the multiple (a few per cent either way between documents), at most a chunk more
        assert 0.95 * multiple * window <= tokens <= 1.05 * multiple * window + chunk
    assert env.chunks_for_context(multiple, window, len) == num_chunks


def test_more_context_needs_more_chunks():
    counts = [chunks_for_context(m, 1000, WordTokenizer()) for m in (1, 2, 4, 8)]
    assert counts == sorted(counts) and counts[0] < counts[-1] / 6
    with pytest.raises(ValueError, match="positive"):
        chunks_for_context(0, 1000, len)
