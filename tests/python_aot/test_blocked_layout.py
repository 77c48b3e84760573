"""to_pte's blocked_convolutions: chains of float32 convolutions with channel
counts divisible by 16 run as torchedge::conv2d_blocked on NCHW16c
activations, the max pools between them as torchedge::max_pool2d_blocked,
an RGB stem reads its plain input, and layouts change only where a chain
meets other ops (passes/blocked_layout.py). The program must match eager on
both kernel libraries at 1 and 2 threads, NaN and values leaving a chain
midway included; a MobileNetV2-like network (depthwise convolutions, 24
channels: zero padding lanes) runs blocked from stem to mean; channel counts
not divisible by 16 enter and leave a chain padded and cut back; a chain
needing too many layout changes stays in NCHW; blocked_convolutions=False
restores the plain program; the EdgeProgram is untouched. With
winograd_filters (the default), the blocked 3x3 stride-1 convolutions on
maps of at least WINOGRAD_MIN_OUTPUT run as torchedge::conv2d_winograd_blocked
(counted, shared filters lifted once, padded channels, non-finite filters
and small maps kept direct) and must match eager the same way;
winograd_filters=False keeps them conv2d_blocked.
"""

from __future__ import annotations

import copy
import math

import pytest
import torch

import torchedge
from torchedge import _C, runtime
from torchedge.passes import blocked_layout
from torchedge.passes.activation_fusion import fuse_conv_activations

from numerics import scaled_error  # tests/python_aot (conftest puts it on sys.path)

CONV = "torchedge::conv2d_blocked.out"
DEPTHWISE = "torchedge::conv2d_depthwise_blocked.out"
POOL = "torchedge::max_pool2d_blocked.out"
TO = "torchedge::to_blocked.out"
FROM = "torchedge::from_blocked.out"
WINOGRAD = "torchedge::conv2d_winograd_blocked.out"
CONV_GELU = "torchedge::conv2d_blocked_gelu.out"
CONV_SILU = "torchedge::conv2d_blocked_silu.out"
RELATIVE_TOLERANCE = 1e-4


class Block(torch.nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(cin, cout, 3, stride, 1)
        self.b = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.down = torch.nn.Conv2d(cin, cout, 1, stride) if stride != 1 or cin != cout else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skip = x if self.down is None else self.down(x)
        return torch.relu(self.b(torch.relu(self.a(x))) + skip)


class TinyResNet(torch.nn.Module):
    """An RGB 7x7 stride-2 stem, a 3x3 max pool, basic blocks (a stride-2
    one with a 1x1 downsample; 48 and 80 channels: partial weight groups),
    global average pool and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 32, 7, 2, 3)
        self.blocks = torch.nn.Sequential(Block(32, 32, 1), Block(32, 48, 2), Block(48, 80, 2))
        self.head = torch.nn.Linear(80, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.max_pool2d(torch.relu(self.stem(x)), 3, 2, 1)
        return self.head(self.blocks(y).mean((2, 3)))


class InvertedResidual(torch.nn.Module):
    """MobileNetV2's block: 1x1 expansion, depthwise 3x3, 1x1 projection,
    a residual when the shapes allow."""

    def __init__(self, cin: int, cout: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = cin * expand
        self.body = torch.nn.Sequential(
            torch.nn.Conv2d(cin, hidden, 1, bias=False), torch.nn.BatchNorm2d(hidden),
            torch.nn.ReLU6(),
            torch.nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            torch.nn.BatchNorm2d(hidden), torch.nn.ReLU6(),
            torch.nn.Conv2d(hidden, cout, 1, bias=False), torch.nn.BatchNorm2d(cout))
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return x + y if self.residual else y


class TinyMobileNet(torch.nn.Module):
    """MobileNetV2's shape in small: an RGB stride-2 stem, a depthwise
    block, inverted residuals with 24 channels (not a multiple of 16: padding
    lanes) and strides 1 and 2, a 1x1 head, the mean and a linear layer."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, 2, 1), torch.nn.ReLU6(),
                                        torch.nn.Conv2d(32, 32, 3, 1, 1, groups=32),
                                        torch.nn.ReLU6(), torch.nn.Conv2d(32, 16, 1))
        self.blocks = torch.nn.Sequential(InvertedResidual(16, 24, 2, 6),
                                          InvertedResidual(24, 24, 1, 6),
                                          InvertedResidual(24, 40, 2, 3))
        self.head = torch.nn.Sequential(torch.nn.Conv2d(40, 96, 1), torch.nn.ReLU6())
        self.fc = torch.nn.Linear(96, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.head(self.blocks(self.stem(x))).mean((2, 3)))


def _randomized(module: torch.nn.Module) -> torch.nn.Module:
    """`module` in eval mode with random batch-norm statistics (so the
    folded filters and biases are not trivial)."""
    for m in module.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.5, 0.5)
    return module.eval()


def _lower(module: torch.nn.Module, inputs: tuple, **options):
    edge = torchedge.to_edge(torch.export.export(module.eval(), inputs))
    return edge, edge.to_pte(**options)


def _run(buffer: bytes, kernels: str, x: torch.Tensor) -> torch.Tensor:
    return runtime.load(buffer, kernels=kernels).forward(x)


@pytest.fixture(scope="module")
def resnet():
    torch.manual_seed(0)
    module = TinyResNet().eval()
    inputs = (torch.randn(2, 3, 70, 66),)  # 18x17 maps after the pool
    edge, pte = _lower(module, inputs)
    return module, inputs, edge, pte


def _expect_matches_eager(lowered, kernels: str, threads: int) -> None:
    """A (module, inputs, _, pte) fixture's program against eager, at `threads`."""
    module, inputs, _, pte = lowered
    with torch.no_grad():
        want = module(*inputs)
    _C.set_num_threads(threads)
    try:
        got = _run(pte.buffer, kernels, *inputs)
    finally:
        _C.set_num_threads(1)
    assert got.shape == want.shape
    assert scaled_error(want, got) <= RELATIVE_TOLERANCE, (kernels, threads)


def test_the_resnet_runs_blocked_from_stem_to_mean(resnet):
    _, _, _, pte = resnet
    ops = pte.operators["forward"]
    assert CONV in ops and POOL in ops and FROM in ops
    assert TO not in ops  # the stem reads the RGB input as it is
    assert not any(op.startswith("torchedge::conv2d_clamp") or op == "aten::convolution.out"
                   for op in ops), ops


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_matches_eager(resnet, kernels, threads):
    _expect_matches_eager(resnet, kernels, threads)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_nan_propagates_as_in_eager(resnet, kernels):
    module, inputs, _, pte = resnet
    x = inputs[0].clone()
    x[1, 2, 40, 10] = math.nan
    with torch.no_grad():
        want = module(x)
    got = _run(pte.buffer, kernels, x)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert scaled_error(want, got) <= RELATIVE_TOLERANCE


def test_option_off_restores_the_plain_program(resnet):
    module, inputs, edge, _ = resnet
    plain = edge.to_pte(blocked_convolutions=False)
    ops = plain.operators["forward"]
    assert not any("blocked" in op for op in ops)
    with torch.no_grad():
        want = module(*inputs)
    got = _run(plain.buffer, "optimized", *inputs)
    assert scaled_error(want, got) <= RELATIVE_TOLERANCE


def test_edge_program_is_unchanged(resnet):
    _, _, edge, _ = resnet
    targets = {str(n.target) for n in edge.exported_program().graph.nodes
               if n.op == "call_function"}
    assert not any("blocked" in t for t in targets)


@pytest.fixture(scope="module")
def mobilenet():
    torch.manual_seed(1)
    module = _randomized(TinyMobileNet())
    inputs = (torch.randn(2, 3, 38, 42),)
    edge, pte = _lower(module, inputs)
    return module, inputs, edge, pte


def test_the_mobilenet_runs_blocked_from_stem_to_mean(mobilenet):
    ops = mobilenet[3].operators["forward"]
    assert CONV in ops and DEPTHWISE in ops and FROM in ops
    assert TO not in ops and "aten::slice_copy.Tensor_out" not in ops  # 96 channels leave
    assert not any(op.startswith("torchedge::conv2d_clamp") or op.startswith("torchedge::conv2d_add")
                   or op == "aten::convolution.out" for op in ops), ops


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_the_mobilenet_matches_eager(mobilenet, kernels, threads):
    module, inputs, _, pte = mobilenet
    x = inputs[0].clone()
    x[1, 0, 20, 7] = math.nan  # one image's output goes NaN, the other's must not
    with torch.no_grad():
        want = module(x)
    _C.set_num_threads(threads)
    try:
        got = _run(pte.buffer, kernels, x)
    finally:
        _C.set_num_threads(1)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert scaled_error(want[0], got[0]) <= RELATIVE_TOLERANCE, (kernels, threads)


class PaddedChain(torch.nn.Module):
    """24-channel convolutions (padded to 32 lanes) on a 24-channel input
    (zero-padded, then blocked), with a 24-channel side output leaving the
    chain midway (unblocked, then cut back to 24 channels): 12 convolutions
    for 3 layout changes."""

    def __init__(self) -> None:
        super().__init__()
        self.convs = torch.nn.ModuleList(torch.nn.Conv2d(24, 24, 3, 1, 1) for _ in range(11))
        self.depthwise = torch.nn.Conv2d(24, 24, 3, 2, 1, groups=24)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.convs[0](x))
        side = torch.sigmoid(y)
        for conv in self.convs[1:]:
            y = conv(y) + y
        return self.depthwise(y), side


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_channels_not_divisible_by_16_are_padded_and_cut_back(kernels):
    torch.manual_seed(2)
    module = PaddedChain().eval()
    inputs = (torch.randn(1, 24, 11, 10),)
    _, pte = _lower(module, inputs)
    ops = pte.operators["forward"]
    assert {CONV, DEPTHWISE, TO, FROM, "aten::constant_pad_nd.out",
            "aten::slice_copy.Tensor_out"} <= set(ops), ops
    with torch.no_grad():
        want = module(*inputs)
    got = runtime.load(pte.buffer, kernels=kernels).forward(*inputs)
    for w, g in zip(want, got):
        assert g.shape == w.shape
        assert scaled_error(w, g) <= RELATIVE_TOLERANCE


class SideOutputs(torch.nn.Module):
    """A chain whose first value also feeds a sigmoid (a second output):
    that reader gets the NCHW value through from_blocked while the chain
    stays blocked (12 convolutions for 3 layout changes: the pass's 1 per 4)."""

    def __init__(self) -> None:
        super().__init__()
        self.convs = torch.nn.ModuleList(torch.nn.Conv2d(32, 32, 3, 1, 1) for _ in range(12))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.convs[0](x))
        side = torch.sigmoid(y)  # reads a blocked convolution's output
        for conv in self.convs[1:]:
            y = torch.relu(conv(y))
        return y, side


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_values_leaving_the_chain_midway_are_unblocked(kernels):
    torch.manual_seed(3)
    module = SideOutputs().eval()
    inputs = (torch.randn(1, 32, 20, 18),)
    _, pte = _lower(module, inputs)
    ops = pte.operators["forward"]
    assert {CONV, WINOGRAD} & set(ops) and FROM in ops and TO in ops
    with torch.no_grad():
        want = module(*inputs)
    got = runtime.load(pte.buffer, kernels=kernels).forward(*inputs)
    for w, g in zip(want, got):
        assert g.shape == w.shape
        assert scaled_error(w, g) <= RELATIVE_TOLERANCE


def test_a_chain_with_too_many_layout_changes_stays_nchw():
    torch.manual_seed(4)
    module = SideOutputs().eval()
    module.convs = module.convs[:6]  # 3 layout changes for 6 convolutions
    _, pte = _lower(module, (torch.randn(1, 32, 20, 18),))
    assert not any("blocked" in op for op in pte.operators["forward"])


# -- Winograd ---------------------------------------------------------------------------


def _calls(pte, kernel: str) -> int:
    """How many instructions of `forward` call `kernel`."""
    plan = pte.inspect().program.execution_plan[0]
    return sum(plan.operators[i.op_index].qualified_name == kernel
               for i in plan.chains[0].instructions)


class WinogradChain(torch.nn.Module):
    """ResNet's shape at 16x16 (>= WINOGRAD_MIN_OUTPUT): a 3x3 16 -> 32
    entry convolution with relu, two basic blocks of 3x3 stride-1
    convolutions with residual adds (all five Winograd), then a stride-2
    block at 8x8 (its 3x3 stride-2, 3x3 stride-1 on the small map and 1x1
    downsample stay conv2d_blocked)."""

    def __init__(self, channels: int = 32) -> None:
        super().__init__()
        self.entry = torch.nn.Conv2d(16, channels, 3, 1, 1)
        self.blocks = torch.nn.Sequential(*(Block(channels, channels, stride)
                                            for stride in (1, 1, 2)))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(torch.relu(self.entry(x)))


@pytest.fixture(scope="module")
def winograd_chain():
    torch.manual_seed(6)
    module = WinogradChain().eval()
    inputs = (torch.randn(2, 16, 16, 16),)
    edge, pte = _lower(module, inputs)
    return module, inputs, edge, pte


def test_the_chain_runs_its_large_map_3x3_convolutions_as_winograd(winograd_chain):
    pte = winograd_chain[3]
    assert _calls(pte, WINOGRAD) == 5
    assert _calls(pte, CONV) == 3
    assert _calls(pte, TO) == 1 and _calls(pte, FROM) == 1
    assert "torchedge::conv2d_winograd.out" not in pte.operators["forward"]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_the_winograd_chain_matches_eager(winograd_chain, kernels, threads):
    _expect_matches_eager(winograd_chain, kernels, threads)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_the_winograd_chain_keeps_non_finite_inputs_as_eager(winograd_chain, kernels):
    module, inputs, _, pte = winograd_chain
    x = inputs[0].clone()
    x[1, 3, 7, 9] = math.nan  # one image's output goes NaN, the other's must not
    x[1, 5, 2, 2] = math.inf
    with torch.no_grad():
        want = module(x)
    got = _run(pte.buffer, kernels, x)
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.isfinite(got[0]).all()
    assert scaled_error(want[0], got[0]) <= RELATIVE_TOLERANCE, kernels


def test_winograd_filters_false_keeps_the_direct_blocked_convolutions(winograd_chain):
    module, inputs, edge, _ = winograd_chain
    pte = edge.to_pte(winograd_filters=False)
    assert _calls(pte, WINOGRAD) == 0 and _calls(pte, CONV) == 8
    with torch.no_grad():
        want = module(*inputs)
    got = _run(pte.buffer, "optimized", *inputs)
    assert scaled_error(want, got) <= RELATIVE_TOLERANCE


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_winograd_with_channels_not_divisible_by_16(kernels):
    torch.manual_seed(7)
    module = WinogradChain(channels=24).eval()  # 16 -> 24 -> ...: padded to 32 lanes
    inputs = (torch.randn(1, 16, 15, 14),)
    _, pte = _lower(module, inputs)
    assert _calls(pte, WINOGRAD) == 5  # 15x14 and 14x14 outputs, at the threshold
    with torch.no_grad():
        want = module(*inputs)
    got = _run(pte.buffer, kernels, *inputs)
    assert got.shape == want.shape
    assert scaled_error(want, got) <= RELATIVE_TOLERANCE


def _rewritten(module: torch.nn.Module, x: torch.Tensor, winograd: bool = True):
    """The forward graph after the fusion and the blocked-layout pass."""
    edge = torchedge.to_edge(torch.export.export(module.eval(), (x,)))
    ep = copy.deepcopy(edge.exported_program())
    fuse_conv_activations(ep.graph_module)
    blocked_layout.use_blocked_layout(ep, winograd=winograd)
    return ep


def _targets(ep) -> list[str]:
    return [n.target.name() for n in ep.graph.nodes if n.op == "call_function"
            and hasattr(n.target, "name")]


class SharedFilters(torch.nn.Module):
    """One 3x3 convolution applied eight times (one weight), relu between:
    eight convolutions for the two layout changes."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(16, 16, 3, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(8):
            x = torch.relu(self.conv(x))
        return x


def test_convolutions_sharing_a_weight_share_its_winograd_constant():
    ep = _rewritten(SharedFilters(), torch.randn(1, 16, 14, 14))
    assert _targets(ep).count("torchedge::conv2d_winograd_blocked") == 8
    lifted = [n.name for n in ep.graph.nodes if n.op == "placeholder"
              and n.name.endswith("_winograd_blocked")]
    assert len(lifted) == 1, lifted
    assert not any(n.name.endswith("_blocked") and not n.name.endswith("_winograd_blocked")
                   for n in ep.graph.nodes if n.op == "placeholder")


def test_the_output_threshold_and_non_finite_filters(monkeypatch):
    x = torch.randn(1, 16, 16, 16)
    monkeypatch.setattr(blocked_layout, "WINOGRAD_MIN_OUTPUT", 16)
    assert _targets(_rewritten(SharedFilters(), x)).count(
        "torchedge::conv2d_winograd_blocked") == 8
    monkeypatch.setattr(blocked_layout, "WINOGRAD_MIN_OUTPUT", 17)
    targets = _targets(_rewritten(SharedFilters(), x))
    assert "torchedge::conv2d_winograd_blocked" not in targets
    assert targets.count("torchedge::conv2d_blocked") == 8
    monkeypatch.setattr(blocked_layout, "WINOGRAD_MIN_OUTPUT", 16)
    module = SharedFilters()
    with torch.no_grad():
        module.conv.weight[3, 2, 0, 1] = math.inf  # the transform would spread it
    targets = _targets(_rewritten(module, x))
    assert "torchedge::conv2d_winograd_blocked" not in targets
    assert targets.count("torchedge::conv2d_blocked") == 8
    assert "torchedge::conv2d_winograd_blocked" not in _targets(
        _rewritten(SharedFilters(), x, winograd=False))


# -- 1-d convolutions --------------------------------------------------------------------


class FeatureExtractor(torch.nn.Module):
    """wav2vec2's conv feature extractor in small: a stride-5 stem on the
    raw signal (1 channel: stride 5 stays a plain convolution) and group
    norm, then 1-d convolutions of kernels 3 and 2, strides 2 and 1, with a
    GELU after each (the chain's joints), 40 channels (padding lanes
    through the GELUs), ending in a transpose to [N, L, C]."""

    def __init__(self, channels: int = 40) -> None:
        super().__init__()
        self.stem = torch.nn.Conv1d(1, channels, 10, 5, bias=False)
        self.norm = torch.nn.GroupNorm(channels, channels)
        self.convs = torch.nn.ModuleList([
            torch.nn.Conv1d(channels, channels, 3, 2, bias=False),
            torch.nn.Conv1d(channels, channels, 3, 1, 1),
            torch.nn.Conv1d(channels, channels, 2, 2, bias=False)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.gelu(self.norm(self.stem(x.unsqueeze(1))))
        for conv in self.convs:
            y = torch.nn.functional.gelu(conv(y))
        return y.transpose(1, 2)


@pytest.fixture(scope="module")
def feature_extractor():
    torch.manual_seed(7)
    module = FeatureExtractor().eval()
    inputs = (torch.randn(2, 803),)
    edge, pte = _lower(module, inputs)
    return module, inputs, edge, pte


def test_the_1d_chain_runs_blocked_through_its_gelus(feature_extractor):
    _, _, _, pte = feature_extractor
    # Each blocked convolution's GELU is in its epilogue; the stem's (after
    # the group norm) runs on the blocked tensor as it is.
    assert _calls(pte, CONV_GELU) == 3 and _calls(pte, CONV) == 0
    assert _calls(pte, "aten::gelu.out") == 1
    assert _calls(pte, TO) == 1 and _calls(pte, FROM) == 1  # one change in, one out
    assert _calls(pte, "aten::convolution.out") == 1        # the stride-5 stem


def test_a_gelu_is_fused_only_into_its_convolutions_sole_reader():
    """A convolution whose output a GELU and another convolution read keeps
    its GELU separate, a tanh GELU is never fused, an exact one that is the
    sole reader is; the program matches eager."""

    class Readers(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.a = torch.nn.Conv1d(32, 32, 3, 2)
            self.b = torch.nn.Conv1d(32, 32, 3, 1, 1)
            self.c = torch.nn.Conv1d(32, 32, 2, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.a(x)
            z = torch.nn.functional.gelu(self.b(torch.nn.functional.gelu(y)))
            w = torch.nn.functional.gelu(self.c(y), approximate="tanh")
            return torch.cat([z[..., :-1], w], 1)

    torch.manual_seed(9)
    module = Readers().eval()
    inputs = (torch.randn(1, 32, 97),)
    edge, pte = _lower(module, inputs)
    assert _calls(pte, CONV_GELU) == 1 and _calls(pte, CONV) == 2
    assert _calls(pte, "aten::gelu.out") == 2  # a's (two readers) and the tanh one
    for kernels in ("portable", "optimized"):
        _expect_matches_eager((module, inputs, edge, pte), kernels, 1)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_a_silu_spelled_out_is_fused_into_its_convolution(kernels):
    """A 2-d chain (stride-2 3x3 ends, no Winograd, one layout change) with
    x * sigmoid(x) after each convolution (transformers' MobileViT writes its
    SiLU so): the to_pte SiLU fusion makes each an
    aten.silu, which then goes into its convolution's epilogue
    (conv2d_blocked_silu); the program matches eager, inf / NaN included."""

    class Swish(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.convs = torch.nn.ModuleList(
                [torch.nn.Conv2d(3, 32, 3, 2, 1), torch.nn.Conv2d(32, 32, 1),
                 torch.nn.Conv2d(32, 64, 1), torch.nn.Conv2d(64, 16, 3, 2, 1)])

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            for conv in self.convs:
                x = conv(x)
                x = x * torch.sigmoid(x)
            return x

    torch.manual_seed(10)
    module = Swish().eval()
    x = torch.randn(1, 3, 20, 20) * 3  # RGB: the stem reads it as it is
    x[0, 0, 0, 0], x[0, 1, 5, 5] = math.inf, math.nan
    edge, pte = _lower(module, (x,))
    assert _calls(pte, CONV_SILU) == 4 and _calls(pte, CONV) == 0
    assert _calls(pte, "aten::silu.out") == 0 and _calls(pte, "aten::sigmoid.out") == 0
    _expect_matches_eager((module, (x,), edge, pte), kernels, 1)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_the_1d_chain_matches_eager(feature_extractor, kernels, threads):
    _expect_matches_eager(feature_extractor, kernels, threads)


def test_a_single_1d_convolution_stays_plain():
    torch.manual_seed(8)
    module = torch.nn.Sequential(torch.nn.Conv1d(32, 32, 3), torch.nn.GELU()).eval()
    _, pte = _lower(module, (torch.randn(1, 32, 50),))
    assert not any("blocked" in op for op in pte.operators["forward"])
