"""The model zoo end to end: each model lowers, runs in the C++ runtime and
matches eager PyTorch.

Tolerance (float32): max |runtime - eager| <= 1e-4 * max(1, max |eager|)
over every output (zoo_common.parity_error). Float inputs are redrawn with a
fixed seed (not the export example); integer inputs (token ids, masks) are the
example's. A model whose program calls an operator without a kernel fails here,
naming every missing kernel. Each model is lowered once (module-scoped fixture).
"""

from __future__ import annotations

import pytest
import torch

import torchedge
from torchedge import models, runtime
from torchedge.models.zoo_common import PARITY_TOLERANCE, ZOO_MODELS, parity_error


@pytest.fixture(scope="module", params=ZOO_MODELS)
def zoo_model(request):
    spec = models.get(request.param)
    return spec, torchedge.lower(spec.module, spec.lower_inputs())


def test_zoo_is_registered():
    available = models.available()
    assert [name for name in ZOO_MODELS if name not in available] == []


def test_zoo_model_matches_eager(zoo_model):
    spec, pte = zoo_model
    assert spec.extra.get("zoo") is True
    missing = sorted(set(pte.operators["forward"]) - set(runtime.registered_kernels()))
    assert not missing, f"{spec.name}: no runtime kernel for {', '.join(missing)}"
    torch.manual_seed(1)
    inputs = tuple(torch.randn_like(x) if x.dtype.is_floating_point else x for x in spec.inputs())
    with torch.no_grad():
        reference = spec.module(*inputs)
    actual = runtime.load(pte.buffer).forward(*inputs)
    assert type(actual) is type(reference), "output structure differs from eager"
    error = parity_error(reference, actual)
    assert error <= PARITY_TOLERANCE, f"{spec.name}: max relative difference {error:.3e}"


def test_zoo_memory_plan_is_sane(zoo_model):
    spec, pte = zoo_model
    report = pte.memory_plan["forward"]
    assert 0 < report.lower_bound_bytes <= report.arena_bytes, spec.name
