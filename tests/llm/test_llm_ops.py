"""The runtime's decoder-LLM kernels (torchedge::rms_norm, rope, silu_mul,
sdpa_kv_cache; contract and eager references in python/torchedge/llm/ops.py)
against eager PyTorch.

Each test exports a tiny module calling torch.ops.torchedge.<op>, lowers it
with torchedge.to_edge -> to_pte, runs it with the portable and with the
optimized kernel library and compares with the module run eagerly, in
float32 with rtol = atol = 1e-5 (the kernels reorder float sums and the
attention's softmax is taken online, so results agree to float rounding, not
bit for bit). The KV caches are module inputs here, so the memory plan does
not alias them with the outputs and sdpa_kv_cache takes its copy path; the
in-place path is covered by kernels/portable/test/decoder_ops_test.cpp and
kernels/optimized/test/decoder_ops_test.cpp.
"""

from __future__ import annotations

import pytest
import torch

import torchedge
import torchedge.llm.ops  # noqa: F401  (defines torch.ops.torchedge.<op>)
from torchedge import runtime

RTOL = ATOL = 1e-5
LIBRARIES = ("portable", "optimized")


def _lower(module: torch.nn.Module, inputs: tuple, dynamic_shapes=None) -> bytes:
    ep = torch.export.export(module, inputs, dynamic_shapes=dynamic_shapes)
    return torchedge.to_edge(ep).to_pte().buffer


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _check(module: torch.nn.Module, inputs: tuple, kernels: str) -> None:
    got = _as_list(runtime.load(_lower(module, inputs), kernels=kernels).forward(*inputs))
    want = _as_list(module(*inputs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL)


def _randn(*shape: int, seed: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed)) * scale


class RmsNorm(torch.nn.Module):
    def __init__(self, dim: int, eps: float):
        super().__init__()
        self.register_buffer("weight", _randn(dim, seed=1))
        self.eps = eps

    def forward(self, x):
        return torch.ops.torchedge.rms_norm(x, self.weight, self.eps)


class Rope(torch.nn.Module):
    def forward(self, x, cos, sin):
        return torch.ops.torchedge.rope(x, cos, sin)


class SiluMul(torch.nn.Module):
    def forward(self, gate, up):
        return torch.ops.torchedge.silu_mul(gate, up)


class Attention(torch.nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, q, k, v, k_cache, v_cache, start_pos):
        return torch.ops.torchedge.sdpa_kv_cache(q, k, v, k_cache, v_cache, start_pos, self.scale)


@pytest.mark.parametrize("kernels", LIBRARIES)
@pytest.mark.parametrize("shape", [(1, 1, 576), (1, 7, 576), (2, 3, 40)])
def test_rms_norm_matches_eager(kernels, shape):
    _check(RmsNorm(shape[-1], 1e-5), (_randn(*shape, seed=2, scale=3.0),), kernels)


@pytest.mark.parametrize("kernels", LIBRARIES)
@pytest.mark.parametrize("shape", [(1, 1, 9, 64), (1, 7, 3, 64), (2, 5, 4, 16)])
def test_rope_matches_eager(kernels, shape):
    b, t, h, d = shape
    positions = torch.arange(5, 5 + t, dtype=torch.float32).unsqueeze(1)
    inv_freq = 1.0 / (10000.0 ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    angles = torch.cat([positions * inv_freq] * 2, dim=-1)  # [T, D]
    _check(Rope(), (_randn(*shape, seed=3), angles.cos(), angles.sin()), kernels)


@pytest.mark.parametrize("kernels", LIBRARIES)
@pytest.mark.parametrize("shape", [(1, 1, 1536), (1, 7, 1536), (3, 33)])
def test_silu_mul_matches_eager(kernels, shape):
    _check(SiluMul(), (_randn(*shape, seed=4, scale=4.0), _randn(*shape, seed=5)), kernels)


def _attention_inputs(batch, tokens, q_heads, kv_heads, dim, context, start, seed=0):
    return (_randn(batch, tokens, q_heads, dim, seed=seed),
            _randn(batch, tokens, kv_heads, dim, seed=seed + 1),
            _randn(batch, tokens, kv_heads, dim, seed=seed + 2),
            _randn(batch, context, kv_heads, dim, seed=seed + 3),
            _randn(batch, context, kv_heads, dim, seed=seed + 4),
            torch.tensor([start], dtype=torch.int64))


@pytest.mark.parametrize("kernels", LIBRARIES)
@pytest.mark.parametrize("tokens,start", [
    (1, 63),   # decode at the last position of the cache
    (1, 40),   # decode mid-cache
    (7, 0),    # prefill from an empty cache
    (7, 5),    # prefill after 5 cached tokens
])
def test_sdpa_kv_cache_grouped_heads_match_eager(kernels, tokens, start):
    # SmolLM2's attention: 9 query heads over 3 kv heads, head dim 64.
    inputs = _attention_inputs(1, tokens, 9, 3, 64, 64, start, seed=tokens * 10 + start)
    _check(Attention(64 ** -0.5), inputs, kernels)


@pytest.mark.parametrize("kernels", LIBRARIES)
def test_sdpa_kv_cache_batch_and_head_layouts_match_eager(kernels):
    _check(Attention(0.3), _attention_inputs(2, 4, 4, 4, 16, 24, 11, seed=7), kernels)  # MHA, batch 2
    _check(Attention(0.2), _attention_inputs(1, 3, 6, 1, 32, 20, 2, seed=8), kernels)   # one kv head


@pytest.mark.parametrize("kernels", LIBRARIES)
def test_sdpa_kv_cache_long_cache_decode_matches_eager(kernels):
    # A 2048-row cache near its end (the optimized kernel splits the keys
    # across threads when there are fewer heads than work items).
    inputs = _attention_inputs(1, 1, 9, 3, 64, 2048, 2040, seed=9)
    for threads in (1, 2):
        runtime.set_num_threads(threads)
        try:
            _check(Attention(0.125), inputs, kernels)
        finally:
            runtime.set_num_threads(1)


@pytest.mark.parametrize("kernels", LIBRARIES)
def test_sdpa_kv_cache_positions_past_the_context_are_an_error(kernels):
    inputs = _attention_inputs(1, 3, 9, 3, 64, 32, 0, seed=10)
    program = runtime.load(_lower(Attention(0.125), inputs), kernels=kernels)
    late = inputs[:5] + (torch.tensor([30], dtype=torch.int64),)
    with pytest.raises(Exception, match=r"positions \[30, 33\) do not fit the context of 32"):
        program.forward(*late)
    negative = inputs[:5] + (torch.tensor([-1], dtype=torch.int64),)
    with pytest.raises(Exception, match=r"positions \[-1, 2\) do not fit the context of 32"):
        program.forward(*negative)
    # The program still runs after the errors.
    got = _as_list(program.forward(*inputs))
    for g, w in zip(got, _as_list(Attention(0.125)(*inputs))):
        torch.testing.assert_close(g, w, rtol=RTOL, atol=ATOL)
