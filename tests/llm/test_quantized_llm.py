"""Quantized LLM programs agree with their eager quantized reference.

A small random-weight Llama (tests/llm/tiny_llama.py) exported with each
precision (int8, 8da4w, int4) and group size 32 / 64: the runtime's logits
stay within 1e-3 of the largest |logit| of the eager quantized decoder at
every prefill row and 32 decode steps, greedy generation is token-identical
for 32 steps, and 4-bit weights are stored two per byte.
"""

from __future__ import annotations

import pytest
import torch

import torchedge
from tiny_llama import tiny_llama
from torchedge.llm.export import build_decoder, export_decoder

CONTEXT = 64
STEPS = 32


def _relative(a: torch.Tensor, b: torch.Tensor) -> float:
    return ((a - b).abs().max() / b.abs().max()).item()


@pytest.mark.parametrize("quantize,group_size", [("8da4w", 32), ("8da4w", 64), ("int4", 32), ("int8", 32)])
def test_runtime_matches_the_eager_quantized_reference(quantize, group_size):
    model = tiny_llama(seed=4, vocab=512, layers=2)
    decoder = build_decoder(model, quantize, group_size=group_size, max_context=CONTEXT)
    program = torchedge.runtime.load(export_decoder(decoder, max_prefill=16).buffer)
    decoder.reset()
    prompt = torch.randint(3, 512, (1, 7), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        expected = decoder(prompt, torch.tensor([0]))
    logits = program.forward(prompt, torch.tensor([0]))
    errors = [_relative(logits, expected)]
    eager_tokens, runtime_tokens = [], []
    eager_next, runtime_next = expected, logits
    for position in range(7, 7 + STEPS):
        e, r = int(eager_next[0, -1].argmax()), int(runtime_next[0, -1].argmax())
        eager_tokens.append(e)
        runtime_tokens.append(r)
        with torch.no_grad():
            eager_next = decoder(torch.tensor([[e]]), torch.tensor([position]))
        runtime_next = program.forward(torch.tensor([[e]]), torch.tensor([position]))
        errors.append(_relative(runtime_next, eager_next))
    print(f"{quantize} g{group_size}: max relative logit error {max(errors):.2e}")
    assert runtime_tokens == eager_tokens
    assert max(errors) <= 1e-3


def test_four_bit_weights_are_packed_two_per_byte():
    model = tiny_llama(seed=5, vocab=512, layers=1)
    decoder = build_decoder(model, "8da4w", group_size=32, max_context=CONTEXT)
    layer = decoder.layers[0]
    assert layer.gate_proj.packed_weight.dtype == torch.uint8
    assert list(layer.gate_proj.packed_weight.shape) == [128, 32]  # [N, K / 2]
    float_bytes = build_decoder(model, None, max_context=CONTEXT)
    quantized = export_decoder(decoder, max_prefill=8)
    reference = export_decoder(float_bytes, max_prefill=8)
    assert len(quantized.buffer) < 0.45 * len(reference.buffer)
