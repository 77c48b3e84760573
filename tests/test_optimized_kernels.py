"""The optimized CPU kernel library against the portable kernels and eager.

One .pte per model is run with `kernels="portable"` and `kernels="optimized"`
(torchedge.runtime.load), at 1 and 2 threads; both are compared with eager
PyTorch: max |runtime - eager| <= 1e-4 * max(1, max |eager|). The models
cover the optimized convolution (GEMM and depthwise), mm/addmm/bmm and the
transformer kernels: small_cnn, transformer_block and mobilenet_v2 (a zoo CNN
with 1x1, 3x3 and depthwise convolutions, ReLU6, pooling and a linear head).
"""

from __future__ import annotations

import pytest
import torch

import torchedge
from torchedge import _C, models, runtime

RELATIVE_TOLERANCE = 1e-4
MODELS = ["small_cnn", "transformer_block", "mobilenet_v2"]


def _relative_error(reference: torch.Tensor, actual: torch.Tensor) -> float:
    scale = max(1.0, reference.abs().max().item())
    return (reference.double() - actual.double()).abs().max().item() / scale


@pytest.fixture(scope="module", params=MODELS)
def lowered(request):
    spec = models.get(request.param)
    pte = torchedge.lower(spec.module, spec.lower_inputs())
    torch.manual_seed(5)
    inputs = tuple(torch.rand_like(x) * 2 - 1 if x.dtype.is_floating_point else x
                   for x in spec.inputs())
    with torch.no_grad():
        reference = spec.module(*inputs)
    return spec, pte.buffer, inputs, reference


@pytest.mark.parametrize("threads", [1, 2])
def test_optimized_and_portable_match_eager(lowered, threads):
    spec, buffer, inputs, reference = lowered
    _C.set_num_threads(threads)
    try:
        outputs = {k: runtime.load(buffer, kernels=k).forward(*inputs)
                   for k in ("portable", "optimized")}
    finally:
        _C.set_num_threads(1)
    for kernels, actual in outputs.items():
        assert actual.shape == reference.shape
        err = _relative_error(reference, actual)
        assert err <= RELATIVE_TOLERANCE, (spec.name, kernels, threads, err)


def test_kernel_library_choice_is_validated():
    with pytest.raises(ValueError):
        runtime.set_kernel_library("fast")
    with pytest.raises(ValueError):
        runtime.load(b"", kernels="fast")
    assert _C.cpu_isa() in ("scalar", "avx2", "avx512")


def test_set_kernel_library_changes_the_default(lowered):
    spec, buffer, inputs, reference = lowered
    try:
        runtime.set_kernel_library("portable")
        actual = runtime.load(buffer).forward(*inputs)
    finally:
        runtime.set_kernel_library("optimized")
    assert _relative_error(reference, actual) <= RELATIVE_TOLERANCE
