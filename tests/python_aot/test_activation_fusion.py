"""to_pte's convolution + activation fusion (passes/activation_fusion.py).

The pass rewrites float32 conv2d + relu / relu6 / hardtanh / clamp into one
torchedge::conv2d_clamp call, conv2d + add (+ activation) into one
torchedge::conv2d_add_clamp call, and leaves every other convolution alone;
MobileNet- and ResNet-like models lowered with it run on the optimized and
portable kernels and match eager; the EdgeProgram is not modified; XNNPACK
still delegates conv + relu (it sees the EdgeProgram, before the fusion).
"""

from __future__ import annotations

import copy
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.export import ExportedProgram

import torchedge
from torchedge import runtime
from torchedge.passes import conv2d_clamp_op
from torchedge.passes.activation_fusion import (
    CONV2D_ADD_CLAMP,
    CONV2D_CLAMP,
    fuse_conv_activations,
)

aten = torch.ops.aten
FUSED_KERNEL = "torchedge::conv2d_clamp.out"
RESIDUAL_KERNEL = "torchedge::conv2d_add_clamp.out"
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


class Lambda(nn.Module):
    def __init__(self, fn, *children: nn.Module) -> None:
        super().__init__()
        self.fn = fn
        self.layers = nn.ModuleList(children)

    def forward(self, *args):
        return self.fn(self.layers, *args)


def _edge(module: nn.Module, *inputs: torch.Tensor) -> torchedge.EdgeProgram:
    return torchedge.to_edge(torch.export.export(module.eval(), inputs))


def _targets(gm: torch.fx.GraphModule) -> list:
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def _fused(module: nn.Module, *inputs: torch.Tensor) -> tuple[int, list, ExportedProgram]:
    ep = copy.deepcopy(_edge(module, *inputs).exported_program())
    count = fuse_conv_activations(ep.graph_module)
    return count, _targets(ep.graph_module), ep


def _conv(cin: int = 3, cout: int = 4, **kwargs) -> nn.Conv2d:
    return nn.Conv2d(cin, cout, 3, padding=1, **kwargs)


@pytest.mark.parametrize("activation, bounds", [
    (F.relu, (0.0, math.inf)),
    (F.relu6, (0.0, 6.0)),
    (lambda y: F.hardtanh(y, -2.0, 0.5), (-2.0, 0.5)),
    (lambda y: torch.clamp(y, -0.5, 2.0), (-0.5, 2.0)),
    (lambda y: torch.clamp(y, min=0.25), (0.25, math.inf)),
    (lambda y: torch.clamp(y, max=1), (-math.inf, 1.0)),
])
def test_conv_and_activation_become_one_call(activation, bounds):
    module = Lambda(lambda l, x: activation(l[0](x)), _conv())
    x = torch.randn(2, 3, 7, 6)
    count, targets, ep = _fused(module, x)
    assert count == 1
    assert targets == [CONV2D_CLAMP]
    (node,) = [n for n in ep.graph.nodes if n.target == CONV2D_CLAMP]
    assert node.args[-2:] == bounds
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), module(x), rtol=0, atol=0)


def _read_twice(y: torch.Tensor, fn):
    return fn(y)


@pytest.mark.parametrize("fn, make, inputs", [
    # The convolution's output is read twice: the unclamped value is needed.
    (lambda l, x: _read_twice(l[0](x), lambda y: (F.relu(y), y * 2)), lambda: _conv(), (1, 3, 6, 6)),
    (lambda l, x: _read_twice(l[0](x), lambda y: F.relu6(y) + y), lambda: _conv(), (1, 3, 6, 6)),
    (lambda l, x: F.relu(l[0](x)), lambda: nn.Conv1d(3, 4, 3), (1, 3, 9)),
    (lambda l, x: F.relu(l[0](x)), lambda: nn.Conv3d(3, 4, 3), (1, 3, 5, 5, 5)),
    (lambda l, x: F.relu(l[0](x)), lambda: nn.ConvTranspose2d(3, 4, 3, stride=2), (1, 3, 5, 5)),
    (lambda l, x: torch.sigmoid(l[0](x)), lambda: _conv(), (1, 3, 6, 6)),
    (lambda l, x: F.relu(l[0](x.double())), lambda: _conv().double(), (1, 3, 6, 6)),
])
def test_other_convolutions_are_left_alone(fn, make, inputs):
    count, targets, _ = _fused(Lambda(fn, make()), torch.randn(*inputs))
    assert count == 0
    assert CONV2D_CLAMP not in targets


def test_the_op_is_the_clamped_convolution():
    x, w, b = torch.randn(1, 4, 6, 6), torch.randn(6, 2, 3, 3), torch.randn(6)
    got = CONV2D_CLAMP(x, w, b, [2, 1], [1, 0], [1, 2], 2, -0.5, math.inf)
    want = torch.clamp(F.conv2d(x, w, b, [2, 1], [1, 0], [1, 2], 2), -0.5)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    x[0, 0, 2, 2] = float("nan")
    assert CONV2D_CLAMP(x, w, None, [1, 1], [1, 1], [1, 1], 2, 0.0, 6.0).isnan().any()
    with pytest.raises(ValueError, match="output_min <= output_max"):
        conv2d_clamp_op.conv2d_clamp_reference(x, w, b, [1, 1], [0, 0], [1, 1], 2, 1.0, 0.0)


@pytest.mark.parametrize("fn, bounds", [
    (lambda l, x: F.relu(l[0](x) + x), (0.0, math.inf)),        # ResNet's block end
    (lambda l, x: F.relu(x + l[0](x)), (0.0, math.inf)),        # residual first
    (lambda l, x: l[0](x) + x, (-math.inf, math.inf)),          # MobileNetV2's projection
    (lambda l, x: F.relu6(l[0](x) + l[1](x)), (0.0, 6.0)),      # downsample branch: a conv too
    (lambda l, x: torch.clamp(l[0](x) + x, -1.0, 0.5), (-1.0, 0.5)),
])
def test_conv_add_and_activation_become_one_call(fn, bounds):
    module = Lambda(fn, _conv(3, 3), _conv(3, 3))
    x = torch.randn(2, 3, 7, 6)
    count, targets, ep = _fused(module, x)
    (node,) = [n for n in ep.graph.nodes if n.target == CONV2D_ADD_CLAMP]
    assert node.args[-2:] == bounds
    assert aten.add.Tensor not in targets and aten.relu.default not in targets
    assert count == targets.count(CONV2D_ADD_CLAMP) + targets.count(CONV2D_CLAMP)
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), module(x), rtol=0, atol=0)


@pytest.mark.parametrize("fn, shape", [
    # The convolution's output is read by more than the add.
    (lambda l, x: _read_twice(l[0](x), lambda y: F.relu(y + x) + y), (1, 3, 6, 6)),
    # The residual broadcasts: the sum is larger than the convolution.
    (lambda l, x: l[0](x) + x[:, :, :1, :1], (1, 3, 6, 6)),
    (lambda l, x: l[0](x) + x[:, :1], (1, 3, 6, 6)),
    # add with alpha, and sub, are not this pattern.
    (lambda l, x: torch.add(l[0](x), x, alpha=2), (1, 3, 6, 6)),
    (lambda l, x: l[0](x) - x, (1, 3, 6, 6)),
    # A conv added to itself.
    (lambda l, x: (lambda y: y + y)(l[0](x)), (1, 3, 6, 6)),
])
def test_other_residual_adds_are_left_alone(fn, shape):
    module = Lambda(fn, _conv(3, 3))
    count, targets, ep = _fused(module, torch.randn(*shape))
    assert CONV2D_ADD_CLAMP not in targets
    x = torch.randn(*shape)
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), module(x), rtol=0, atol=0)


def test_the_residual_op_is_the_clamped_sum():
    x, w, b = torch.randn(1, 4, 6, 6), torch.randn(6, 2, 3, 3), torch.randn(6)
    r = torch.randn(1, 6, 4, 6)
    got = CONV2D_ADD_CLAMP(x, w, b, r, [1, 1], [0, 1], [1, 1], 2, -0.5, math.inf)
    want = torch.clamp(F.conv2d(x, w, b, [1, 1], [0, 1], [1, 1], 2) + r, -0.5)
    torch.testing.assert_close(got, want, rtol=0, atol=0)
    with pytest.raises(ValueError, match="residual must be"):
        CONV2D_ADD_CLAMP(x, w, b, r[:, :, :2], [1, 1], [0, 1], [1, 1], 2, -0.5, math.inf)
    with pytest.raises(ValueError, match="output_min <= output_max"):
        conv2d_clamp_op.conv2d_add_clamp_reference(x, w, b, r, [1, 1], [0, 1], [1, 1], 2,
                                                   1.0, 0.0)


class BasicBlock(nn.Module):
    """ResNet's basic block (the second one of a stage downsamples)."""

    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False),
                                  nn.BatchNorm2d(cout), nn.ReLU(),
                                  nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(cout))
        self.down = None if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return F.relu(self.body(x) + (x if self.down is None else self.down(x)))


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_resnet_like_model_matches_eager(kernels):
    torch.manual_seed(0)
    module = nn.Sequential(nn.Conv2d(3, 8, 3, 1, 1), nn.ReLU(), BasicBlock(8, 8, 1),
                           BasicBlock(8, 16, 2), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                           nn.Linear(16, 4)).eval()
    x = torch.randn(2, 3, 17, 15)
    # Without the Winograd rewrite, which takes these small maps' 3x3
    # stride-1 convolutions (residual included) as torchedge::conv2d_winograd
    # (tests/python_aot/test_winograd_filters.py), and without the blocked
    # layout, which takes the whole chain (test_blocked_layout.py).
    program = _edge(module, x).to_pte(winograd_filters=False, blocked_convolutions=False)
    operators = program.operators["forward"]
    assert RESIDUAL_KERNEL in operators and FUSED_KERNEL in operators
    assert "aten::add.out" not in operators and "aten::relu.out" not in operators
    got = runtime.load(program.buffer, kernels=kernels).forward(x)
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), **TOLERANCE)


class InvertedResidual(nn.Module):
    """MobileNetV2's block: 1x1 expand, 3x3 depthwise, 1x1 project (+ residual)."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int = 4) -> None:
        super().__init__()
        hidden = cin * expand
        self.residual = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden), nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.body(x)
        return x + y if self.residual else y


class TinyMobileNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8),
                                  nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(8, 8, 1), InvertedResidual(8, 12, 2),
                                    InvertedResidual(12, 12, 1))
        self.head = nn.Sequential(nn.Conv2d(12, 16, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                                  nn.Flatten(), nn.Linear(16, 5))

    def forward(self, x):
        return self.head(self.blocks(self.stem(x)))


def _tiny_mobilenet() -> tuple[nn.Module, torch.Tensor]:
    torch.manual_seed(0)
    module = TinyMobileNet()
    for m in module.modules():  # non-trivial batch norms, folded by to_edge
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
            m.weight.data.uniform_(0.5, 1.5)
    return module.eval(), torch.randn(2, 3, 33, 31)


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_mobilenet_like_model_matches_eager(kernels):
    module, x = _tiny_mobilenet()
    # The blocked layout would take the whole chain (test_blocked_layout.py).
    program = _edge(module, x).to_pte(blocked_convolutions=False)
    operators = program.operators["forward"]
    assert FUSED_KERNEL in operators and RESIDUAL_KERNEL in operators
    assert "aten::hardtanh.out" not in operators and "aten::relu.out" not in operators
    assert "aten::add.out" not in operators
    # The stride-2 block's projection has neither an activation nor a skip.
    assert "aten::convolution.out" in operators
    got = runtime.load(program.buffer, kernels=kernels).forward(x)
    with torch.no_grad():
        want = module(x)
    torch.testing.assert_close(got, want, **TOLERANCE)


def test_nan_propagates_through_the_fused_kernel():
    module = Lambda(lambda l, x: F.relu6(l[1](F.relu(l[0](x)))), _conv(3, 4), _conv(4, 4, groups=4))
    x = torch.randn(1, 3, 9, 9)
    x[0, 1, 4, 4] = float("nan")
    program = _edge(module, torch.randn(1, 3, 9, 9)).to_pte()
    assert program.operators["forward"].count(FUSED_KERNEL) == 1  # one operator table entry
    with torch.no_grad():
        want = module(x)
    for kernels in ("optimized", "portable"):
        got = runtime.load(program.buffer, kernels=kernels).forward(x)
        torch.testing.assert_close(got, want, equal_nan=True, **TOLERANCE)
        assert torch.equal(got.isnan(), want.isnan())


def test_fuse_activations_false_keeps_the_operator_list():
    module, x = _tiny_mobilenet()
    edge = _edge(module, x)
    plain = edge.to_pte(fuse_activations=False).operators["forward"]
    assert FUSED_KERNEL not in plain and RESIDUAL_KERNEL not in plain
    assert "aten::hardtanh.out" in plain and "aten::relu.out" in plain
    got = runtime.load(edge.to_pte(fuse_activations=False).buffer).forward(x)
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), **TOLERANCE)


def test_to_pte_does_not_modify_the_edge_program():
    module, x = _tiny_mobilenet()
    edge = _edge(module, x)
    ep = edge.exported_program()
    before = str(ep.graph)
    targets = _targets(ep.graph_module)
    edge.to_pte()
    assert edge.exported_program() is ep
    assert str(ep.graph) == before and _targets(ep.graph_module) == targets
    assert CONV2D_CLAMP not in targets and aten.hardtanh.default in targets


def test_xnnpack_still_delegates_conv_and_relu():
    from torchedge.backends.xnnpack import XnnpackPartitioner

    module = Lambda(lambda l, x: F.relu(l[1](F.relu(l[0](x)))), _conv(3, 8), _conv(8, 8))
    x = torch.randn(1, 3, 10, 10)
    delegated = _edge(module, x).to_backend(XnnpackPartitioner())
    decisions = delegated.delegation_report.decisions["forward"]
    assert {d.operator for d in decisions if d.delegated} >= {"aten.convolution.default",
                                                              "aten.relu.default"}
    assert all(d.delegated for d in decisions), [d for d in decisions if not d.delegated]
    program = delegated.to_pte()
    assert FUSED_KERNEL not in program.operators["forward"]
    with torch.no_grad():
        torch.testing.assert_close(runtime.load(program.buffer).forward(x), module(x),
                                   **TOLERANCE)
