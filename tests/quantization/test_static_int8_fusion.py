"""fuse_static_int8 (python/torchedge/quantization/static_int8_fusion.py) and the
ops it emits (int8_conv_ops.py): which graphs it rewrites, that the eager
quantized model computes bit-identical outputs before and after, the panel
layout, argument errors, and that the runtime's int8 kernels match eager."""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import digits
import torchedge
from torchedge import quantization as tq
from torchedge import runtime
from torchedge.quantization import int8_conv_ops as ops
from torchedge.quantization.static_int8_fusion import fuse_static_int8, output_bound

te = torch.ops.torchedge
qd = torch.ops.quantized_decomposed
FUSED_OPS = {te.conv2d_int8.default, te.depthwise_conv2d_int8.default,
             te.quantized_linear.default, te.add_int8.default, te.conv2d_add_int8.default,
             te.mean_hw_int8.default}


class Net(nn.Module):
    """Every fusable form, plus a broadcasting add that must stay as it is."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)                                # + relu
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=8)                      # depthwise + relu6
        self.c3 = nn.Conv2d(8, 8, 3, padding=2, dilation=2, groups=2)          # + hardtanh
        self.act3 = nn.Hardtanh(-0.5, 2.0)
        self.c4 = nn.Conv2d(8, 16, 3, stride=2, padding=1, bias=False)        # no bias, stride 2
        self.c5 = nn.Conv2d(16, 16, 1)                                         # 1x1, no act

    def forward(self, x):
        y1 = F.relu(self.c1(x))
        y2 = F.relu6(self.c2(y1))
        y3 = F.relu(self.act3(self.c3(y2)) + y1)                  # conv + residual add + relu
        y4 = self.c4(y3)
        y5 = self.c5(y4) + y4                                     # conv + residual add
        return y5, y5 + F.adaptive_avg_pool2d(y5, 1)                           # broadcasting add


EXPECTED = {"conv2d_int8": 2, "depthwise_conv2d_int8": 1, "quantized_linear": 0, "add_int8": 0,
            "conv2d_add_int8": 2, "max_pool2d": 0, "mean_hw_int8": 1}


def _inputs(seed: int, shape=(2, 3, 12, 12)) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _prepared(model: nn.Module, shape=(2, 3, 12, 12)) -> torch.fx.GraphModule:
    torch.manual_seed(0)
    prepared = tq.prepare(model.eval(), (_inputs(0, shape),))
    tq.calibrate(prepared, [(_inputs(seed, shape),) for seed in range(4)])
    return prepared


def _quantize(fuse: bool, model_type=Net, shape=(2, 3, 12, 12)) -> torch.export.ExportedProgram:
    torch.manual_seed(0)
    return tq.convert(_prepared(model_type(), shape), (_inputs(0, shape),),
                      fuse_static_int8=fuse)


def _targets(graph) -> list:
    return [n.target for n in graph.nodes if n.op == "call_function"]


@pytest.fixture(scope="module")
def programs() -> tuple:
    return _quantize(True), _quantize(False)


# -- (a) eager numerics unchanged ---------------------------------------------------

def test_every_pattern_is_fused_and_eager_outputs_are_bit_identical(programs):
    fused, unfused = programs
    targets = _targets(fused.graph)
    for name, count in EXPECTED.items():
        op = getattr(torch.ops.aten if name == "max_pool2d" else te, name).default
        assert targets.count(op) == count, (name, targets)
    assert torch.ops.aten.conv2d.default not in targets
    # Only the broadcasting add stays float (its operands are dequantized).
    assert targets.count(torch.ops.aten.add.Tensor) == 1
    assert not _targets(unfused.graph).count(te.conv2d_int8.default)
    step = _output_scales(fused)[1]
    for seed in range(4):
        x = _inputs(seed) * (1 + seed)  # also beyond the calibrated range: clamping paths
        (got0, got1), (want0, want1) = fused.module()(x), unfused.module()(x)
        assert torch.equal(got0, want0), seed
        # The pooled value: the int8 mean rounds the exact sum, the float mean a
        # float sum (int8_pool_ops.py): one step of it at most, then the add.
        assert ((got1 - want1) / step).abs().max() <= 2 + 1e-3, seed


class InPlace(nn.Module):
    """In-place activations and add (ResNet style): relu_, hardtanh_, add_."""

    def __init__(self) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)
        self.relu, self.act = nn.ReLU(inplace=True), nn.Hardtanh(0.0, 6.0, inplace=True)

    def forward(self, x):
        y = self.relu(self.c1(x))
        z = self.act(self.c2(y))
        z += y
        return self.relu(z)


def test_in_place_forms_are_fused_and_bit_identical():
    fused, unfused = _quantize(True, InPlace), _quantize(False, InPlace)
    assert {str(t) for t in _targets(unfused.graph)} >= {
        "aten.relu_.default", "aten.hardtanh_.default", "aten.add_.Tensor"}
    targets = _targets(fused.graph)
    assert targets.count(te.conv2d_int8.default) == 1 and targets.count(te.add_int8.default) == 0
    assert targets.count(te.conv2d_add_int8.default) == 1
    assert not [t for t in targets if str(t).startswith("aten.")], targets
    for seed in range(3):
        x = _inputs(seed) * (1 + seed)
        assert torch.equal(fused.module()(x), unfused.module()(x)), seed


class Twice(nn.Module):
    """An add reading one tensor twice (one dequantize node, two operands)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        y = self.conv(x)
        return F.relu(y + y)


def test_add_of_a_tensor_to_itself():
    fused, unfused = _quantize(True, Twice), _quantize(False, Twice)
    assert _targets(fused.graph).count(te.add_int8.default) == 1
    x = _inputs(3)
    assert torch.equal(fused.module()(x), unfused.module()(x))


def test_activation_bounds_fold_exactly():
    """quantize(act(y)) == clamp(quantize(y), bound(low), bound(high)) for every
    float32 y, with the bounds quantized by quantize_per_tensor itself (output_bound)."""
    y = torch.cat([torch.linspace(-8, 8, 20001),
                   torch.tensor([-0.5, 0.0, -0.0, 0.1, 0.7, 2.0, 6.0, 1e30, -1e30, float("inf")])])
    y = torch.cat([y, torch.nextafter(y, torch.tensor(float("inf"))),
                   torch.nextafter(y, torch.tensor(float("-inf")))])
    activations = [(F.relu, 0.0, float("inf")), (F.relu6, 0.0, 6.0),
                   (lambda t: F.hardtanh(t, -0.5, 2.0), -0.5, 2.0),
                   (lambda t: F.hardtanh(t, 0.1, 0.7), 0.1, 0.7)]
    for scale, zp in ((0.0235, -128), (0.01, 0), (0.0031, 17), (0.05, 127), (1 / 3, -5)):
        for act, low, high in activations:
            want = qd.quantize_per_tensor.default(act(y), scale, zp, -128, 127, torch.int8)
            got = qd.quantize_per_tensor.default(y, scale, zp, output_bound(low, scale, zp),
                                                 output_bound(high, scale, zp), torch.int8)
            assert torch.equal(got, want), (scale, zp, low, high)


# -- (b) what the pass rewrites -------------------------------------------------------

def _converted(model: nn.Module, shape=(2, 3, 12, 12)) -> torch.fx.GraphModule:
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e
    return convert_pt2e(_prepared(model, shape))


def test_pass_counts_and_removes_dead_nodes_and_constants():
    gm = _converted(Net())
    weights_before = {n for n, t in gm.named_buffers() if t.dtype == torch.int8}
    assert fuse_static_int8(gm) == EXPECTED
    targets = _targets(gm.graph)
    assert qd.dequantize_per_channel.default not in targets
    # The input and the broadcast add (the pool is now mean_hw_int8).
    assert targets.count(qd.quantize_per_tensor.default) == 2
    int8 = {n: t for n, t in gm.named_buffers() if t.dtype == torch.int8}
    # The depthwise weight is kept as it is; the others are replaced by their panels.
    assert len(int8) == 5 and len(set(int8) & weights_before) == 1, sorted(int8)
    assert not [n for n, _ in gm.named_buffers() if "zero_point" in n]
    assert fuse_static_int8(gm) == {k: 0 for k in EXPECTED}  # idempotent


def _conv_targets(gm) -> list:
    return [(n.name, n.target) for n in gm.graph.nodes
            if n.op == "call_function" and "conv" in str(n.target)]


def test_asymmetric_weights_are_left_alone():
    gm = _converted(Net())
    zero_points = [name for name, _ in gm.named_buffers() if "zero_point" in name]
    assert zero_points
    for name in zero_points:
        getattr(gm, name).fill_(1)
    before = _conv_targets(gm)
    counts = fuse_static_int8(gm)
    assert counts == {"conv2d_int8": 0, "depthwise_conv2d_int8": 0, "quantized_linear": 0,
                      "add_int8": 2, "conv2d_add_int8": 0, "max_pool2d": 0,
                      "mean_hw_int8": 1}
    assert _conv_targets(gm) == before


def test_uint8_output_is_left_alone():
    """A conv whose output quantize is not int8 [-128, 127] keeps its form."""
    gm = _converted(Net())
    conv = next(n for n in gm.graph.nodes if n.target == torch.ops.aten.conv2d.default)
    q = next(iter(next(iter(conv.users)).users))  # conv -> relu -> quantize
    assert q.target == qd.quantize_per_tensor.default
    q.args = (*q.args[:3], 0, 255, torch.uint8)
    counts = fuse_static_int8(gm)
    assert counts["conv2d_int8"] + counts["conv2d_add_int8"] == \
        EXPECTED["conv2d_int8"] + EXPECTED["conv2d_add_int8"] - 1
    assert conv.graph is gm.graph and conv in gm.graph.nodes


class Unfusable(nn.Module):
    """conv1d, string padding, a non-constant weight, a transposed conv."""

    def __init__(self) -> None:
        super().__init__()
        self.c1d = nn.Conv1d(4, 4, 3, padding=1)
        self.same = nn.Conv2d(4, 4, 3, padding="same")
        self.up = nn.ConvTranspose2d(4, 4, 2, stride=2)

    def forward(self, x, w):
        n, c, h, width = x.shape
        y = self.c1d(x.reshape(n, c, h * width)).reshape(n, c, h, width)
        y = F.relu(self.same(y))
        y = F.conv2d(y, w, padding=1)
        return self.up(y)


def test_other_convolutions_are_left_alone():
    torch.manual_seed(0)
    model = Unfusable().eval()
    example = (torch.randn(1, 4, 6, 6), torch.randn(4, 4, 3, 3))
    prepared = tq.prepare(model, example)
    tq.calibrate(prepared, [example])
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e
    gm = convert_pt2e(prepared)
    before = [n.target for n in gm.graph.nodes]
    assert qd.dequantize_per_channel.default in before  # they are quantized, just not fusable
    assert fuse_static_int8(gm) == {k: 0 for k in EXPECTED}
    assert [n.target for n in gm.graph.nodes] == before


# -- (c) the panel layout -------------------------------------------------------------

@pytest.mark.parametrize("cout,cin_g,kh,kw,groups", [
    (1, 1, 1, 1, 1), (6, 3, 3, 3, 1), (7, 5, 1, 1, 1), (13, 2, 3, 2, 1),
    (16, 4, 3, 3, 2), (24, 1, 5, 5, 3), (64, 64, 1, 1, 1)])
def test_panels_round_trip_and_index_formula(cout, cin_g, kh, kw, groups):
    w = torch.randint(-127, 128, (cout, cin_g, kh, kw), dtype=torch.int8,
                      generator=torch.Generator().manual_seed(cout))
    panels = ops.pack_conv_weight_panels(w, groups)
    k, cout_g = cin_g * kh * kw, cout // groups
    kq = -(-k // 4) * 4
    assert list(panels.shape) == [groups, -(-cout_g // 6), kq // 4, 6, 4]
    assert panels.dtype == torch.int8
    assert torch.equal(ops.unpack_conv_weight_panels(panels, cout, cin_g, (kh, kw), groups), w)
    flat = w.reshape(groups, cout_g, k)
    expected = torch.zeros_like(panels)
    for g in range(groups):
        for r in range(cout_g):
            for i in range(k):
                # [g, r / 6, k / 4, r % 6, k % 4], as in the contract
                expected[g, r // 6, i // 4, r % 6, i % 4] = flat[g, r, i]
                assert ops.panel_index(r, i) == (r // 6, (i & ~3) * 6 + (r % 6) * 4 + (i & 3))
    assert torch.equal(panels, expected)  # and the padding (rows >= Cout_g, k >= K) is 0


def test_pack_rejects_bad_weights():
    with pytest.raises(ValueError, match="int8"):
        ops.pack_conv_weight_panels(torch.zeros(4, 1, 3, 3), 1)
    with pytest.raises(ValueError, match="groups"):
        ops.pack_conv_weight_panels(torch.zeros(4, 1, 3, 3, dtype=torch.int8), 3)


def test_conv_weight_sums_are_each_output_channels_sum():
    """conv_weight_sums reads the panel layout back to each output channel's sum (the
    fusion stores it), and the op gives the same output with it."""
    args = _conv_args(input=torch.randint(-128, 128, (1, 4, 6, 6), dtype=torch.int8))
    w = ops.unpack_conv_weight_panels(args["weight_panels"], 8, 2, [3, 3], 2)
    sums = ops.conv_weight_sums(args["weight_panels"], 8)
    assert sums.dtype == torch.int32
    assert torch.equal(sums, w.to(torch.int32).sum((1, 2, 3), dtype=torch.int32))
    assert torch.equal(te.conv2d_int8(*args.values()),
                       te.conv2d_int8(*args.values(), 8, sums))


# -- (e) argument errors ----------------------------------------------------------------

def _conv_args(**change) -> dict:
    w = torch.randint(-127, 128, (8, 2, 3, 3), dtype=torch.int8)
    args = dict(input=torch.zeros(1, 4, 6, 6, dtype=torch.int8), input_scale=0.1,
                input_zero_point=0, weight_panels=ops.pack_conv_weight_panels(w, 2),
                weight_scales=torch.full((8,), 0.01), bias=torch.zeros(8), kernel_size=[3, 3],
                stride=[1, 1], padding=[1, 1], dilation=[1, 1], groups=2, output_scale=0.05,
                output_zero_point=3, output_min=-128, output_max=127)
    args.update(change)
    return args


@pytest.mark.parametrize("change,message", [
    # K = 2 * 3 * 3 = 18: 5 quads per panel, not 4.
    (dict(weight_panels=torch.zeros(2, 1, 4, 6, 4, dtype=torch.int8)), "weight_panels must be int8"),
    # The same bytes in the earlier flat layout (a file from before the quads).
    (dict(weight_panels=torch.zeros(2, 1, 20 * 6, dtype=torch.int8)), "rank 5"),
    (dict(groups=3), "groups"),
    (dict(output_min=5, output_max=4), "output_min"),
    (dict(output_zero_point=128), "output_zero_point"),
    (dict(input_scale=0.0), "input_scale"),
    (dict(input=torch.zeros(1, 4, 6, 6)), "input must be an int8"),
    (dict(bias=torch.zeros(7)), "bias must be float32"),
    (dict(stride=[1]), "stride"),
    (dict(kernel_size=[3, 3, 3]), "kernel_size"),
    (dict(input=torch.zeros(1, 4, 1, 1, dtype=torch.int8), padding=[0, 0]), "smaller than"),
    (dict(weight_bits=8, weight_sums=torch.zeros(7, dtype=torch.int32)), "weight_sums must be"),
    (dict(weight_bits=8, weight_sums=torch.zeros(8)), "weight_sums must be"),
    # Sums that are not the weights' (the runtime trusts them; the reference checks).
    (dict(weight_bits=8, weight_sums=torch.ones(8, dtype=torch.int32)),
     "weight_sums must be the sums"),
])
def test_conv2d_int8_rejects_malformed_arguments(change, message):
    with pytest.raises(ValueError, match=rf"torchedge::conv2d_int8: .*{message}"):
        te.conv2d_int8(*_conv_args(**change).values())


def test_depthwise_and_add_reject_malformed_arguments():
    x = torch.zeros(1, 4, 5, 5, dtype=torch.int8)
    w = torch.zeros(4, 1, 3, 3, dtype=torch.int8)
    good = (x, 0.1, 0, w, torch.ones(4), None, [1, 1], [1, 1], [1, 1], 0.1, 0, -128, 127)
    assert te.depthwise_conv2d_int8(*good).shape == (1, 4, 5, 5)
    with pytest.raises(ValueError, match="torchedge::depthwise_conv2d_int8: weight must be"):
        te.depthwise_conv2d_int8(x, 0.1, 0, torch.zeros(4, 2, 3, 3, dtype=torch.int8),
                                 *good[4:])
    with pytest.raises(ValueError, match="torchedge::depthwise_conv2d_int8: weight_scales"):
        te.depthwise_conv2d_int8(*good[:4], torch.ones(3), *good[5:])
    a = torch.zeros(2, 3, dtype=torch.int8)
    with pytest.raises(ValueError, match="torchedge::add_int8: a and b must be int8 tensors of "
                                         "the same shape"):
        te.add_int8(a, 0.1, 0, torch.zeros(1, 3, dtype=torch.int8), 0.1, 0, 0.2, 0, -128, 127)
    with pytest.raises(ValueError, match="torchedge::add_int8: b_zero_point"):
        te.add_int8(a, 0.1, 0, a, 0.1, -129, 0.2, 0, -128, 127)


def test_eager_ops_compute_the_contract_formula():
    """conv2d_int8 == the integer sum, scaled, biased, requantized (checked in
    float64 against the float32 reference: equal but for ties of the rounding)."""
    g = torch.Generator().manual_seed(1)
    x = torch.randint(-128, 128, (2, 4, 7, 6), dtype=torch.int8, generator=g)
    w = torch.randint(-127, 128, (10, 2, 3, 3), dtype=torch.int8, generator=g)
    scales, bias = torch.rand(10, generator=g) * 0.02 + 0.001, torch.randn(10, generator=g)
    args = (x, 0.05, -3, ops.pack_conv_weight_panels(w, 2), scales, bias, [3, 3], [2, 1],
            [1, 0], [1, 2], 2, 0.1, 4, -20, 100)
    got = te.conv2d_int8(*args)
    acc = F.conv2d(x.double() + 3, w.double(), None, [2, 1], [1, 0], [1, 2], 2)  # pad acts as zx
    y = acc * (0.05 * scales.double()).view(1, -1, 1, 1) + bias.double().view(1, -1, 1, 1)
    want = torch.clamp(torch.round(y / 0.1) + 4, -20, 100)
    assert (got.double() - want).abs().max() <= 1
    assert (got.double() == want).double().mean() > 0.99


# -- (d) the runtime's kernels against eager ----------------------------------------------

def _load(ep, kernels: str):
    program = torchedge.to_edge(ep).to_pte()
    missing = sorted(set(program.operators["forward"]) - set(runtime.registered_kernels()))
    if missing:
        pytest.fail(f"the runtime has no kernel for {', '.join(missing)}")
    return program, runtime.load(program.buffer, kernels=kernels)


def _first(out) -> torch.Tensor:
    return out[0] if isinstance(out, (list, tuple)) else out


def _output_scales(ep) -> list:
    """The scale of each output's dequantize (the model's float outputs)."""
    outputs = next(n for n in ep.graph.nodes if n.op == "output").args[0]
    return [node.args[1] for node in outputs]


def _output_scale(ep) -> float:
    return _output_scales(ep)[0]


# The runtime computes the same int32 sums; its float scaling (no FMA) may round a
# value sitting on a tie of the next quantize the other way: one step, rarely
# (measured: never, on these tests). At least this share of the outputs of fused ops
# must be identical after dequantization, and all within one step.
IDENTICAL = 0.99


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_runtime_matches_eager_quantized_reference(programs, kernels):
    """Output 0 comes from fused ops only (IDENTICAL); output 1 adds the float
    mean and broadcasting add on top, whose float sums (another order than
    eager's) can move the pooled value of a channel by one step, and with it
    that whole channel: within one step, no share stated."""
    fused, _ = programs
    program, loaded = _load(fused, kernels)
    assert {"torchedge::conv2d_int8.out", "torchedge::depthwise_conv2d_int8.out",
            "torchedge::conv2d_add_int8.out"} <= set(program.operators["forward"])
    scales = _output_scales(fused)
    for seed in range(4):
        x = _inputs(seed) * (1 + seed)
        for index, (got, want, step) in enumerate(zip(loaded.forward(x), fused.module()(x),
                                                      scales, strict=True)):
            steps = ((got - want) / step).abs()
            assert steps.max() <= 1 + 1e-3, (seed, index, steps.max())
            if index == 0:
                identical = (steps < 1e-3).double().mean()
                assert identical >= IDENTICAL, (seed, identical)


@pytest.mark.parametrize("shape,groups,stride,padding,dilation", [
    ((1, 3, 17, 13), 1, (1, 1), (1, 1), (1, 1)), ((2, 8, 9, 9), 2, (2, 2), (0, 1), (1, 1)),
    ((1, 12, 8, 8), 12, (1, 1), (2, 2), (2, 2)), ((1, 12, 11, 7), 12, (2, 1), (1, 1), (1, 1)),
    ((1, 64, 5, 5), 1, (1, 1), (0, 0), (1, 1))])
def test_runtime_single_conv_is_exact_up_to_ties(shape, groups, stride, padding, dilation):
    """One conv (+ relu6) per program: every output element's integer vs eager."""
    cin = shape[1]
    cout = cin if groups == cin else 2 * cin + 1 - (2 * cin + 1) % groups

    class One(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Conv2d(cin, cout, 3, stride, padding, dilation, groups)

        def forward(self, x):
            return F.relu6(self.conv(x))

    torch.manual_seed(0)
    ep = tq.quantize_pt2e(One().eval(), (torch.randn(shape),),
                          [(torch.randn(shape),) for _ in range(3)])
    target = te.depthwise_conv2d_int8 if groups == cin else te.conv2d_int8
    assert _targets(ep.graph).count(target.default) == 1
    _, loaded = _load(ep, "optimized")
    step = _output_scale(ep)
    x = torch.randn(shape) * 1.5
    got, want = _first(loaded.forward(x)), ep.module()(x)
    steps = ((got - want) / step).abs()
    assert steps.max() <= 1 + 1e-3 and (steps < 1e-3).double().mean() >= IDENTICAL


def test_runtime_add_int8_is_bit_exact():
    class Add(nn.Module):
        def forward(self, a, b):
            return F.relu(a + b)

    torch.manual_seed(0)
    example = (torch.randn(2, 5, 7, 3), torch.randn(2, 5, 7, 3) * 3)
    ep = tq.quantize_pt2e(Add().eval(), example, [example])
    assert _targets(ep.graph).count(te.add_int8.default) == 1
    _, loaded = _load(ep, "optimized")
    for seed in range(3):
        a, b = (_inputs(seed + i, (2, 5, 7, 3)) * 2 for i in (0, 10))
        got = _first(loaded.forward(a, b))
        assert torch.equal(got, ep.module()(a, b))


def test_digits_cnn_runtime_predictions_agree(models, data):
    """The trained digits CNN, static int8, fused: runtime (optimized kernels)
    against the eager quantized reference on the 360 test digits."""
    example = data.batches("train")[0]
    ep = tq.quantize_pt2e(copy.deepcopy(models["cnn"]), (example,), data.batches("train")[:4])
    targets = _targets(ep.graph)
    convs = targets.count(te.conv2d_int8.default) + targets.count(te.conv2d_add_int8.default)
    adds = targets.count(te.add_int8.default) + targets.count(te.conv2d_add_int8.default)
    assert convs == 3 and adds == 1
    _, loaded = _load(ep, "optimized")
    batches = data.batches("test")
    reference = digits.predictions(ep.module(), batches)
    got = digits.predictions(lambda b: _first(loaded.forward(b)), batches)
    agreement = (reference == got).double().mean().item()
    assert agreement >= 0.995, agreement


class Mlp(nn.Module):
    """Linear layers on a [batch, tokens, features] input: + relu, + hardtanh,
    none, and one whose output stays float (read by a float op too)."""

    def __init__(self) -> None:
        super().__init__()
        self.l1, self.l2, self.l3 = nn.Linear(12, 32), nn.Linear(32, 24), nn.Linear(24, 8)
        self.l4 = nn.Linear(8, 5, bias=False)

    def forward(self, x):
        y = F.hardtanh(self.l2(F.relu(self.l1(x))), -1.0, 0.5)
        return self.l4(self.l3(y))


MLP_SHAPE = (2, 3, 12)


def test_linear_layers_are_fused_and_eager_outputs_are_bit_identical():
    fused, unfused = _quantize(True, Mlp, MLP_SHAPE), _quantize(False, Mlp, MLP_SHAPE)
    targets = _targets(fused.graph)
    assert targets.count(te.quantized_linear.default) == 4, targets
    assert torch.ops.aten.linear.default not in targets
    assert qd.dequantize_per_channel.default not in targets
    for seed in range(4):
        x = _inputs(seed, MLP_SHAPE) * (1 + seed)
        assert torch.equal(fused.module()(x), unfused.module()(x)), seed


def test_fused_convs_carry_their_weight_sums(programs):
    """weight_sums (the last argument of conv2d_int8 and conv2d_add_int8) is a
    constant: int32 [Cout], each output channel's weight sum (the AArch64 sdot
    kernel's zero-point share)."""
    gm = programs[0].module()
    calls = [n for n in gm.graph.nodes
             if n.target in (te.conv2d_int8.default, te.conv2d_add_int8.default)]
    assert len(calls) == EXPECTED["conv2d_int8"] + EXPECTED["conv2d_add_int8"]
    for call in calls:
        panels, scales, sums = (getattr(gm, arg.target)
                                for arg in (call.args[3], call.args[4], call.args[-1]))
        cout, groups = scales.shape[0], call.args[10]
        # Padding rows and k hold 0: each real row's panel bytes sum to its weights'.
        want = panels.to(torch.int64).sum((2, 4)).reshape(groups, -1)[:, :cout // groups]
        assert sums.dtype == torch.int32 and list(sums.shape) == [cout]
        assert torch.equal(sums, want.reshape(-1).to(torch.int32))


def test_fused_linear_carries_its_weight_row_sums():
    """weight_sums (the last argument) is a constant: int32 [N], each row of the
    int8 weight summed (the AArch64 kernels' zero-point share)."""
    ep = _quantize(True, Mlp, MLP_SHAPE)
    gm = ep.module()
    calls = [n for n in gm.graph.nodes if n.target == te.quantized_linear.default]
    assert len(calls) == 4
    for call in calls:
        weight, sums = (getattr(gm, arg.target) for arg in (call.args[3], call.args[10]))
        assert sums.dtype == torch.int32 and list(sums.shape) == [weight.shape[0]]
        assert torch.equal(sums, weight.to(torch.int64).sum(1).to(torch.int32))


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_runtime_quantized_linear_matches_eager(kernels):
    ep = _quantize(True, Mlp, MLP_SHAPE)
    program, loaded = _load(ep, kernels)
    assert "torchedge::quantized_linear.out" in program.operators["forward"]
    for seed in range(4):
        x = _inputs(seed, MLP_SHAPE) * (1 + seed)
        steps = ((_first(loaded.forward(x)) - ep.module()(x)) / _output_scale(ep)).abs()
        assert steps.max() <= 1 + 1e-3 and (steps < 1e-3).double().mean() >= IDENTICAL, seed


def test_quantized_linear_rejects_malformed_arguments():
    x, w, s = torch.zeros(2, 4, dtype=torch.int8), torch.zeros(3, 4, dtype=torch.int8), torch.ones(3)
    ok = (x, 0.1, 0, w, s, None, 0.2, 0, -128, 127)
    assert list(te.quantized_linear(*ok).shape) == [2, 3]
    for index, value, message in (
            (0, x.float(), "input_q must be an int8"), (3, w[:, :3], r"weight_q must be int8 \[N, 4\]"),
            (4, s[:2], r"weight_scales must be float32 \[3\]"), (5, torch.ones(2), "bias must be"),
            (1, 0.0, "input_scale must be finite"), (9, -129, "output_min <= output_max"),
            (10, torch.zeros(2, dtype=torch.int32), r"weight_sums must be int32 \[3\]"),
            (10, torch.zeros(3), r"weight_sums must be int32 \[3\]"),
            (10, torch.ones(3, dtype=torch.int32), "weight_sums must be the sums")):
        args = list(ok) + [None]
        args[index] = value
        with pytest.raises(ValueError, match=message):
            te.quantized_linear(*args)


def test_runtime_with_dynamic_batch_and_resolution():
    """The fake implementations keep symbolic sizes: one program for any
    batch and resolution in range, matching eager at each."""
    dims = {0: torch.export.Dim("batch", min=1, max=8), 2: torch.export.Dim("h", min=8, max=64),
            3: torch.export.Dim("w", min=8, max=64)}
    shapes = {"x": dims}
    torch.manual_seed(0)
    prepared = tq.prepare(Net().eval(), (_inputs(0),), dynamic_shapes=shapes)
    tq.calibrate(prepared, [(_inputs(seed),) for seed in range(3)])
    ep = tq.convert(prepared, (_inputs(0),), dynamic_shapes=shapes)
    assert sum(t in FUSED_OPS for t in _targets(ep.graph)) == sum(EXPECTED.values())
    _, loaded = _load(ep, "optimized")
    for n, h, w in ((1, 8, 9), (3, 20, 13)):
        x = torch.randn(n, 3, h, w, generator=torch.Generator().manual_seed(n))
        for got, want, step in zip(loaded.forward(x), ep.module()(x), _output_scales(ep),
                                   strict=True):
            assert list(got.shape) == list(want.shape)
            assert ((got - want) / step).abs().max() <= 1 + 1e-3


class Pooled(nn.Module):
    """ResNet's stem: conv + relu, then a 3x3 / 2 max pool with padding."""

    def __init__(self) -> None:
        super().__init__()
        self.conv, self.pool = nn.Conv2d(3, 8, 3, padding=1), nn.MaxPool2d(3, 2, 1)
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.head(self.pool(F.relu(self.conv(x))))


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_max_pool_runs_on_int8_exactly(kernels):
    """The pool moves onto the int8 tensor (no dequantize/quantize around it):
    eager bit-identical to the unfused reference, runtime within one step."""
    fused, unfused = _quantize(True, Pooled), _quantize(False, Pooled)
    targets = _targets(fused.graph)
    assert targets.count(torch.ops.aten.max_pool2d.default) == 1
    assert targets.count(qd.dequantize_per_tensor.default) == 1  # the output only
    _, loaded = _load(fused, kernels)
    for seed in range(3):
        x = _inputs(seed) * (1 + seed)
        want = fused.module()(x)
        assert torch.equal(want, unfused.module()(x)), seed
        steps = ((_first(loaded.forward(x)) - want) / _output_scale(fused)).abs()
        assert steps.max() <= 1 + 1e-3 and (steps < 1e-3).double().mean() >= IDENTICAL, seed


# -- (f) conv2d_int8 + add_int8 -> conv2d_add_int8 ----------------------------------------

class Block(nn.Module):
    """A ResNet basic block; `swap` puts the conv's output second in the add."""

    def __init__(self, swap: bool = False) -> None:
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(8, 8, 3, padding=1), nn.Conv2d(8, 8, 3, padding=1)
        self.swap = swap

    def forward(self, x):
        y = self.c2(F.relu(self.c1(x)))
        return F.relu(x + y if self.swap else y + x)


class SharedConvOutput(Block):
    """The conv's output is also a model output: the add must stay separate."""

    def forward(self, x):
        y = self.c2(F.relu(self.c1(x)))
        return F.relu(y + x), y


BLOCK_SHAPE = (2, 8, 12, 12)


@pytest.mark.parametrize("swap", [False, True])
def test_conv_add_fuses_in_either_operand_position(swap):
    def block():
        return Block(swap)

    fused, unfused = _quantize(True, block, BLOCK_SHAPE), _quantize(False, block, BLOCK_SHAPE)
    targets = _targets(fused.graph)
    assert targets.count(te.conv2d_add_int8.default) == 1, targets
    assert targets.count(te.conv2d_int8.default) == 1 and te.add_int8.default not in targets
    for seed in range(4):
        x = _inputs(seed, BLOCK_SHAPE) * (1 + seed)
        assert torch.equal(fused.module()(x), unfused.module()(x)), seed


def test_conv_output_with_other_users_is_not_fused():
    fused = _quantize(True, SharedConvOutput, BLOCK_SHAPE)
    targets = _targets(fused.graph)
    assert te.conv2d_add_int8.default not in targets
    assert targets.count(te.conv2d_int8.default) == 2 and targets.count(te.add_int8.default) == 1
    unfused = _quantize(False, SharedConvOutput, BLOCK_SHAPE)
    x = _inputs(5, BLOCK_SHAPE)
    for got, want in zip(fused.module()(x), unfused.module()(x), strict=True):
        assert torch.equal(got, want)


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
@pytest.mark.parametrize("swap", [False, True])
def test_runtime_conv_add_matches_eager(kernels, swap):
    ep = _quantize(True, lambda: Block(swap), BLOCK_SHAPE)
    program, loaded = _load(ep, kernels)
    assert "torchedge::conv2d_add_int8.out" in program.operators["forward"]
    assert "torchedge::add_int8.out" not in program.operators["forward"]
    for seed in range(4):
        x = _inputs(seed, BLOCK_SHAPE) * (1 + seed)
        steps = ((_first(loaded.forward(x)) - ep.module()(x)) / _output_scale(ep)).abs()
        assert steps.max() <= 1 + 1e-3 and (steps < 1e-3).double().mean() >= IDENTICAL, seed


def _conv_add_args(**change) -> dict:
    args = _conv_args()
    args = {("conv_" + k[len("output_"):] if k.startswith("output_") else k): v
            for k, v in args.items()}
    args.update(residual=torch.zeros(1, 8, 6, 6, dtype=torch.int8), residual_scale=0.1,
                residual_zero_point=-2, output_scale=0.2, output_zero_point=1, output_min=1,
                output_max=127)
    args.update(change)
    return args


def test_conv2d_add_int8_is_conv_then_add():
    g = torch.Generator().manual_seed(2)
    residual = torch.randint(-128, 128, (1, 8, 6, 6), dtype=torch.int8, generator=g)
    x = torch.randint(-128, 128, (1, 4, 6, 6), dtype=torch.int8, generator=g)
    args = _conv_add_args(input=x, residual=residual)
    conv = te.conv2d_int8(*list(args.values())[:15])
    want = te.add_int8(residual, 0.1, -2, conv, 0.05, 3, 0.2, 1, 1, 127)
    assert torch.equal(te.conv2d_add_int8(*args.values()), want)


@pytest.mark.parametrize("change,message", [
    (dict(residual=torch.zeros(1, 8, 6, 5, dtype=torch.int8)), r"residual must be int8 \[1, 8, 6, 6\]"),
    (dict(residual=torch.zeros(1, 8, 6, 6)), "residual must be int8"),
    (dict(residual_zero_point=128), "residual_zero_point"),
    (dict(residual_scale=float("nan")), "residual_scale"),
    (dict(conv_min=5, conv_max=4), "conv_min <= conv_max"),
    (dict(conv_scale=0.0), "conv_scale"),
    (dict(output_min=5, output_max=4), "output_min <= output_max"),
    (dict(groups=3), "groups"),
])
def test_conv2d_add_int8_rejects_malformed_arguments(change, message):
    with pytest.raises(ValueError, match=rf"torchedge::conv2d_add_int8: .*{message}"):
        te.conv2d_add_int8(*_conv_add_args(**change).values())


# -- (f) 7-bit weights (weight_bits=7) ---------------------------------------------------

def _conv_weight_bits(ep) -> list:
    """weight_bits of every conv2d_int8 / conv2d_add_int8 (its last argument; the
    export leaves out a default 8)."""
    convs = {te.conv2d_int8.default: 15, te.conv2d_add_int8.default: 22}
    return [n.args[convs[n.target]] if len(n.args) > convs[n.target] else 8
            for n in ep.graph.nodes if n.target in convs]


def test_seven_bit_weights_are_marked_and_the_runtime_matches_eager():
    """weight_bits=7 quantizes weights into [-63, 63], the fusion marks every conv 7
    (and an 8-bit model's 8, as it measures the weights), and the runtime (whose
    AVX2 path without VNNI multiplies u8 x s8 for these) matches eager as the 8-bit
    model does."""
    torch.manual_seed(0)
    model = Net().eval()
    prepared = tq.prepare(model, (_inputs(0),), tq.static_config(weight_bits=7))
    tq.calibrate(prepared, [(_inputs(seed),) for seed in range(4)])
    seven = tq.convert(prepared, (_inputs(0),))
    # (Running seven.module() below also checks the weights: the eager ops reject
    # weight_bits = 7 with a weight outside [-64, 63].)
    assert _conv_weight_bits(seven) == [7] * 4
    assert _conv_weight_bits(_quantize(True)) == [8] * 4
    program, loaded = _load(seven, "optimized")
    assert {"torchedge::conv2d_int8.out", "torchedge::conv2d_add_int8.out"} <= \
        set(program.operators["forward"])
    step = _output_scale(seven)
    for seed in range(4):
        x = _inputs(seed) * (1 + seed)
        steps = ((loaded.forward(x)[0] - seven.module()(x)[0]) / step).abs()
        assert steps.max() <= 1 + 1e-3, (seed, steps.max())
        assert (steps < 1e-3).double().mean() >= IDENTICAL


def test_weight_bits_argument_is_checked():
    args = _conv_args()
    assert te.conv2d_int8(*args.values(), 8).shape == (1, 8, 6, 6)
    with pytest.raises(ValueError, match=r"torchedge::conv2d_int8: weight_bits must be 7"):
        te.conv2d_int8(*args.values(), 6)
    # The promise is held: 7 with a weight outside [-64, 63] is an error in eager.
    w = torch.full((8, 2, 3, 3), 64, dtype=torch.int8)
    args = _conv_args(weight_panels=ops.pack_conv_weight_panels(w, 2))
    with pytest.raises(ValueError, match=r"weight_bits = 7 but a weight lies outside"):
        te.conv2d_int8(*args.values(), 7)
    assert ops.weight_bits_of(w) == 8 and ops.weight_bits_of(w - 1) == 7
    with pytest.raises(ValueError, match="unsupported weight_bits"):
        tq.static_config(weight_bits=4)
