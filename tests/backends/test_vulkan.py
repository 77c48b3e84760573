"""The Vulkan delegate end to end: every zoo model delegated to Vulkan and
run by the C++ runtime matches eager PyTorch; single operators with their
attributes (broadcasting, strides, groups, dims) do too; a model with an
unsupported operator runs across the graph breaks; the delegation report
says what stayed on the CPU and why.

Runs on Mesa's lavapipe (VK_ICD_FILENAMES -> lvp_icd) unless the
environment picks a driver (scripts/vulkan_device_check.sh). Skipped, with
the reason, only where this build has no Vulkan delegate or no device.

Tolerance (float32): operators, torch.testing.assert_close with
rtol = atol = 1e-4; zoo models, max |vulkan - eager| <= 1e-4 * max(1,
max |eager|) over every output (vulkan_zoo.py).
"""

from __future__ import annotations

import pytest
import torch
from torch import nn

import torchedge
from torchedge import runtime
from torchedge.backends import LoweredModule
from torchedge.models.zoo_common import ZOO_MODELS

from vulkan_zoo import TOLERANCE, run_zoo_model, use_lavapipe_unless_chosen, vulkan_unavailable_reason

use_lavapipe_unless_chosen()
_REASON = vulkan_unavailable_reason()
pytestmark = pytest.mark.skipif(_REASON is not None, reason=_REASON or "")

OP_TOLERANCE = dict(rtol=1e-4, atol=1e-4)

# What each zoo model leaves on the CPU kernels (operator names), so a
# regression in coverage fails here rather than only slowing down.
EXPECTED_KEPT = {
    "swin_block": {"aten.index.Tensor", "aten.index_select.default"},
    "bert_minilm": {"aten.embedding.default", "aten.unsqueeze_copy.default", "aten._to_copy.default"},
    "llama_decoder": {"aten.embedding.default"},
    "lstm_classifier": {"aten.embedding.default"},
    "unet_small": {"aten.convolution.default"},  # transposed
}


def lower(module: nn.Module, inputs: tuple):
    from torchedge.backends.vulkan import VulkanPartitioner

    edge = torchedge.to_edge(torch.export.export(module.eval(), inputs))
    edge = edge.to_backend(VulkanPartitioner())
    return edge, edge.to_pte()


def run(module: nn.Module, *inputs: torch.Tensor):
    edge, pte = lower(module, inputs)
    out = runtime.load(pte.buffer).forward(*inputs)
    with torch.no_grad():
        ref = module(*inputs)
    return edge, out, ref


def delegates(edge) -> int:
    return sum(1 for n in edge.exported_program().graph.nodes if isinstance(n.target, LoweredModule))


@pytest.mark.parametrize("name", ZOO_MODELS)
def test_zoo_model_matches_eager_on_vulkan(name):
    result = run_zoo_model(name)
    assert result.error <= TOLERANCE, f"{name}: max relative difference {result.error:.3e}"
    kept = {op for op, _ in result.kept}
    assert kept == EXPECTED_KEPT.get(name, set()), f"{name}: left on the CPU: {result.kept}"
    assert result.delegates >= 1


class _Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def r(*shape):
    return torch.randn(*shape)


F = torch.nn.functional
OPS = {
    "add_broadcast": (lambda a, b: a + 2 * b, (r(2, 3, 4), r(3, 1))),
    "sub_alpha": (lambda a, b: torch.sub(a, b, alpha=0.5), (r(4, 5), r(5))),
    "mul_div": (lambda a, b: a * b / (b.abs() + 1), (r(2, 1, 4), r(3, 1))),
    "max_min_pow": (lambda a, b: torch.maximum(a, b) - torch.minimum(a, b) + a.abs() ** b.abs(),
                    (r(3, 4), r(3, 4))),
    "scalars": (lambda a: (3 - (a + 1) * 2) / 4 - a ** 2 + (a.abs() + 1) ** 0.5, (r(5, 6),)),
    "activations": (lambda a: torch.cat([F.relu(a), F.relu6(a * 4), F.hardtanh(a, -0.5, 0.5),
                                         F.gelu(a), F.gelu(a, approximate="tanh"),
                                         torch.sigmoid(a), torch.tanh(a * 3), F.silu(a),
                                         F.hardswish(a * 3), F.hardsigmoid(a * 3),
                                         F.leaky_relu(a), a.exp(), (a.abs() + 1).log().rsqrt(),
                                         torch.clamp(a, min=-0.2), torch.erf(a)], 1), (r(4, 8),)),
    "softmax_dims": (lambda a: torch.softmax(a, 1) + torch.log_softmax(a, -1), (r(2, 5, 7),)),
    "layer_norm": (nn.LayerNorm(16), (r(2, 3, 16),)),
    "layer_norm_no_affine": (nn.LayerNorm(16, elementwise_affine=False), (r(3, 16),)),
    "mean_sum_amax": (lambda a: a.mean((2, 3), keepdim=True).sum() + a.amax(1).mean(-1).sum(0),
                      (r(2, 3, 4, 5),)),
    "views": (lambda a: a.permute(2, 0, 1).reshape(5, 6)[1:4:2, ::2].t().contiguous()
              + a.transpose(0, 1).select(2, 3).expand(4, 3, 2).sum(0).t().unsqueeze(-1).mean(),
              (r(2, 3, 5),)),
    "cat_split": (lambda a, b: torch.cat([*torch.split(a, [1, 3], 1), b], 1) * 2, (r(2, 4, 3), r(2, 2, 3))),
    "linear": (nn.Linear(24, 10), (r(7, 24),)),
    "linear_batched_relu": (nn.Sequential(nn.Linear(24, 10), nn.ReLU()), (r(2, 3, 24),)),
    "bmm": (lambda a, b: torch.bmm(a, b), (r(3, 5, 7), r(3, 7, 6))),
    "matmul_broadcast": (lambda a, b: a @ b, (r(2, 3, 5, 7), r(7, 4))),
    "sdpa": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v), (r(1, 2, 9, 8), r(1, 2, 9, 8), r(1, 2, 9, 8))),
    "sdpa_causal": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
                    (r(1, 2, 6, 4), r(1, 2, 6, 4), r(1, 2, 6, 4))),
    "conv_stride_pad_dil": (nn.Conv2d(3, 8, 3, stride=2, padding=2, dilation=2), (r(2, 3, 13, 11),)),
    "conv_groups": (nn.Conv2d(6, 12, 3, padding=1, groups=3), (r(1, 6, 7, 9),)),
    "conv_depthwise": (nn.Sequential(nn.Conv2d(8, 8, 5, padding=2, groups=8, bias=False), nn.ReLU6()),
                       (r(1, 8, 10, 10),)),
    "conv_pointwise": (nn.Conv2d(16, 12, 1), (r(1, 16, 5, 6),)),
    "conv1d": (nn.Conv1d(4, 6, 3, stride=2, padding=1), (r(2, 4, 17),)),
    "max_pool": (nn.MaxPool2d(3, stride=2, padding=1), (r(1, 3, 9, 10),)),
    "max_pool_ceil": (nn.MaxPool2d(2, ceil_mode=True), (r(1, 2, 7, 7),)),
    "avg_pool_pad": (nn.AvgPool2d(3, stride=2, padding=1), (r(1, 3, 9, 10),)),
    "avg_pool_no_pad_count": (nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
                              (r(1, 3, 9, 10),)),
    "adaptive_avg_pool": (nn.AdaptiveAvgPool2d((3, 2)), (r(1, 4, 7, 5),)),
    "upsample_nearest": (nn.Upsample(scale_factor=2, mode="nearest"), (r(1, 3, 5, 4),)),
    "upsample_nearest_size": (nn.Upsample(size=(7, 9), mode="nearest"), (r(1, 2, 5, 4),)),
    "upsample_bilinear": (nn.Upsample(scale_factor=2, mode="bilinear"), (r(1, 3, 5, 4),)),
    "upsample_bilinear_align": (nn.Upsample(size=(9, 6), mode="bilinear", align_corners=True),
                                (r(2, 3, 5, 4),)),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_operator_matches_eager(name):
    fn, inputs = OPS[name]
    module = fn if isinstance(fn, nn.Module) else _Fn(fn)
    torch.manual_seed(0)
    edge, out, ref = run(module, *inputs)
    assert not edge.delegation_report.rejected(), str(edge.delegation_report)
    torch.testing.assert_close(out, ref, **OP_TOLERANCE)


class _Breaks(nn.Module):
    """conv -> transposed conv (no shader: CPU) -> conv -> int64 argmax (CPU)."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.up = nn.ConvTranspose2d(8, 8, 2, stride=2)
        self.b = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        y = self.up(torch.relu(self.a(x)))
        z = torch.sigmoid(self.b(y))
        return z, z.argmax(1)


def test_graph_breaks_run_correctly():
    x = r(1, 3, 12, 12)
    module = _Breaks().eval()
    edge, out, ref = run(module, x)
    report = edge.delegation_report
    kept = {d.operator: d.reason for d in report.rejected()}
    assert "transposed convolution" in kept["aten.convolution.default"]
    assert "int64" in kept["aten.argmax.default"] or "no shader" in kept["aten.argmax.default"]
    assert delegates(edge) == 2
    torch.testing.assert_close(out[0], ref[0], **OP_TOLERANCE)
    assert torch.equal(out[1], ref[1])
    assert "kept  aten.convolution.default" in str(report)


def test_report_names_why_nodes_stay_on_the_cpu():
    edge, _ = lower(_Fn(lambda a, i: a * 2 + (i * 3).float()), (r(4, 3), torch.arange(12).reshape(4, 3)))
    reasons = {d.operator: d.reason for d in edge.delegation_report.rejected()}
    assert any("int64" in reason for reason in reasons.values()), reasons


def test_runtime_errors_are_reported_not_crashes():
    from torchedge import _C

    edge, pte = lower(nn.Linear(4, 2), (r(3, 4),))
    m = runtime.load(pte.buffer)
    with pytest.raises(Exception, match="shape|size"):
        m.forward(r(5, 4))
    assert _C.vulkan_live_delegates() >= 0
