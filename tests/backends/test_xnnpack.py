"""The XNNPACK CPU delegate: what it takes, why it refuses, and that it
computes what eager PyTorch computes.

Operator tests run each delegate through the runtime backend directly:
`delegates_on_xnnpack()` makes every LoweredModule call its blob in C++
(torchedge._C._xnnpack_run_blob: init, execute, destroy) instead of its
eager subgraph, so `ep.module()(x)` is the model with its delegated parts on
XNNPACK and the rest in PyTorch (fast, and isolates the delegate). The
end-to-end tests go through the .pte and the C++ runtime.

Tolerance (float32): torch.testing.assert_close with rtol = atol = 1e-4
against eager PyTorch.
"""

from __future__ import annotations

import contextlib

import pytest
import torch
from torch import nn

import torchedge
from torchedge import _C, models
from torchedge.backends import LoweredModule, to_backend
from torchedge.backends.xnnpack import XnnpackPartitioner

TOLERANCE = dict(rtol=1e-4, atol=1e-4)


def _run_on_xnnpack(self: LoweredModule, *inputs: torch.Tensor) -> tuple:
    outs = self.subgraph.output_values
    args = [(list(t.shape), t.detach().contiguous().numpy()) for t in inputs]
    data, _ = _C._xnnpack_run_blob(self.processed, args, [list(o.shape) for o in outs])
    return tuple(torch.frombuffer(bytearray(b), dtype=torch.float32).reshape(o.shape)
                 for b, o in zip(data, outs))


@contextlib.contextmanager
def delegates_on_xnnpack():
    eager_call = LoweredModule.__call__
    LoweredModule.__call__ = _run_on_xnnpack
    try:
        yield
    finally:
        LoweredModule.__call__ = eager_call


def delegate(module: nn.Module, inputs: tuple, **export_args):
    """The module's edge program with XNNPACK partitions, and the decisions."""
    ep = torch.export.export(module.eval(), inputs, **export_args)
    program = torchedge.to_edge(ep).exported_program()
    # Light groups too: these graphs test each operator's lowering on its own.
    decisions = to_backend(program, XnnpackPartitioner(delegate_light_groups=True))
    return program, decisions


def num_delegates(program) -> int:
    return sum(isinstance(n.target, LoweredModule) for n in program.graph.nodes)


def assert_matches_eager(module: nn.Module, program, inputs: tuple) -> None:
    with torch.no_grad():
        want = module(*inputs)
        with delegates_on_xnnpack():
            got = program.module()(*inputs)
    torch.testing.assert_close(got, want, **TOLERANCE)


# ---- operators the delegate takes ----------------------------------------------------------


class Lambda(nn.Module):
    def __init__(self, fn, *layers: nn.Module) -> None:
        super().__init__()
        self.fn = fn
        self.layers = nn.ModuleList(layers)

    def forward(self, *xs):
        return self.fn(self.layers, *xs)


def _bn(channels: int) -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(channels)
    with torch.no_grad():  # non-trivial statistics, so a wrong fold shows
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 1.5)
        bn.bias.uniform_(-0.5, 0.5)
    return bn


X = torch.randn(2, 4, 9, 11)
SUPPORTED = {
    "conv_bn_relu": (Lambda(lambda l, x: torch.relu(l[1](l[0](x))), nn.Conv2d(4, 6, 3, padding=1),
                            _bn(6)), (X,)),
    "conv_stride_dilation_nobias": (Lambda(lambda l, x: l[0](x),
                                           nn.Conv2d(4, 5, (3, 2), stride=(2, 1), padding=(2, 1),
                                                     dilation=(2, 1), bias=False)), (X,)),
    "grouped_conv": (Lambda(lambda l, x: l[0](x), nn.Conv2d(4, 6, 3, groups=2)), (X,)),
    "depthwise_multiplier": (Lambda(lambda l, x: nn.functional.relu6(l[0](x)),
                                    nn.Conv2d(4, 8, 3, padding=1, groups=4)), (X,)),
    "transposed_conv_bn": (Lambda(lambda l, x: torch.relu(l[1](l[0](x))),
                                  nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1,
                                                     groups=2), _bn(6)), (X,)),
    "transposed_conv_dilated": (Lambda(lambda l, x: l[0](x),
                                       nn.ConvTranspose2d(4, 3, (2, 3), stride=(1, 2), dilation=(2, 1),
                                                          bias=False)), (X,)),
    "batch_norm_alone": (Lambda(lambda l, x: l[0](x + 1), _bn(4)), (X,)),
    "batch_norm_after_add_in_conv_net": (
        Lambda(lambda l, x: l[1](l[0](x) + 1.5), nn.Conv2d(4, 4, 1), _bn(4)), (X,)),
    "elementwise_scalars": (Lambda(lambda l, x: ((x + 3) * 2 - 1.5) / 4), (X,)),
    "hardswish_decomposed": (Lambda(lambda l, x: nn.functional.hardswish(l[0](x)),
                                    nn.Conv2d(4, 4, 1)), (X,)),
    "channel_broadcast_nchw": (Lambda(lambda l, x, s: l[0](x) * s, nn.Conv2d(4, 4, 1)),
                               (X, torch.randn(1, 4, 1, 1))),
    "squeeze_excite": (Lambda(lambda l, x: x * torch.sigmoid(l[0](x.mean((2, 3), keepdim=True))),
                              nn.Conv2d(4, 4, 1)), (X,)),
    "add_alpha_runtime": (Lambda(lambda l, a, b: torch.add(a, b, alpha=0.5)),
                          (torch.randn(3, 5), torch.randn(3, 5))),
    "binary_broadcast_plain": (Lambda(lambda l, a, b: torch.maximum(a / b, a - b) - torch.minimum(a, b)),
                               (torch.randn(2, 3, 4), torch.rand(3, 1) + 1)),
    "activations": (Lambda(lambda l, x: torch.sigmoid(x) + nn.functional.leaky_relu(x, 0.2)
                           + nn.functional.elu(x, 0.7) + torch.clamp(x, -0.3, 0.4)
                           + nn.functional.hardtanh(x, -0.5, 0.5) + torch.relu(x)), (X,)),
    "rounding_and_math": (Lambda(lambda l, x: torch.floor(x) + torch.ceil(x) + torch.round(x * 2)
                                 + torch.sqrt(torch.abs(x)) - x ** 2 + torch.neg(x)), (X,)),
    "pools": (Lambda(lambda l, x: nn.functional.max_pool2d(x, 3, 2, 1)
                     + nn.functional.avg_pool2d(x, 3, 2, 1, count_include_pad=False)),
              (torch.randn(1, 3, 10, 10),)),
    "max_pool_dilated_ceil_same_size": (
        Lambda(lambda l, x: nn.functional.max_pool2d(x, 2, 2, dilation=2, ceil_mode=True)),
        (torch.randn(1, 2, 9, 9),)),
    "avg_pool_no_padding": (Lambda(lambda l, x: nn.functional.avg_pool2d(x, (2, 3), (2, 1))), (X,)),
    "global_pool_flatten_linear": (
        Lambda(lambda l, x: l[1](torch.flatten(l[0](x).mean((-1, -2)), 1)),
               nn.Conv2d(4, 8, 3), nn.Linear(8, 3)), (X,)),
    "linear_3d_and_mm": (Lambda(lambda l, x: l[0](x) @ torch.ones(7, 2), nn.Linear(5, 7)),
                         (torch.randn(2, 3, 5),)),
    "addmm_row_bias": (Lambda(lambda l, x, b: torch.addmm(b, x, l[0].weight.T, beta=0.5, alpha=2),
                              nn.Linear(3, 6)), (torch.randn(4, 3), torch.randn(4, 6))),
    "softmax_last_dim": (Lambda(lambda l, x: torch.softmax(l[0](x), -1), nn.Linear(5, 6)),
                         (torch.randn(3, 5),)),
    "pad_nhwc_and_plain": (
        Lambda(lambda l, x, y: (l[0](nn.functional.pad(x, (1, 2, 0, 3), value=0.5)),
                                nn.functional.pad(y, (2, 1))), nn.Conv2d(4, 3, 1)),
        (X, torch.randn(3, 4))),
    "bilinear_resize": (
        Lambda(lambda l, x: nn.functional.interpolate(l[0](x), scale_factor=2, mode="bilinear")
               + nn.functional.interpolate(l[0](x), size=(18, 22), mode="bilinear",
                                           align_corners=True), nn.Conv2d(4, 4, 1)), (X,)),
}


@pytest.mark.parametrize("name", sorted(SUPPORTED))
def test_supported_operators_match_eager(name):
    module, inputs = SUPPORTED[name]
    program, decisions = delegate(module, inputs)
    kept = [f"{d.operator}: {d.reason}" for d in decisions if not d.delegated]
    assert not kept, f"{name}: not delegated: {kept}"
    assert num_delegates(program) == 1
    assert_matches_eager(module, program, inputs)


def test_conv_stack_holds_activations_channels_last_inside_one_delegate():
    module = Lambda(lambda l, x: l[2](torch.relu(l[1](torch.relu(l[0](x))))),
                    nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1, groups=8),
                    nn.Conv2d(8, 4, 1))
    program, _ = delegate(module, (torch.randn(1, 3, 16, 16),))
    (call,) = [n.target for n in program.graph.nodes if isinstance(n.target, LoweredModule)]
    blob = call.processed
    assert blob[:4] == b"TEX1"
    # Only the boundaries convert layouts: no reshape nodes inside.
    from torchedge.backends.xnnpack.lowering import lower_subgraph
    writer = lower_subgraph(call.subgraph)
    assert [int(n.op) for n in writer.nodes] == [1, 10, 2, 10, 1]  # conv, clamp, dwconv, clamp, conv
    assert [int(v.boundary) for v in writer.values[:2]] == [1, 1]
    assert_matches_eager(module, program, (torch.randn(1, 3, 16, 16),))


# ---- what stays on the portable kernels, and why ------------------------------------------------


REJECTED = {
    "float64": (Lambda(lambda l, x: torch.relu(x)), (torch.randn(3, dtype=torch.float64),),
                "relu", "float32 only"),
    "transposed_conv_output_padding": (
        Lambda(lambda l, x: l[0](x), nn.ConvTranspose2d(4, 2, 3, dilation=2, output_padding=1)),
        (X,), "convolution", "output_padding >= stride"),
    "conv1d": (Lambda(lambda l, x: l[0](x), nn.Conv1d(4, 2, 3)), (torch.randn(1, 4, 9),),
               "convolution", "only 2-D"),
    "runtime_weight": (Lambda(lambda l, x, w: nn.functional.conv2d(x, w)),
                       (X, torch.randn(2, 4, 3, 3)), "convolution", "must be constants"),
    "bmm": (Lambda(lambda l, a, b: torch.bmm(a, b)), (torch.randn(2, 3, 4), torch.randn(2, 4, 5)),
            "bmm", "no batched matrix multiply"),
    "softmax_dim1": (Lambda(lambda l, x: torch.softmax(x, 1)), (torch.randn(2, 3, 4),),
                     "_softmax", "last dim only"),
    "transpose": (Lambda(lambda l, x: x.transpose(0, 1) + 1), (torch.randn(2, 3),),
                  "permute_copy", "no transpose"),
    "flatten_of_channels_last": (Lambda(lambda l, x: torch.flatten(l[0](x), 1) * 2,
                                        nn.Conv2d(4, 3, 1)), (X,), "view_copy",
                                 "no transpose"),
    "pool_indices_used": (Lambda(lambda l, x: nn.functional.max_pool2d(
        x, 2, return_indices=True)[1].float()), (X,), "max_pool2d_with_indices", "indices"),
    "avg_pool_counting_padding": (Lambda(lambda l, x: nn.functional.avg_pool2d(x, 3, 1, 1)), (X,),
                                  "avg_pool2d", "count_include_pad"),
    "mean_last_dim": (Lambda(lambda l, x: x.mean(-1)), (torch.randn(2, 3, 4),), "mean",
                      "global average pooling"),
    "gelu": (Lambda(lambda l, x: nn.functional.gelu(x)), (torch.randn(4),), "gelu", "no GELU"),
}


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_unsupported_operators_stay_with_a_reason(name):
    module, inputs, operator, reason = REJECTED[name]
    program, decisions = delegate(module, inputs)
    matching = [d for d in decisions if f".{operator}." in f".{d.operator}"]
    assert matching, f"no {operator} node in {[d.operator for d in decisions]}"
    assert all(not d.delegated and reason in d.reason for d in matching), \
        [(d.operator, d.reason) for d in matching]
    assert_matches_eager(module, program, inputs)  # whatever was delegated still agrees


def test_dynamic_shapes_are_not_delegated():
    module = Lambda(lambda l, x: torch.relu(x) * 2)
    x = torch.randn(4, 3)
    program, decisions = delegate(module, (x,),
                                  dynamic_shapes={"xs": ({0: torch.export.Dim("n", max=16)},)})
    assert decisions and all(not d.delegated and "static shapes" in d.reason for d in decisions)
    assert num_delegates(program) == 0


# ---- the runtime half from Python --------------------------------------------------------------


def _small_conv_blob():
    module = Lambda(lambda l, x: torch.relu(l[0](x)), nn.Conv2d(3, 16, 3, padding=1))
    x = torch.randn(1, 3, 24, 24)
    program, _ = delegate(module, (x,))
    (call,) = [n.target for n in program.graph.nodes if isinstance(n.target, LoweredModule)]
    return module, call, x


def test_malformed_blob_is_an_error_not_a_crash():
    _, call, x = _small_conv_blob()
    args = [(list(x.shape), x.numpy())]
    out = [[1, 16, 24, 24]]
    for blob in (call.processed[:40], b"TEX2" + call.processed[4:], call.processed[:-4]):
        with pytest.raises(RuntimeError, match="DelegateInvalidCompatibility"):
            _C._xnnpack_run_blob(blob, args, out)
    with pytest.raises(RuntimeError, match="InvalidArgument"):
        _C._xnnpack_run_blob(call.processed, args, [[1, 16, 24, 23]])


def test_thread_count_is_a_runtime_setting():
    module, call, x = _small_conv_blob()
    assert _C.get_num_threads() == 1
    live = _C.xnnpack_live_delegates()
    results = []
    try:
        for threads in (1, 2):
            _C.set_num_threads(threads)
            data, _ = _C._xnnpack_run_blob(call.processed, [(list(x.shape), x.numpy())],
                                           [[1, 16, 24, 24]])
            results.append(torch.frombuffer(bytearray(data[0]), dtype=torch.float32))
    finally:
        _C.set_num_threads(1)
    torch.testing.assert_close(results[0], results[1], rtol=0, atol=1e-6)
    assert _C.xnnpack_live_delegates() == live


# ---- the zoo ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2"])
def test_zoo_cnn_is_one_delegate_matching_eager(name, capsys):
    spec = models.get(name)
    program, decisions = delegate(spec.module, spec.inputs())
    report = torchedge.backends.DelegationReport({"forward": decisions})
    with capsys.disabled():
        print(f"\n{name}: {report} in {num_delegates(program)} delegate(s)")
    assert all(d.delegated for d in decisions), str(report)
    assert num_delegates(program) == 1
    torch.manual_seed(1)
    assert_matches_eager(spec.module, program, (torch.randn_like(spec.inputs()[0]),))


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2", "detection_head"])
def test_end_to_end_through_the_pte(name):
    """The whole path: to_backend, to_pte (DelegateCall + blob segment), C++ runtime,
    against eager and against the same program on the portable kernels.
    detection_head leaves concatenations and transposes between its delegates."""
    spec = models.get(name)
    edge = torchedge.to_edge(torch.export.export(spec.module, spec.inputs()))
    delegated = edge.to_backend(XnnpackPartitioner())
    assert any(d.delegated for d in delegated.delegation_report.decisions["forward"])
    torch.manual_seed(1)
    inputs = tuple(torch.randn_like(x) for x in spec.inputs())
    with torch.no_grad():
        want = spec.module(*inputs)
    got = torchedge.runtime.load(delegated.to_pte().buffer).forward(*inputs)
    portable = torchedge.runtime.load(edge.to_pte().buffer).forward(*inputs)
    torch.testing.assert_close(got, want, **TOLERANCE)
    torch.testing.assert_close(got, portable, **TOLERANCE)


def test_light_groups_stay_on_cpu_kernels_by_default():
    # linear + sigmoid form one group; cumsum (not XNNPACK's) cuts the graph, and
    # the sigmoid and mul after it are a group without a matrix product, not worth
    # a delegate of its own.
    module = Lambda(lambda l, x: torch.sigmoid(torch.cumsum(torch.sigmoid(l[0](x)), 1)) * 2,
                    nn.Linear(5, 6))
    inputs = (torch.randn(3, 5),)
    program = torchedge.to_edge(torch.export.export(module.eval(), inputs)).exported_program()
    decisions = to_backend(program, XnnpackPartitioner())
    kept = {d.operator: d.reason for d in decisions if not d.delegated}
    assert sorted(kept) == ["aten.cumsum.default", "aten.mul.Scalar", "aten.sigmoid.default"], kept
    assert "without a convolution or matrix product" in kept["aten.mul.Scalar"], kept
    assert num_delegates(program) == 1
