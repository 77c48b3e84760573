"""Lowering quantized programs: kernel names, packed constants, file sizes, bad input.

These tests read the emitted program (only the batch-norm folding test runs it).
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn as nn

import torchedge
import torchedge.runtime
from torchedge import quantization as tq
from torchedge.aten.dtypes import SCALAR_TYPES
from torchedge.errors import ExportError
from torchedge.serialize import schema as s

Q = "quantized_decomposed::"
# Static int8 linear and conv layers are fused (static_int8_fusion.py): their
# weights reach the int8 kernels as they are stored, never dequantized.
STATIC_KERNELS = {Q + "quantize_per_tensor.out", Q + "dequantize_per_tensor.out",
                  "torchedge::quantized_linear.out"}
EXPECTED_KERNELS = {
    "static": STATIC_KERNELS,
    "qat": STATIC_KERNELS,
    "dynamic": {"torchedge::linear_dynamic_int8_packed.out"},  # weights packed at export
    "dynamic_unfused": {Q + "choose_qparams.Tensor_out", Q + "quantize_per_tensor.tensor_out",
                        Q + "dequantize_per_tensor.tensor_out", Q + "dequantize_per_channel.out"},
    "int8_weight_only": {Q + "dequantize_per_channel.out"},
    "int4_weight_only": {"torchedge::linear_int4_weight_only.out"},
    "8da4w": {"torchedge::linear_8da4w_packed.out"},  # symmetric weights, blocked layout
}
_DTYPE_OF = {int(code): dtype for dtype, code in SCALAR_TYPES.items()}


def constant_bytes_by_dtype(program: torchedge.PteProgram) -> dict[torch.dtype, int]:
    """Bytes of stored constant tensors per dtype."""
    totals: dict[torch.dtype, int] = {}
    for plan in program.inspect().program.execution_plan:
        for value in plan.values:
            if isinstance(value, s.Tensor) and value.data_buffer_idx > 0:
                dtype = _DTYPE_OF[int(value.scalar_type)]
                count = 1
                for size in value.sizes:
                    count *= size
                totals[dtype] = totals.get(dtype, 0) + count * dtype.itemsize
    return totals


@pytest.mark.parametrize("model,flow", [
    ("cnn", "static"), ("cnn", "qat"), ("mlp", "static"), ("mlp", "dynamic"),
    ("mlp", "dynamic_unfused"), ("mlp", "qat"),
    ("mlp", "int8_weight_only"), ("mlp", "int4_weight_only"), ("mlp", "8da4w"),
])
def test_flow_emits_quantized_kernels_and_packed_weights(flows, model, flow):
    program = flows.get(model, flow).program
    kernels = set(program.operators["forward"])
    assert EXPECTED_KERNELS[flow] <= kernels, kernels
    constants = constant_bytes_by_dtype(program)
    four_bit = flow in ("int4_weight_only", "8da4w")
    weights = constants.get(torch.uint8 if four_bit else torch.int8, 0)
    # What stays float: biases and scales (4-bit, group size 32: 4 bytes per 16 weight bytes).
    assert weights > 0 and constants.get(torch.float32, 0) < (0.4 if four_bit else 0.2) * weights, constants


@pytest.mark.parametrize("model,flow", [("cnn", "static"), ("cnn", "qat"), ("mlp", "static")])
def test_static_flows_run_every_layer_in_int8(flows, model, flow):
    kernels = set(flows.get(model, flow).program.operators["forward"])
    assert not {Q + "dequantize_per_channel.out", "aten::addmm.out", "aten::mm.out",
                "aten::convolution.out"} & kernels, kernels
    if model == "cnn":
        assert "torchedge::conv2d_int8.out" in kernels


def test_dynamic_flow_keeps_convolutions_float(flows):
    program = flows.get("mlp", "dynamic_unfused").program
    assert "aten::addmm.out" in program.operators["forward"]


def test_dynamic_flow_fuses_every_linear(flows):
    """Every linear of the MLP becomes one fused int8 op; nothing of the
    five-op form (or a float GEMM) is left."""
    kernels = set(flows.get("mlp", "dynamic").program.operators["forward"])
    assert "torchedge::linear_dynamic_int8_packed.out" in kernels  # weights packed at export
    assert not kernels & (EXPECTED_KERNELS["dynamic_unfused"] | {"aten::addmm.out", "aten::mm.out"})


class WideMLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 256))

    def forward(self, x):
        return self.layers(x)


def test_file_sizes_shrink_with_int8_and_int4():
    torch.manual_seed(0)
    model = WideMLP().eval()
    x = torch.randn(1, 256)

    def size(m: nn.Module) -> int:
        return len(torchedge.to_edge(torch.export.export(m, (x,))).to_pte().buffer)

    float_size = size(model)
    static = tq.quantize_pt2e(copy.deepcopy(model), (x,), [(torch.randn(1, 256),)])
    sizes = {
        "int8 static": len(torchedge.to_edge(static).to_pte().buffer),
        "int8 weight-only": size(tq.quantize_linear_weights(copy.deepcopy(model), "int8_weight_only")),
        "int4 g128": size(tq.quantize_linear_weights(copy.deepcopy(model), "int4_weight_only", group_size=128)),
        "8da4w g32": size(tq.quantize_linear_weights(copy.deepcopy(model), "8da4w", group_size=32)),
    }
    ratios = {name: float_size / b for name, b in sizes.items()}
    print(f"\nfloat {float_size} B; " + ", ".join(f"{n} {sizes[n]} B (x{r:.2f})" for n, r in ratios.items()))
    # int8: 1 byte per weight + per row a float32 bias and scale (and, PT2E, an int64
    # zero point); int4: 1/2 byte + 4 / group_size bytes of scale per weight.
    assert ratios["int8 static"] > 3.6 and ratios["int8 weight-only"] > 3.7, ratios
    assert ratios["int4 g128"] > 7.0, ratios
    assert ratios["8da4w g32"] > 6.0, ratios


# -- bad input ------------------------------------------------------------------------


def test_unsupported_operator_group_is_named():
    with pytest.raises(ValueError, match="'softmax'.*supported: add, cat, conv, linear, pool, relu, reshape"):
        tq.TorchEdgeQuantizer(operators=["conv", "softmax"])
    with pytest.raises(ValueError, match="'conv' cannot be quantized by TorchEdgeQuantizer in dynamic mode"):
        tq.TorchEdgeQuantizer(tq.dynamic_config(), operators=["conv"])


def test_unsupported_config_is_named():
    with pytest.raises(ValueError, match="unsupported quantization mode 'int4'"):
        tq.QuantConfig(mode="int4")
    with pytest.raises(ValueError, match="unsupported activation_observer 'percentile'"):
        tq.QuantConfig(activation_observer="percentile")
    with pytest.raises(ValueError, match="unsupported linear quantization scheme 'int2_weight_only'"):
        tq.quantize_linear_weights(nn.Sequential(nn.Linear(64, 8)), "int2_weight_only")
    with pytest.raises(ValueError, match="group_size 48 is not supported"):
        tq.quantize_linear_weights(nn.Sequential(nn.Linear(96, 8)), "8da4w", group_size=48)
    with pytest.raises(ValueError, match="layer '1': in_features \\(K\\) 100 is not a multiple of group_size 32"):
        tq.quantize_linear_weights(nn.Sequential(nn.Linear(64, 100), nn.Linear(100, 8)), "8da4w")
    x = torch.randn(2, 64)
    with pytest.raises(ValueError, match="static quantization needs calibration_data"):
        tq.quantize_pt2e(nn.Sequential(nn.Linear(64, 8)), (x,))
    with pytest.raises(ValueError, match="QAT needs train="):
        tq.quantize_pt2e(nn.Sequential(nn.Linear(64, 8)), (x,), config=tq.qat_config())
    with pytest.raises(ValueError, match="found nothing to quantize"):
        tq.quantize_pt2e(nn.Softmax(dim=-1), (x,), [(x,)])


class UsesGroupQuantize(nn.Module):
    """Calls a quantize op the runtime has no kernel for."""

    def forward(self, x):
        scales = torch.ones(4, 2)
        zero_points = torch.zeros(4, 2, dtype=torch.int32)
        return torch.ops.quantized_decomposed.quantize_per_channel_group(
            x, scales, zero_points, -8, 7, torch.int8, 32)


def test_lowering_names_a_quantized_op_without_kernel():
    ep = torch.export.export(UsesGroupQuantize(), (torch.randn(4, 64),))
    with pytest.raises(ExportError, match="quantized_decomposed.quantize_per_channel_group.*no out variant"):
        torchedge.to_edge(ep)


class ConvBnRelu(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return self.fc(torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


# QAT with batch norm works too (prepare_qat_pt2e simulates the fold, convert_pt2e
# folds), but torchao's convert then exports ~100 pattern graphs (about a minute),
# too slow for this suite; the digits QAT tests cover QAT without batch norm.
def test_batch_norm_is_folded_into_the_quantized_convolution():
    torch.manual_seed(0)
    x = torch.randn(4, 3, 8, 8)
    batches = [torch.randn(4, 3, 8, 8) for _ in range(3)]
    ep = tq.quantize_pt2e(ConvBnRelu().eval(), (x,), batches)
    program = torchedge.to_edge(ep).to_pte()
    kernels = program.operators["forward"]
    assert not any("batch_norm" in k for k in kernels), kernels
    assert STATIC_KERNELS <= set(kernels)
    report = tq.compare(ep.module(), ep.module(), torchedge.runtime.load(program.buffer), batches)
    assert report.runtime_vs_reference.sqnr_db > 40, report
