"""Every graph pass keeps a dynamic dimension dynamic.

For each module of python/torchedge/passes, a model family that exercises
it (the pass rewrites something in the family's static export, which the
test checks by the operator it leaves behind) is exported with dynamic
dimensions, lowered with the default options and must come out with those
dimensions dynamic (DYNAMIC_BOUND inputs, symbolic meta["val"] in the edge
graph) and match eager at several sizes. Passes that only rewrite static
shapes (the convolution rewrites) must decline the dynamic graph, not
specialize it. A pass that forced a symbolic size to a constant would be
an ExportError naming the operator and the source line
(passes/fake_tensors.py), tested at the end.

Tolerance (float32): max |runtime - eager| <= 1e-5 * max(1, max |eager|).
"""

from __future__ import annotations

import functools
import math
import pathlib
from dataclasses import dataclass, field
from typing import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim

import torchedge
from torchedge.errors import ExportError
from torchedge.passes import refresh_fake_tensors
from torchedge.serialize import schema as s

RTOL = 1e-5
PASSES_DIR = pathlib.Path(torchedge.__file__).parent / "passes"


class _Interpolate(nn.Module):
    """Bilinear by scale factor, nearest back to the input's size (the defect:
    upsample_*.vec's C++ composite specialized the batch)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        y = F.interpolate(self.conv(x), scale_factor=2, mode="bilinear", align_corners=False)
        return F.interpolate(F.avg_pool2d(y, 4), size=x.shape[-2:], mode="nearest")


class _ConvBlock(nn.Module):
    """conv / batch norm / relu / max pool, a residual add, hardtanh, x * sigmoid(x)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        y = F.max_pool2d(F.relu(self.bn(self.conv1(x))), 2)
        z = F.hardtanh(self.conv2(y) + y)
        return z * torch.sigmoid(z)


class _ConvChain(nn.Module):
    """A ResNet-like chain of 16-channel 3x3 convolutions on 16x16 maps:
    blocked layout, blocked Winograd (maps >= 14) and, after the stride-2
    convolution, NCHW Winograd (8x8 maps, not blocked: it is alone)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 16, 3, padding=1)
        self.body = nn.ModuleList(nn.Conv2d(16, 16, 3, padding=1) for _ in range(4))
        self.down = nn.Conv2d(16, 16, 3, stride=2, padding=1)
        self.tail = nn.Conv2d(16, 16, 3, padding=1)

    def forward(self, x):
        y = F.relu(self.stem(x))
        for conv in self.body:
            y = F.relu(conv(y) + y)
        z = torch.sigmoid(self.down(y))  # a non-fusable op ends the blocked chain
        return self.tail(z)


class _FeatureExtractor(nn.Module):
    """wav2vec2's front end, small: conv -> GroupNorm(32, 32) -> GELU -> three
    blocked conv + GELU layers (the group norm folds into the layout change)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv1d(1, 32, 10, 5, bias=False)
        self.norm = nn.GroupNorm(32, 32)
        self.convs = nn.ModuleList(nn.Conv1d(32, 32, 3, 2, bias=False) for _ in range(3))

    def forward(self, x):
        h = F.gelu(self.norm(self.stem(x.unsqueeze(1))))
        for conv in self.convs:
            h = F.gelu(conv(h))
        return h


class _Attention(nn.Module):
    """Linear layers (prepacked weights) around scaled_dot_product_attention:
    unmasked (bmm, softmax, bmm folded into torchedge::attention) and causal
    (the mask keeps the safe softmax, fused on its own); an MLP whose residual
    adds and GELU fold into its linear layers; a transposed constant folded."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, 2 * dim), nn.Linear(2 * dim, dim)
        self.mix = nn.Parameter(torch.randn(dim, dim) * 0.1)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v) + \
            F.scaled_dot_product_attention(q, k, v, is_causal=True)
        y = y.transpose(1, 2).reshape(b, n, c)
        y = x + self.proj(y)                            # residual add and GELU folded
        y = y + self.fc2(F.gelu(self.fc1(y)))           # into the linear layers
        return y @ (self.mix.t() * 0.5)


class _Views(nn.Module):
    """Views (as *_copy), Python scalars (Scalar overloads), identity copies."""

    def forward(self, x):
        b = x.shape[0]
        y = x.reshape(b, -1).contiguous().clone() * 2.0 + 1
        return y.view(b, 4, -1).transpose(1, 2).unsqueeze(0).squeeze(0) - x.shape[1]


class _Masked(nn.Module):
    """A data-dependent size (masked_select) under a dynamic batch: planned at
    the bound of the batch's upper size (passes/data_dependent_bounds.py)."""

    def forward(self, x):
        return torch.masked_select(x, x > 0) * 2


@dataclass(frozen=True)
class Family:
    build: Callable[[], nn.Module]
    args: tuple
    dynamic_shapes: tuple
    sizes: tuple                  # input shapes to run the dynamic program at
    static_ops: tuple = ()        # kernels the static export uses (the pass ran)
    edge_ops: tuple = ()          # operators in the edge graph (the edge passes ran)
    absent_edge_ops: tuple = ()   # operators the edge passes removed
    rtol: float = RTOL
    dynamic_dims: dict = field(default_factory=dict)  # input -> dims that must stay dynamic


_b = Dim("b", max=8)
FAMILIES = {
    "interpolate": Family(
        _Interpolate, (torch.randn(2, 3, 8, 8),),
        ({0: _b, 2: 4 * Dim("h4", min=1, max=4), 3: 4 * Dim("w4", min=1, max=4)},),
        ((1, 3, 8, 8), (5, 3, 4, 12), (8, 3, 16, 16)),
        static_ops=("aten::upsample_bilinear2d.vec_out", "aten::upsample_nearest2d.vec_out"),
        dynamic_dims={0: (0, 2, 3)}),
    "conv_block": Family(
        _ConvBlock, (torch.randn(2, 3, 8, 8),), ({0: _b},), ((1, 3, 8, 8), (3, 3, 8, 8),
                                                            (8, 3, 8, 8)),
        static_ops=("torchedge::conv2d_clamp.out", "torchedge::conv2d_add_clamp.out",
                    "torchedge::max_pool2d.out", "aten::silu.out"),
        absent_edge_ops=("aten._native_batch_norm_legit_no_training.default",),
        dynamic_dims={0: (0,)}),
    "conv_chain": Family(
        _ConvChain, (torch.randn(2, 3, 16, 16),), ({0: _b},), ((1, 3, 16, 16), (4, 3, 16, 16)),
        static_ops=("torchedge::conv2d_blocked.out", "torchedge::conv2d_winograd_blocked.out",
                    "torchedge::from_blocked.out",
                    "torchedge::conv2d_winograd.out"),
        rtol=1e-4, dynamic_dims={0: (0,)}),
    "feature_extractor": Family(
        _FeatureExtractor, (torch.randn(2, 400),), ({0: _b},), ((1, 400), (5, 400), (8, 400)),
        static_ops=("torchedge::group_norm_blocked.out", "torchedge::conv2d_blocked_gelu.out"),
        rtol=1e-4, dynamic_dims={0: (0,)}),
    "attention": Family(
        _Attention, (torch.randn(2, 8, 16),), ({0: _b, 1: Dim("n", min=2, max=32)},),
        ((1, 2, 16), (3, 17, 16), (8, 32, 16)),
        static_ops=("torchedge::linear_prepacked.out", "torchedge::linear_prepacked_fused.out",
                    "torchedge::safe_softmax.out", "torchedge::attention.out"),
        dynamic_dims={0: (0, 1)}),
    "views": Family(
        _Views, (torch.randn(2, 4, 6),), ({0: _b, 2: Dim("c", min=2, max=16)},),
        ((1, 4, 6), (7, 4, 3), (8, 4, 16)),
        edge_ops=("aten.view_copy.default", "aten.mul.Scalar", "aten.permute_copy.default"),
        absent_edge_ops=("aten.clone.default", "aten.view.default",
                         "aten._assert_scalar.default"),
        dynamic_dims={0: (0, 2)}),
    "data_dependent": Family(
        _Masked, (torch.randn(2, 4, 6),), ({0: _b},), ((1, 4, 6), (5, 4, 6), (8, 4, 6)),
        static_ops=("aten::masked_select.out",), edge_ops=("aten.masked_select.default",),
        dynamic_dims={0: (0,)}),
}

# Which family exercises each module of python/torchedge/passes: a new pass
# module fails test_every_pass_module_is_audited until it is listed here.
AUDIT = {
    "activation_fusion": "conv_block",
    "attention_fusion": "attention",
    "attention_op": "attention",
    "batch_norm_folding": "conv_block",
    "blocked_layout": "conv_chain",
    "constant_folding": "attention",
    "conv2d_blocked_op": "conv_chain",
    "conv2d_clamp_op": "conv_block",
    "conv2d_winograd_blocked_op": "conv_chain",
    "conv2d_winograd_op": "conv_chain",
    "conv_nodes": "conv_chain",
    "custom_ops": "conv_block",
    "data_dependent_bounds": "data_dependent",
    "fake_tensors": "interpolate",
    "graph_modules": "views",
    "group_norm_blocked_fusion": "feature_extractor",
    "group_norm_blocked_op": "feature_extractor",
    "linear_epilogue_fusion": "attention",
    "linear_prepacked_op": "attention",
    "max_pool2d_op": "conv_block",
    "pool_indices": "conv_block",
    "redundant_copies": "views",
    "remove_assertions": "views",
    "safe_softmax": "attention",
    "safe_softmax_op": "attention",
    "scalar_overloads": "views",
    "silu_fusion": "conv_block",
    "view_copies": "views",
    "weight_prepacking": "attention",
    "winograd_filters": "conv_chain",
}


def _module(name: str) -> nn.Module:
    torch.manual_seed(sum(map(ord, name)))
    return FAMILIES[name].build().eval()


@functools.lru_cache(maxsize=None)
def _lowered(name: str, dynamic: bool):
    family = FAMILIES[name]
    module = _module(name)
    ep = torch.export.export(module, family.args,
                             dynamic_shapes=family.dynamic_shapes if dynamic else None)
    edge = torchedge.to_edge(ep)
    pte = edge.to_pte()
    return module, edge, pte, torchedge.runtime.load(pte.buffer)


def _edge_ops(edge) -> set[str]:
    graph = edge.exported_program().graph
    return {str(n.target) for n in graph.nodes if n.op == "call_function"}


def test_every_pass_module_is_audited():
    modules = {p.stem for p in PASSES_DIR.glob("*.py") if p.stem != "__init__"}
    assert modules == set(AUDIT), (f"not audited: {sorted(modules - set(AUDIT))}; "
                                   f"gone: {sorted(set(AUDIT) - modules)}")
    assert set(AUDIT.values()) == set(FAMILIES)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_family_exercises_its_passes(name):
    family = FAMILIES[name]
    _, edge, pte, _ = _lowered(name, dynamic=False)
    missing = set(family.static_ops) - set(pte.operators["forward"])
    assert not missing, f"{name}: the static export does not use {missing}"
    ops = _edge_ops(edge)
    assert set(family.edge_ops) <= ops, f"{name}: edge graph lacks {set(family.edge_ops) - ops}"


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_dynamic_dimensions_stay_dynamic_through_every_pass(name):
    family = FAMILIES[name]
    module, edge, pte, program = _lowered(name, dynamic=True)
    ops = _edge_ops(edge)
    assert set(family.edge_ops) <= ops and not set(family.absent_edge_ops) & ops
    placeholders = [n for n in edge.exported_program().graph.nodes if n.op == "placeholder"]
    user_inputs = placeholders[-len(family.args):]
    plan = pte.inspect().program.execution_plan[0]
    for index, dims in family.dynamic_dims.items():
        shape = user_inputs[index].meta["val"].shape
        assert all(isinstance(shape[d], torch.SymInt) for d in dims), f"edge input {shape}"
        value = plan.values[plan.inputs[index]]
        assert value.shape_dynamism == s.TensorShapeDynamism.DYNAMIC_BOUND
    print(f"{name}: dynamic program runs {sorted(set(pte.operators['forward']))}")
    for size in family.sizes:
        x = torch.randn(*size)
        with torch.no_grad():
            reference = module(x)
        actual = program.forward(x)
        assert actual.shape == reference.shape
        diff = (actual - reference).abs().max().item() / max(1.0, reference.abs().max().item())
        print(f"  {size}: relative diff {diff:.1e}")
        assert diff <= family.rtol, f"{name} at {size}: {diff}"


def test_a_size_forced_static_is_an_error_naming_the_operator_and_line():
    """A node whose shape function turns a symbolic size into an int (as
    upsample's C++ composite did outside the Python dispatcher) is reported,
    not silently specialized."""

    @torch.library.custom_op("torchedge_test::specialize", mutates_args=())
    def specialize(x: torch.Tensor) -> torch.Tensor:
        return x.clone()

    @specialize.register_fake
    def _(x):
        return x.new_empty([int(d) for d in x.shape])  # int(SymInt) guards s == hint

    ep = torch.export.export(_Views(), (torch.randn(2, 4, 6),),
                             dynamic_shapes=({0: Dim("b", max=8)},))
    edge = torchedge.to_edge(ep)
    gm = edge.exported_program().graph_module
    first = next(n for n in gm.graph.nodes if n.op == "call_function")
    with gm.graph.inserting_after(first.args[0]):
        forced = gm.graph.call_function(torch.ops.torchedge_test.specialize.default,
                                        (first.args[0],))
    forced.meta["stack_trace"] = 'File "model.py", line 42, in forward\n    y = specialize(x)\n'
    first.replace_input_with(first.args[0], forced)
    with pytest.raises(ExportError, match=r"torchedge_test\.specialize.*dynamic size s\d+ to a "
                       r"constant(.|\n)*model\.py:42 in forward: y = specialize\(x\)"):
        refresh_fake_tensors(gm)


def test_upsample_of_a_dynamic_batch_is_not_specialized_by_edge_lowering():
    """The defect as reported: every interpolate mode and form with a dynamic
    batch keeps the batch dynamic (tests/test_dynamic_shapes.py runs them)."""
    for mode, kwargs in (("bilinear", {"align_corners": False}), ("nearest", {})):
        class Up(nn.Module):
            def forward(self, x):
                return F.interpolate(x, scale_factor=2, mode=mode, **kwargs)
        ep = torch.export.export(Up(), (torch.randn(2, 3, 4, 4),),
                                 dynamic_shapes=({0: Dim("b", max=4)},))
        edge = torchedge.to_edge(ep)
        x = next(n for n in edge.exported_program().graph.nodes if n.op == "placeholder")
        assert isinstance(x.meta["val"].shape[0], torch.SymInt), mode
        assert math.prod(x.meta["val"].shape[1:]) == 48
        # The caller's program is left as it was, still dynamic too.
        assert isinstance(next(n for n in ep.graph.nodes if n.op == "placeholder")
                          .meta["val"].shape[0], torch.SymInt)
