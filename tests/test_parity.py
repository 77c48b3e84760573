"""End to end: every built-in model exported, run in the C++ runtime, compared with eager.

Tolerance (float32): max |runtime - eager| <= 1e-5 * max(1, max |eager|),
i.e. 1e-5 relative to the output's magnitude. Also checks the memory plan
(arena >= lower bound > 0) and, for the multi-method models, that shared
weights are stored once.
"""

from __future__ import annotations

import pytest
import torch

import torchedge
from torchedge import models, runtime

RELATIVE_TOLERANCE = 1e-5

PARITY_MODELS = ["mlp", "small_cnn", "transformer_block", "multi_output", "two_methods",
                 "shared_constants"]


def _leaves(value):
    return [t for t in torch.utils._pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]


def _relative_error(reference: torch.Tensor, actual: torch.Tensor) -> float:
    if reference.dtype == torch.bool or not reference.dtype.is_floating_point:
        return 0.0 if torch.equal(reference, actual) else float("inf")
    scale = max(1.0, reference.abs().max().item()) if reference.numel() else 1.0
    return (reference.double() - actual.double()).abs().max().item() / scale if reference.numel() else 0.0


@pytest.fixture(scope="module", params=PARITY_MODELS)
def lowered(request):
    spec = models.get(request.param)
    pte = torchedge.lower(spec.module, spec.lower_inputs(), methods=list(spec.methods))
    return spec, pte, runtime.load(pte.buffer)


def test_outputs_match_eager(lowered):
    spec, _, program = lowered
    for method in spec.methods:
        for seed in range(2):
            torch.manual_seed(100 + seed)
            inputs = tuple(torch.rand_like(x) * 4 - 2 if x.dtype.is_floating_point else x
                           for x in spec.inputs(method))
            with torch.no_grad():
                reference = getattr(spec.module, method)(*inputs)
            actual = program.run_method(method, inputs)
            assert type(actual) is type(reference), "output structure differs from eager"
            ref_leaves, act_leaves = _leaves(reference), _leaves(actual)
            assert len(ref_leaves) == len(act_leaves)
            for r, a in zip(ref_leaves, act_leaves):
                assert r.shape == a.shape and r.dtype == a.dtype
                assert _relative_error(r, a) <= RELATIVE_TOLERANCE, (spec.name, method)


def test_memory_plan_is_sane(lowered):
    spec, pte, program = lowered
    for method in spec.methods:
        report = pte.memory_plan[method]
        assert 0 < report.lower_bound_bytes <= report.arena_bytes
        assert program.planned_bytes(method) >= report.arena_bytes


def test_methods_are_all_exported(lowered):
    spec, _, program = lowered
    assert sorted(program.method_names) == sorted(spec.methods)


def test_shared_weight_is_stored_once():
    spec = models.get("shared_constants")
    pte = torchedge.lower(spec.module, spec.lower_inputs(), methods=list(spec.methods))
    weight_bytes = spec.module.weight.numel() * 4
    # One copy of the 64x64 weight plus the bias and small tensors, not two copies.
    assert weight_bytes < len(pte.buffer) < 2 * weight_bytes
