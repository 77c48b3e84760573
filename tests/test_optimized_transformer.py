"""Transformer models through the runtime on the optimized kernels, against eager.

The optimized transformer kernels (kernels/optimized/ops: softmax, layer norm,
GELU/tanh/relu/sigmoid/silu, add/sub/mul/div with broadcasts) replace the
portable ones by name. Here the built-in `transformer_block` and a small
BERT-style encoder (padding mask, GELU, two LayerNorms per layer, tanh pooler;
the zoo's BertEncoder at reduced sizes) run with kernels="optimized" at 1 and
2 threads and must match eager PyTorch within 1e-5 relative to each output's
magnitude: max |runtime - eager| <= 1e-5 * max(1, max |eager|). The portable
run of the same file is checked too, so a failure points at the right library.
"""

from __future__ import annotations

import pytest
import torch

import torchedge
from torchedge import models, runtime
from torchedge.models.zoo_text import BertEncoder

RELATIVE_TOLERANCE = 1e-5


def _relative_error(reference: torch.Tensor, actual: torch.Tensor) -> float:
    scale = max(1.0, reference.abs().max().item())
    return (reference.double() - actual.double()).abs().max().item() / scale


def _small_bert() -> tuple[torch.nn.Module, tuple]:
    torch.manual_seed(0)
    module = BertEncoder(vocab=500, d=96, layers=2, heads=4, intermediate=388, positions=64).eval()
    batch, seq = 2, 21  # 21 tokens: softmax rows and head dims with tails not a multiple of 8
    input_ids = torch.randint(0, 500, (batch, seq))
    token_type_ids = torch.zeros(batch, seq, dtype=torch.long)
    token_type_ids[:, seq // 2:] = 1
    attention_mask = torch.ones(batch, seq, dtype=torch.long)
    attention_mask[1, 15:] = 0  # padding: a large negative bias on those keys
    return module, (input_ids, token_type_ids, attention_mask)


def _transformer_block() -> tuple[torch.nn.Module, tuple]:
    spec = models.get("transformer_block")
    return spec.module, spec.inputs()


CASES = {"transformer_block": _transformer_block, "bert_small": _small_bert}


@pytest.fixture(scope="module", params=sorted(CASES))
def lowered(request):
    module, inputs = CASES[request.param]()
    pte = torchedge.lower(module, inputs)
    with torch.no_grad():
        reference = module(*inputs)
    reference = reference if isinstance(reference, tuple) else (reference,)
    return request.param, pte, inputs, reference


@pytest.mark.parametrize("kernels,threads", [("optimized", 1), ("optimized", 2), ("portable", 1)])
def test_matches_eager(lowered, kernels, threads):
    name, pte, inputs, reference = lowered
    runtime.set_num_threads(threads)
    try:
        program = runtime.load(pte.buffer, kernels=kernels)
        actual = program.run_method("forward", inputs)
    finally:
        runtime.set_num_threads(1)
    actual = actual if isinstance(actual, tuple) else (actual,)
    assert len(actual) == len(reference)
    for r, a in zip(reference, actual):
        assert r.shape == a.shape and r.dtype == a.dtype
        err = _relative_error(r, a)
        assert err <= RELATIVE_TOLERANCE, f"{name} ({kernels}, {threads} threads): {err:.2e}"
