"""Dynamic shapes: export with bounded Dims, run any size up to the bound.

Models (tests/dynamic_state_models.py): a batch-dynamic CNN (conv, batch
norm, relu, max pool, global average pool, linear; batch <= 8), a
sequence-dynamic transformer block (tokens [1, s], s <= 64: embedding,
layer norm, causal attention with matmul and softmax, GELU MLP), the same
block with batch and sequence dynamic (tokens [b, s], b <= 4, s <= 64), and
a model doing Python arithmetic on sizes (the executorch_prim kernels).

Tolerance (float32): max |runtime - eager| <= 1e-5 * max(1, max |eager|).
Run with -s to see the sizes tried, the differences and the planned memory.
"""

from __future__ import annotations

import copy
import functools

import pytest
import torch

import torchedge
from dynamic_state_models import build
from torchedge.runtime import TorchEdgeRuntimeError
from torchedge.serialize import schema as s
from torchedge.memory.execution_plan import move_destinations

RTOL = 1e-5


@functools.lru_cache(maxsize=None)
def _lowered(name: str, input_guards: bool = True):
    module, args, dynamic_shapes = build(name)
    eager = copy.deepcopy(module)
    ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
    pte = torchedge.to_edge(ep).to_pte(input_guards=input_guards)
    return eager, pte, torchedge.runtime.load(pte.buffer)


def _relative_diff(actual, reference) -> float:
    worst = 0.0
    leaves = zip(torch.utils._pytree.tree_leaves(actual), torch.utils._pytree.tree_leaves(reference))
    for a, r in leaves:
        assert a.shape == r.shape and a.dtype == r.dtype
        if r.numel():
            scale = max(1.0, r.abs().max().item())
            worst = max(worst, (a.double() - r.double()).abs().max().item() / scale)
    return worst


def _check_sizes(name: str, inputs_for_size, sizes) -> None:
    eager, pte, program = _lowered(name)
    arena = pte.memory_plan["forward"].arena_bytes
    for size in sizes:
        inputs = inputs_for_size(size)
        with torch.no_grad():
            reference = eager(*inputs)
        diff = _relative_diff(program.forward(*inputs), reference)
        print(f"{name} size {size}: max relative diff {diff:.2e} (arena {arena} bytes at the bound)")
        assert diff <= RTOL, f"{name} at size {size}: relative diff {diff}"


def test_batch_dynamic_cnn_matches_eager_at_every_batch_size():
    torch.manual_seed(0)
    _check_sizes("cnn", lambda n: (torch.randn(n, 3, 16, 16),), [1, 2, 3, 5, 8])


def test_sequence_dynamic_transformer_matches_eager():
    torch.manual_seed(1)
    _check_sizes("transformer", lambda n: (torch.randint(0, 100, (1, n)),), [1, 2, 7, 16, 33, 63, 64])


def test_batch_and_sequence_dynamic_transformer_matches_eager():
    torch.manual_seed(2)
    sizes = [(1, 1), (2, 5), (4, 64), (3, 17), (1, 64), (4, 1)]
    _check_sizes("transformer_batch", lambda bs: (torch.randint(0, 100, bs),), sizes)


def test_size_arithmetic_runs_the_primitive_kernels():
    torch.manual_seed(3)
    _, pte, _ = _lowered("size_arithmetic")
    used = set(pte.operators["forward"])
    for op in ("mod", "sub", "floordiv", "add", "sym_float", "mul"):
        assert f"executorch_prim::{op}.Scalar" in used
    _check_sizes("size_arithmetic", lambda bn: (torch.randn(*bn),),
                 [(1, 3), (2, 5), (3, 8), (4, 20), (2, 13)])


def test_dynamic_tensors_are_planned_at_their_upper_bound():
    _, pte, program = _lowered("cnn")
    plan = pte.inspect().program.execution_plan[0]
    x = plan.values[plan.inputs[0]]
    assert x.sizes == [8, 3, 16, 16]
    assert x.shape_dynamism == s.TensorShapeDynamism.DYNAMIC_BOUND
    assert program.forward.meta["inputs"][0]["dynamic"]
    # Every dynamic tensor has memory at its bound, except et_view aliases,
    # which borrow their source's (emit/view_aliases.py).
    aliases = move_destinations(plan)
    dynamic = [v for i, v in enumerate(plan.values)
               if isinstance(v, s.Tensor) and v.shape_dynamism and i not in aliases]
    assert dynamic and all(v.allocation_info is not None for v in dynamic)
    # The arena is what a static export at the bound needs.
    module, _, _ = build("cnn")
    static = torchedge.lower(module, (torch.randn(8, 3, 16, 16),))
    report, at_bound = pte.memory_plan["forward"], static.memory_plan["forward"]
    print(f"cnn arena: dynamic (batch <= 8) {report.arena_bytes} bytes, static batch 8 "
          f"{at_bound.arena_bytes} bytes, lower bound {report.lower_bound_bytes}")
    assert report.arena_bytes == at_bound.arena_bytes
    for name in ("transformer", "transformer_batch"):
        r = _lowered(name)[1].memory_plan["forward"]
        print(f"{name} arena at the bound: {r.arena_bytes} bytes (lower bound {r.lower_bound_bytes})")


def test_size_beyond_the_bound_is_a_clear_error():
    _, _, cnn = _lowered("cnn")
    with pytest.raises(TorchEdgeRuntimeError, match=r"input 0: shape \[9, 3, 16, 16\] exceeds the "
                       r"exported upper bound \[8, 3, 16, 16\] \(dimension 0: 9 > 8\)"):
        cnn.forward(torch.randn(9, 3, 16, 16))
    _, _, transformer = _lowered("transformer")
    with pytest.raises(TorchEdgeRuntimeError, match=r"dimension 1: 65 > 64"):
        transformer.forward(torch.randint(0, 100, (1, 65)))
    # Same element count as the bound, one dimension over it.
    with pytest.raises(TorchEdgeRuntimeError, match=r"dimension 1: 128 > 64"):
        _lowered("transformer_batch")[2].forward(torch.randint(0, 100, (2, 128)))
    # The method still works after rejecting an input.
    x = torch.randn(2, 3, 16, 16)
    assert _relative_diff(cnn.forward(x), _lowered("cnn")[0](x)) <= RTOL


def test_static_dimension_of_a_dynamic_input_is_checked():
    _, _, cnn = _lowered("cnn")
    with pytest.raises(TorchEdgeRuntimeError, match=r"input 0 \('x'\) dimension 1 must be 3 \(it "
                       r"was exported with that static size\)"):
        cnn.forward(torch.randn(2, 2, 16, 16))
    # Larger than a static size is over the bound; smaller is caught by a guard.
    _, _, transformer = _lowered("transformer")
    with pytest.raises(TorchEdgeRuntimeError, match=r"input 0 \('tokens'\) dimension 0 must be 1"):
        transformer.forward(torch.randint(0, 100, (0, 8)))


class _Pair(torch.nn.Module):
    def forward(self, x, y, z):
        return x + y, z[: 2 * x.shape[0]] * 2.0


@functools.lru_cache(maxsize=None)
def _pair_program():
    b = torch.export.Dim("b", min=2, max=8)
    args = (torch.randn(3, 4), torch.randn(3, 4), torch.randn(6, 2))
    ep = torch.export.export(_Pair(), args, dynamic_shapes=({0: b}, {0: b}, {0: 2 * b}))
    return torchedge.runtime.load(torchedge.to_edge(ep).to_pte().buffer)


@pytest.mark.parametrize("shapes, message", [
    (((3, 4), (5, 4), (6, 2)),
     r"input 1 \('y'\) dimension 0 must equal input 0 \('x'\) dimension 0 \(they were exported as "
     r"the same dynamic dimension\)"),
    (((1, 4), (1, 4), (2, 2)), r"input 0 \('x'\) dimension 0 must be at least 2"),
    (((3, 4), (3, 4), (7, 2)), r"input 2 \('z'\) dimension 0 must equal 2\*\(input 0 \('x'\) "
     r"dimension 0\)"),
    (((3, 3), (3, 3), (6, 2)), r"input 0 \('x'\) dimension 1 must be 4"),
])
def test_violated_constraints_are_clear_errors(shapes, message):
    program = _pair_program()
    with pytest.raises(TorchEdgeRuntimeError, match=message):
        program.forward(*[torch.randn(*shape) for shape in shapes])
    x, y, z = torch.randn(5, 4), torch.randn(5, 4), torch.randn(10, 2)
    out = program.forward(x, y, z)
    assert torch.allclose(out[0], x + y) and torch.allclose(out[1], z * 2.0)


def test_guards_can_be_left_out_for_upstream():
    _, pte, _ = _lowered("cnn", input_guards=False)
    assert "aten::_assert_scalar" not in pte.operators["forward"]
    assert "aten::_assert_scalar" in _lowered("cnn")[1].operators["forward"]


def test_every_emitted_operator_has_a_runtime_kernel():
    registered = set(torchedge.runtime.registered_kernels())
    for name in ("cnn", "transformer", "transformer_batch", "size_arithmetic"):
        missing = set(_lowered(name)[1].operators["forward"]) - registered
        assert not missing, f"{name}: {missing}"


class _Interpolate(torch.nn.Module):
    """A convolution, then F.interpolate by scale factor or back to the
    input's size (size=x.shape[-2:]), as segmentation heads do."""

    def __init__(self, mode: str, by: str) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.mode, self.by = mode, by
        self.kwargs = {"align_corners": False} if mode == "bilinear" else {}

    def forward(self, x):
        y = self.conv(x)
        if self.by == "scale":
            return torch.nn.functional.interpolate(y, scale_factor=2, mode=self.mode, **self.kwargs)
        y = torch.nn.functional.avg_pool2d(y, 2)
        return torch.nn.functional.interpolate(y, size=x.shape[-2:], mode=self.mode, **self.kwargs)


@pytest.mark.parametrize("spatial", [False, True], ids=["batch", "batch_hw"])
@pytest.mark.parametrize("by", ["scale", "size"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_interpolate_keeps_dynamic_dimensions(mode, by, spatial):
    """Regression: upsample_*2d.vec's shape function, run outside the Python
    dispatcher while to_edge re-propagated fake tensors, guarded the batch to
    its example size and the program came out static."""
    torch.manual_seed(4)
    module = _Interpolate(mode, by).eval()
    b = torch.export.Dim("b", max=8)
    dims = {0: b}
    if spatial:  # by size: avg_pool2d halves, so H and W are even
        h, w = (torch.export.Dim(n, min=2, max=16) for n in ("h", "w"))
        dims.update({2: 2 * h, 3: 2 * w} if by == "size" else {2: h, 3: w})
    ep = torch.export.export(module, (torch.randn(2, 3, 8, 8),), dynamic_shapes=(dims,))
    program = torchedge.runtime.load(torchedge.to_edge(ep).to_pte().buffer)
    assert program.forward.meta["inputs"][0]["dynamic"]
    shapes = [(1, 3, 8, 8), (5, 3, 8, 8), (8, 3, 8, 8)]
    if spatial:
        shapes += [(3, 3, 4, 12), (8, 3, 16, 16)]
    for shape in shapes:
        x = torch.randn(*shape)
        with torch.no_grad():
            reference = module(x)
        diff = _relative_diff(program.forward(x), reference)
        print(f"interpolate {mode} by {by} {shape}: max relative diff {diff:.2e}")
        assert diff <= RTOL
