"""Batches of similar-length sequences in random order (the warm start's SFT, ``group_by_length``).

Random batches of the warm start's turns pad each row to the batch's longest: 21% of the tokens
of a household warm start were padding. ``LengthGroupedBatches`` shuffles all indices, cuts them
into windows of ``window`` batches, sorts each window by length and cuts it into batches, then
shuffles the batches: every batch holds sequences of similar length, and an epoch still visits
every sequence once in a random order (as Hugging Face's ``group_by_length`` does).

Off by default: on the household warm start it cut an SFT epoch from 30 s to 23 s, but the
warm-started policy's held-out success fell from 33.8% to 7.9% (sampled, 60 tasks x 4): batches of
one length are batches of one kind of turn, and this short warm start is sensitive to that.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch


class LengthGroupedBatches(torch.utils.data.Sampler[list[int]]):
    """A ``batch_sampler``: lists of indices into a dataset whose items have ``lengths``."""

    def __init__(self, lengths: list[int], batch_size: int, generator: torch.Generator, window: int = 16):
        if batch_size < 1 or window < 1:
            raise ValueError(f"batch_size and window must be at least 1; got {batch_size} and {window}")
        self.lengths = list(lengths)
        self.batch_size = batch_size
        self.window = window
        self.generator = generator

    def __len__(self) -> int:
        return -(-len(self.lengths) // self.batch_size)  # ceil

    def __iter__(self) -> Iterator[list[int]]:
        order = torch.randperm(len(self.lengths), generator=self.generator).tolist()
        span = self.batch_size * self.window
        batches = []
        for start in range(0, len(order), span):
            window = sorted(order[start : start + span], key=lambda i: self.lengths[i])
            batches += [window[k : k + self.batch_size] for k in range(0, len(window), self.batch_size)]
        for k in torch.randperm(len(batches), generator=self.generator).tolist():
            yield batches[k]
