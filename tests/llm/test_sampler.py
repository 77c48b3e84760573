"""The C++ sampler (torchedge._C.LlmSampler) against transformers' own logits
processors, the reference definitions it follows:

    RepetitionPenaltyLogitsProcessor -> TemperatureLogitsWarper
    -> TopKLogitsWarper -> TopPLogitsWarper -> softmax   (generate()'s order)

distribution() must equal that softmax to 1e-6 on random 49152-logit rows;
the empirical frequencies of 200,000 draws over a small vocabulary must
match it within 5 binomial standard deviations per id (and ids it removes
are never drawn); greedy is argmax; top_k=1 is greedy; a seed repeats its
sequence.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from transformers.generation.logits_process import (
    RepetitionPenaltyLogitsProcessor,
    TemperatureLogitsWarper,
    TopKLogitsWarper,
    TopPLogitsWarper,
)

from torchedge import _C

VOCAB = 49152


def reference_distribution(logits: np.ndarray, history: list[int], temperature: float,
                           top_k: int, top_p: float, penalty: float) -> np.ndarray:
    ids = torch.tensor([history], dtype=torch.long) if history else torch.zeros((1, 0), dtype=torch.long)
    scores = torch.from_numpy(logits.copy()).unsqueeze(0)
    if penalty != 1.0 and history:
        scores = RepetitionPenaltyLogitsProcessor(penalty)(ids, scores)
    scores = TemperatureLogitsWarper(temperature)(ids, scores)
    if top_k > 0:
        scores = TopKLogitsWarper(top_k)(ids, scores)
    if top_p < 1.0:
        scores = TopPLogitsWarper(top_p)(ids, scores)
    return torch.softmax(scores.double(), dim=-1)[0].numpy()


def random_logits(n: int, seed: int, scale: float = 3.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(n) * scale).astype(np.float32)


CASES = [
    # temperature, top_k, top_p, repetition_penalty
    (1.0, 0, 1.0, 1.0),
    (0.7, 0, 1.0, 1.0),
    (1.5, 50, 1.0, 1.0),
    (1.0, 0, 0.9, 1.0),
    (0.8, 40, 0.95, 1.2),
    (1.0, 0, 0.5, 1.3),
    (1.2, 2000, 0.99, 1.05),
]


@pytest.mark.parametrize("temperature,top_k,top_p,penalty", CASES)
def test_distribution_equals_transformers(temperature, top_k, top_p, penalty):
    logits = random_logits(VOCAB, seed=int(temperature * 100) + top_k)
    history = [int(i) for i in np.random.default_rng(1).integers(0, VOCAB, 400)]
    sampler = _C.LlmSampler(VOCAB, temperature=temperature, top_k=top_k, top_p=top_p,
                            repetition_penalty=penalty, seed=0)
    got = np.asarray(sampler.distribution(logits, history), dtype=np.float64)
    want = reference_distribution(logits, history, temperature, top_k, top_p, penalty)
    assert np.abs(got - want).max() < 1e-6
    assert set(np.flatnonzero(got)) == set(np.flatnonzero(want > 0))


@pytest.mark.parametrize("top_k,top_p", [(0, 1.0), (4, 1.0), (0, 0.7), (5, 0.9)])
def test_empirical_frequencies_match(top_k, top_p):
    logits = np.array([1.0, 0.2, -0.5, 2.0, 0.0, -3.0, 1.5, 0.7], dtype=np.float32)
    draws = 200_000
    sampler = _C.LlmSampler(len(logits), temperature=0.9, top_k=top_k, top_p=top_p, seed=99)
    p = reference_distribution(logits, [], 0.9, top_k, top_p, 1.0)
    counts = np.bincount(sampler.sample_many(logits, [], draws), minlength=len(logits))
    for i, (c, q) in enumerate(zip(counts, p)):
        tolerance = 5 * math.sqrt(q * (1 - q) / draws) + 1e-12
        assert abs(c / draws - q) <= tolerance, (i, c / draws, q)
        if q == 0:
            assert c == 0


def test_greedy_is_argmax_and_top_k_one_is_greedy():
    for seed in range(5):
        logits = random_logits(VOCAB, seed)
        history = [int(np.argmax(logits))] if seed % 2 else []
        penalized = reference_distribution(logits, history, 1.0, 0, 1.0, 1.5)
        greedy = _C.LlmSampler(VOCAB, repetition_penalty=1.5)
        assert greedy.sample(logits, history) == int(np.argmax(penalized))
        top1 = _C.LlmSampler(VOCAB, temperature=0.7, top_k=1, seed=seed)
        assert top1.sample(logits) == int(np.argmax(logits))


def test_seeded_sequences_repeat():
    logits = random_logits(1000, 3, scale=1.0)
    run = lambda seed: _C.LlmSampler(1000, temperature=1.0, top_p=0.95, seed=seed).sample_many(logits, [], 300)
    assert run(5) == run(5)
    assert run(5) != run(6)
    s = _C.LlmSampler(1000, temperature=1.0, seed=5)
    first = s.sample_many(logits, [], 50)
    s.reseed(5)
    assert s.sample_many(logits, [], 50) == first


def test_invalid_arguments_raise():
    with pytest.raises(_C.TorchEdgeError, match="top_p"):
        _C.LlmSampler(10, temperature=1.0, top_p=0.0)
    with pytest.raises(_C.TorchEdgeError, match="temperature"):
        _C.LlmSampler(10, temperature=-0.5)
    s = _C.LlmSampler(10, temperature=1.0)
    with pytest.raises(_C.TorchEdgeError, match="9 logits for a vocabulary of 10"):
        s.sample(np.zeros(9, dtype=np.float32))
    with pytest.raises(_C.TorchEdgeError, match="outside the vocabulary"):
        _C.LlmSampler(10, repetition_penalty=1.2).sample(np.zeros(10, dtype=np.float32), [10])
    with pytest.raises(TypeError, match="float32"):
        s.sample(np.zeros(10, dtype=np.float64))
