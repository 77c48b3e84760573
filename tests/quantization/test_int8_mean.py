"""torchedge::mean_hw_int8 (python/torchedge/quantization/int8_pool_ops.py), its
fusion (static_int8_fusion._match_mean) and its runtime kernel
(kernels/quantized/op_mean_hw_int8.cpp): PyTorch's quantized average pooling
bit for bit, the runtime bit for bit with eager, within one step of the float
mean it replaces, and the float32 copy of the pooled activation gone."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import torchedge
from torchedge import models, runtime
from torchedge import quantization as tq
from torchedge.quantization import int8_pool_ops

te = torch.ops.torchedge
qd = torch.ops.quantized_decomposed
MEAN = te.mean_hw_int8.default


def _qint8(shape, scale, zero_point, seed):
    g = torch.Generator().manual_seed(seed)
    q = torch.randint(-128, 128, shape, dtype=torch.int8, generator=g)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return q, torch._make_per_tensor_quantized_tensor(q, scale, zero_point)


@pytest.mark.parametrize("shape", [(1, 64, 25, 5), (2, 3, 4, 6), (1, 8, 2, 2), (1, 5, 1, 1),
                                   (3, 2, 7, 9), (1, 4, 16, 16)])
@pytest.mark.parametrize("zero_point", [-128, -3, 0, 1, 127])
def test_matches_pytorch_quantized_average_pooling(shape, zero_point):
    """Shared quantization (as the quantizer sets it): PyTorch's quantized
    adaptive_avg_pool2d and avg_pool2d on qint8, bit for bit."""
    for seed in range(3):
        q, xq = _qint8(shape, 0.0371, zero_point, seed)
        want = F.adaptive_avg_pool2d(xq, 1).int_repr()
        got = MEAN(q, 0.0371, zero_point, True, 0.0371, zero_point, -128, 127)
        assert torch.equal(got, want), seed
        assert torch.equal(F.avg_pool2d(xq, shape[2:]).int_repr(), want)


def test_other_output_quantization_is_within_one_step_of_the_float_mean():
    for seed in range(5):
        q, _ = _qint8((2, 6, 5, 7), 0.02, 5, seed)
        got = MEAN(q, 0.02, 5, False, 0.013, -9, -128, 127)
        x = qd.dequantize_per_tensor.default(q, 0.02, 5, -128, 127, torch.int8)
        want = qd.quantize_per_tensor.default(x.mean((2, 3)), 0.013, -9, -128, 127, torch.int8)
        assert got.shape == (2, 6)
        assert (got.int() - want.int()).abs().max() <= 1


def test_rejects_malformed_arguments():
    q = torch.zeros(1, 2, 3, 3, dtype=torch.int8)
    with pytest.raises(ValueError, match="rank 4"):
        MEAN(q[0], 0.1, 0, True, 0.1, 0, -128, 127)
    with pytest.raises(ValueError, match="input_scale"):
        MEAN(q, 0.0, 0, True, 0.1, 0, -128, 127)
    with pytest.raises(ValueError, match="output_min"):
        MEAN(q, 0.1, 0, True, 0.1, 0, 5, 4)


class Pools(nn.Module):
    """Every form of a whole-plane average the fusion knows, and one it must leave."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        y = F.relu(self.conv(x))
        return (F.adaptive_avg_pool2d(y, 1), y.mean((-2, -1)), F.avg_pool2d(y, (6, 5)),
                F.avg_pool2d(y, 2))


def _quantized(model: nn.Module, shape, fuse: bool = True):
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    batches = [(torch.randn(shape, generator=g),) for _ in range(4)]
    return tq.quantize_pt2e(model.eval(), batches[0], batches, fuse_static_int8=fuse)


def test_whole_plane_averages_are_fused_and_the_runtime_is_bit_exact():
    torch.manual_seed(0)
    model = Pools()
    fused, unfused = _quantized(model, (2, 3, 6, 5)), _quantized(model, (2, 3, 6, 5), False)
    targets = [n.target for n in fused.graph.nodes if n.op == "call_function"]
    assert targets.count(MEAN) == 3
    assert targets.count(torch.ops.aten.avg_pool2d.default) == 1  # 2x2 windows: left alone
    program = torchedge.to_edge(fused).to_pte()
    assert "torchedge::mean_hw_int8.out" in program.operators["forward"]
    loaded = runtime.load(program.buffer, kernels="portable")
    for seed in range(4):
        x = torch.randn(2, 3, 6, 5, generator=torch.Generator().manual_seed(seed)) * (1 + seed)
        got, want, reference = loaded.forward(x), fused.module()(x), unfused.module()(x)
        for i in range(3):
            assert torch.equal(got[i], want[i]), (seed, i)
            step = next(n for n in fused.graph.nodes if n.target == MEAN).args[4]
            assert ((want[i] - reference[i]) / step).abs().max() <= 1 + 1e-3, (seed, i)


def test_ds_cnn_int8_has_no_float_copy_of_the_pooled_activation():
    """The DS-CNN (docs/cortex-m.md): the last 64x25x5 activation is averaged
    in int8, so no float32 tensor larger than the 64 pooled values remains and
    the planned arena is two int8 activations at most (one with in-place
    planning: tests/quantization/test_int8_in_place.py)."""
    spec = models.get("ds_cnn_kws")
    g = torch.Generator().manual_seed(1234)
    x = torch.randn(1, 1, 49, 10, generator=g)
    ep = tq.quantize_pt2e(spec.module, (x,), [(torch.randn(x.shape, generator=g),) for _ in range(4)])
    edge = torchedge.to_edge(ep)
    floats = [n for n in edge.exported_program().graph.nodes if n.op == "call_function"
              and n.meta["val"].dtype == torch.float32 and n.meta["val"].numel() > 64]
    assert not floats, [(n.target, list(n.meta["val"].shape)) for n in floats]
    # The flatten before the classifier shares the pool's quantization and
    # moves onto the int8 tensor: one dequantize left, the output's.
    targets = [n.target for n in edge.exported_program().graph.nodes if n.op == "call_function"]
    assert sum("dequantize_per_tensor" in str(t) for t in targets) == 1, targets
    program = edge.to_pte()
    assert "torchedge::mean_hw_int8.out" in program.operators["forward"]
    assert program.memory_plan["forward"].arena_bytes <= 2 * 64 * 25 * 5 + 2048


def test_the_op_is_registered_with_its_out_variant():
    assert hasattr(te.mean_hw_int8, "out")
    assert int8_pool_ops.MEAN_OP_NAME == "mean_hw_int8"
