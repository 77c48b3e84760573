"""The XNNPACK delegate on PT2E-quantized (static int8) programs.

The quantized program (TorchEdgeQuantizer, calibrated on random inputs) is
lowered with XnnpackPartitioner and run through the .pte and the C++
runtime; the reference is the converted PT2E model in eager PyTorch
(`ep.module()`: quantize/dequantize ops, float compute).

Tolerance: the model's outputs are dequantized int8 values, so they agree
up to whole quantization steps. XNNPACK requantizes in float32 with an int32
bias (bias rounded to input scale * weight scale), the reference in float32
with a float bias, and its average pooling rounds ties its own way, so a
value within rounding of a .5 tie may land one step away at a layer, which
can carry through later layers. Over 64 samples we allow at most 2 steps of
the output scale on any element and 0.25 steps on average, and require top-1
agreement on >= 95% of the samples.
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

import torchedge
from torchedge import quantization as tq
from torchedge.backends.xnnpack import XnnpackPartitioner

STEPS = 2


class SmallCnn(nn.Module):
    """conv-bn-relu, depthwise + residual add, max/avg pooling, GAP, linear."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
        self.pw = nn.Conv2d(16, 24, 1)
        self.act = nn.Hardtanh(0.0, 6.0)
        self.fc = nn.Linear(24, 10)

    def forward(self, x):
        y = self.stem(x)
        y = self.dw(y) + y
        y = nn.functional.max_pool2d(y, 2)
        y = self.act(self.pw(y))
        y = nn.functional.avg_pool2d(y, 2)
        y = nn.functional.adaptive_avg_pool2d(y, 1).flatten(1)
        return self.fc(y)


def _quantize(model: nn.Module, shape, batches: int = 8):
    torch.manual_seed(0)
    model.eval()
    example = (torch.randn(shape),)
    calibration = [(torch.randn(shape),) for _ in range(batches)]
    # Unfused (quantize/dequantize form): the delegate is what these tests exercise.
    return tq.quantize_pt2e(model, example, calibration, fuse_static_int8=False)


def _lower(ep):
    edge = torchedge.to_edge(ep).to_backend(XnnpackPartitioner())
    return edge, torchedge.runtime.load(edge.to_pte().buffer)


def _first(out):
    return out[0] if isinstance(out, (list, tuple)) else out


def _output_scale(ep) -> float:
    """The scale of the last dequantize (the model's float output)."""
    dq = torch.ops.quantized_decomposed.dequantize_per_tensor.default
    last = [n for n in ep.graph.nodes if n.op == "call_function" and n.target is dq][-1]
    return float(last.args[1])


@pytest.fixture(scope="module")
def small_cnn():
    torch.manual_seed(1)
    model = SmallCnn().eval()
    ep = _quantize(model, (4, 3, 16, 16))
    edge, runtime = _lower(ep)
    return model, ep, edge, runtime


def test_int8_program_matches_eager_quantized_reference(small_cnn):
    model, ep, _, runtime = small_cnn
    scale = _output_scale(ep)
    torch.manual_seed(2)
    steps, agree, sqnr = [], [], []
    for _ in range(16):  # 64 samples
        x = torch.randn(4, 3, 16, 16)
        ref = ep.module()(x)
        got = _first(runtime.forward(x))
        steps.append(((got - ref).abs() / scale).round())
        agree.append(got.argmax(1) == ref.argmax(1))
        # And it is a quantized version of the float model, not something else.
        float_out = model(x)
        sqnr.append(10 * torch.log10(float_out.pow(2).mean() / (got - float_out).pow(2).mean()))
    steps, agree = torch.cat(steps), torch.cat(agree).float()
    # Measured: max 1 step, mean 0.07 steps, 93% exact, top-1 64/64, SQNR ~20 dB.
    assert steps.max().item() <= STEPS, steps.max().item()
    assert steps.mean().item() <= 0.25, steps.mean().item()
    assert agree.mean().item() >= 0.95, agree.mean().item()
    assert min(s.item() for s in sqnr) > 12, sqnr


def test_report_says_what_runs_in_int8_and_why_not(small_cnn):
    _, _, edge, _ = small_cnn
    report = str(edge.delegation_report)
    decisions = edge.delegation_report.decisions["forward"]
    assert all(d.delegated for d in decisions), report
    notes = {d.operator: d.reason for d in decisions if d.reason}
    int8 = [d for d in decisions if d.reason.startswith("int8")]
    # stem conv, depthwise, pointwise conv, add, max pool, global average pool, linear
    assert sum("conv" in d.reason for d in int8) == 3, report
    for kind in ("add", "max_pool", "mean", "linear"):
        assert any(f"({kind}," in d.reason for d in int8), (kind, report)
    # avg_pool2d has no int8 XNNPACK operator here: float32 between converts, with the reason.
    assert "float32 inside the delegate" in notes["aten.avg_pool2d.default"], report
    assert "note  aten.convolution.default" in report


def test_int8_weights_make_the_file_smaller(small_cnn):
    model, _, edge, _ = small_cnn
    float_edge = torchedge.to_edge(torch.export.export(model, (torch.randn(4, 3, 16, 16),)))
    float_size = len(float_edge.to_backend(XnnpackPartitioner()).to_pte().buffer)
    int8_size = len(edge.to_pte().buffer)
    weights = sum(p.numel() for p in model.parameters())
    # int8 weights save 3 bytes per weight; int32 biases save nothing, and
    # the int8 graph's extra nodes (converts; 20 bytes and more each, debug
    # handle included) and quantization parameters take part of it back.
    assert float_size - int8_size > 1.75 * weights, (float_size, int8_size, weights)


class Int8Boundary(nn.Module):
    """int8 in and out: dequantize -> conv -> relu -> quantize, on a uint8-free graph."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(4, 6, 3, padding=1)

    def forward(self, xq):
        ops = torch.ops.quantized_decomposed
        x = ops.dequantize_per_tensor.default(xq, 0.05, 3, -128, 127, torch.int8)
        y = torch.relu(self.conv(x))
        return ops.quantize_per_tensor.default(y, 0.04, -128, -128, 127, torch.int8)


def test_int8_tensors_cross_the_delegate_boundary():
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers the ops)

    torch.manual_seed(3)
    model = Int8Boundary().eval()
    xq = torch.randint(-128, 128, (2, 4, 8, 8), dtype=torch.int8)
    ep = torch.export.export(model, (xq,))
    edge, runtime = _lower(ep)
    assert all(d.delegated for d in edge.delegation_report.decisions["forward"])
    got = _first(runtime.forward(xq))
    ref = model(xq)
    assert got.dtype == torch.int8
    assert (got.int() - ref.int()).abs().max().item() <= 1
    assert (got == ref).float().mean().item() >= 0.95


def test_quantized_linear_with_relu_runs_in_int8():
    torch.manual_seed(4)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 8)).eval()
    ep = _quantize(model, (5, 32))
    edge, runtime = _lower(ep)
    decisions = edge.delegation_report.decisions["forward"]
    assert sum(d.reason.startswith("int8 (linear") for d in decisions) == 2, edge.delegation_report
    x = torch.randn(5, 32)
    ref, got = ep.module()(x), _first(runtime.forward(x))
    assert ((got - ref).abs() / _output_scale(ep)).round().max().item() <= STEPS


def test_blob_writer_rejects_bad_quantization_parameters():
    from torchedge.backends.xnnpack.blob_writer import BlobWriter, QParams

    writer = BlobWriter()
    for bad in (QParams(0.0, 0), QParams(float("nan"), 0), QParams(-1.0, 0), QParams(0.1, 128)):
        with pytest.raises(ValueError):
            writer.add_internal((4,), bad)
    with pytest.raises(ValueError):  # one scale per channel
        writer.add_channelwise_constant(torch.zeros(2, 3, dtype=torch.int8), 0, [0.1])
    with pytest.raises(ValueError):
        writer.add_channelwise_constant(torch.zeros(2, dtype=torch.int32), 0, [0.1, float("inf")])


def _digits():
    """tests/quantization/digits.py: the trained digits models QPY's tests use."""
    import sys
    from pathlib import Path

    path = str(Path(__file__).resolve().parents[1] / "quantization")
    if path not in sys.path:
        sys.path.insert(0, path)
    import digits

    return digits


def test_trained_digits_cnn_agrees_with_eager_reference():
    """Real data (scikit-learn digits): a trained CNN with a concatenation,
    which XNNPACK 2022 cannot run, so the program has two int8 delegates with
    the cat (and its quantize/dequantize) on the CPU kernels between them."""
    import copy

    digits = _digits()
    data = digits.load_digits()
    torch.manual_seed(digits.SEED)
    # 3 epochs (QPY's tests train 8): enough to learn digits, and keeps this test ~15 s.
    model = digits.train(digits.DigitsCNN(), data, epochs=3, flat=False, lr=5e-3)
    example = data.batches("train")[0]
    ep = tq.quantize_pt2e(copy.deepcopy(model), (example,), data.batches("train")[:4],
                          fuse_static_int8=False)
    edge, runtime = _lower(ep)
    decisions = edge.delegation_report.decisions["forward"]
    assert any(d.operator == "aten.cat.default" and not d.delegated for d in decisions)
    assert sum(d.reason.startswith("int8") for d in decisions) >= 4, edge.delegation_report

    batches, labels = data.batches("test"), data.labels("test")
    reference = digits.predictions(ep.module(), batches)
    delegated = digits.predictions(lambda b: _first(runtime.forward(b)), batches)
    agreement = (reference == delegated).double().mean().item()
    float_accuracy = digits.accuracy(model, batches, labels)
    int8_accuracy = (delegated == labels).double().mean().item()
    # Measured: agreement 100% on the 360 test digits; accuracy float 0.908, int8
    # (eager reference and delegated) 0.908; with 8 epochs 0.978 for all three.
    assert agreement >= 0.995, agreement
    assert int8_accuracy >= float_accuracy - 0.03, (float_accuracy, int8_accuracy)
