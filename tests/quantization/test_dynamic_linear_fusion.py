"""fuse_dynamic_linear (python/torchedge/quantization/dynamic_linear_fusion.py):
which graphs it rewrites, that the eager quantized model computes exactly
what it computed before, and that the runtime's int8 kernel matches it."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

import torchedge
from torchedge import quantization as tq
from torchedge import runtime


class Block(nn.Module):
    """Linear layers as a transformer uses them: 3-D tokens, shared input, no-bias layer."""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.k = nn.Linear(24, 24), nn.Linear(24, 24)
        self.up, self.down = nn.Linear(24, 64), nn.Linear(64, 24, bias=False)

    def forward(self, x):
        h = self.q(x) * self.k(x)
        return self.down(torch.relu(self.up(h))) + x


def _inputs(seed: int = 0) -> torch.Tensor:
    return torch.randn(2, 10, 24, generator=torch.Generator().manual_seed(seed))


def _quantize(fuse: bool, siblings: bool = True, model: type = None, pack: bool = False
              ) -> torch.export.ExportedProgram:
    torch.manual_seed(0)
    model = (model or Block)()
    return tq.quantize_pt2e(model.eval(), (_inputs(),), config=tq.dynamic_config(),
                            fuse_dynamic_linear=fuse, fuse_siblings=siblings, pack_weights=pack)


def _targets(ep: torch.export.ExportedProgram) -> list:
    return [n.target for n in ep.graph.nodes if n.op == "call_function"]


def test_every_linear_is_fused_and_eager_numerics_are_unchanged():
    fused, unfused = _quantize(True, siblings=False), _quantize(False)
    targets = _targets(fused)
    assert targets.count(torch.ops.torchedge.linear_dynamic_int8.default) == 4
    assert torch.ops.aten.linear.default not in targets
    assert not [t for t in targets if "quantized_decomposed" in str(t)], targets
    for seed in range(3):
        x = _inputs(seed)
        assert torch.equal(fused.module()(x), unfused.module()(x))


@pytest.mark.parametrize("siblings", [False, True])
@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_runtime_matches_eager_quantized_reference(kernels, siblings):
    ep = _quantize(True, siblings)
    program = runtime.load(torchedge.to_edge(ep).to_pte().buffer, kernels=kernels)
    for seed in range(3):
        x = _inputs(seed)
        want = ep.module()(x)
        got = program.forward(x)
        got = got[0] if isinstance(got, (list, tuple)) else got
        # Same integers; the kernel's int32 sums vs the reference's float sums.
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-5)


def test_pattern_that_does_not_match_is_left_alone():
    """A non-zero weight zero point (asymmetric weights) keeps the five-op form."""
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e

    torch.manual_seed(0)
    prepared = tq.prepare(Block().eval(), (_inputs(),), tq.dynamic_config())
    prepared(_inputs())
    converted = convert_pt2e(prepared)
    zero_points = [name for name, _ in converted.named_buffers() if "zero_point" in name]
    assert zero_points
    for name in zero_points:
        getattr(converted, name).fill_(1)
    before = [n.target for n in converted.graph.nodes]
    assert tq.fuse_dynamic_linear(converted) == 0
    assert [n.target for n in converted.graph.nodes] == before


class Attention(nn.Module):
    """Q, K, V read the same input (merged); `gate` reads it too but has no
    bias (not merged with biased siblings); `out` reads another tensor."""

    def __init__(self) -> None:
        super().__init__()
        self.q, self.k, self.v = nn.Linear(24, 24), nn.Linear(24, 16), nn.Linear(24, 40)
        self.gate = nn.Linear(24, 24, bias=False)
        self.out = nn.Linear(40, 24)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        h = (q * self.gate(x))[..., :16] * k
        return self.out(v * h.sum(-1, keepdim=True)) + q


def _constant_names(ep: torch.export.ExportedProgram) -> set:
    return set(ep.state_dict) | set(ep.constants)


def test_siblings_sharing_an_input_become_one_call_and_a_split():
    merged = _quantize(True, model=Attention)
    separate = _quantize(True, siblings=False, model=Attention)
    targets = _targets(merged)
    linear = torch.ops.torchedge.linear_dynamic_int8.default
    assert targets.count(linear) == 3, targets  # q|k|v, gate, out
    assert _targets(separate).count(linear) == 5
    assert targets.count(torch.ops.aten.split_with_sizes.default) == 1
    calls = [n for n in merged.graph.nodes if n.target == linear]
    widths = sorted(n.meta["val"].shape[-1] for n in calls)
    assert widths == [24, 24, 80], widths
    # The separate weights are gone (only the concatenated copies are stored).
    weights = [t for t in (*merged.state_dict.values(), *merged.constants.values())
               if isinstance(t, torch.Tensor) and t.dtype == torch.int8]
    assert sorted(w.shape[0] for w in weights) == [24, 24, 80]
    for seed in range(3):
        x = _inputs(seed)
        # The same integer sums; the float linear of the reference may round
        # each column's sum differently in a wider GEMM.
        torch.testing.assert_close(merged.module()(x), separate.module()(x), rtol=1e-5,
                                   atol=1e-5)


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_merged_siblings_run_as_the_separate_calls(kernels):
    """The runtime kernel computes each column on its own: merged and separate
    programs agree bit for bit, and both match the eager reference."""
    merged = _quantize(True, model=Attention)
    separate = _quantize(True, siblings=False, model=Attention)
    run_merged = runtime.load(torchedge.to_edge(merged).to_pte().buffer, kernels=kernels)
    run_separate = runtime.load(torchedge.to_edge(separate).to_pte().buffer, kernels=kernels)
    for seed in range(3):
        x = _inputs(seed)
        got, want = run_merged.forward(x), run_separate.forward(x)
        got = got[0] if isinstance(got, (list, tuple)) else got
        want = want[0] if isinstance(want, (list, tuple)) else want
        assert torch.equal(got, want)
        torch.testing.assert_close(got, separate.module()(x), rtol=1e-5, atol=1e-5)


def test_fuse_sibling_linears_leaves_single_calls_alone():
    ep = _quantize(True, siblings=False)  # Block: q and k share x
    gm = ep.module()
    assert tq.fuse_sibling_linears(gm) == 1
    assert tq.fuse_sibling_linears(gm) == 0  # nothing left to merge


@pytest.mark.parametrize("n,k", [(1, 1), (16, 24), (17, 7), (40, 33)])
def test_strip_packing_round_trip(n, k):
    from torchedge.quantization import int8_linear_ops as ops

    w = torch.randint(-128, 128, (n, k), dtype=torch.int8,
                      generator=torch.Generator().manual_seed(n * 100 + k))
    packed = ops.pack_int8_strips(w)
    kp = k + k % 2
    assert packed.dtype == torch.int8 and list(packed.shape) == [-(-n // 16), kp * 16]
    flat = packed.reshape(-1)
    for col, kk in [(0, 0), (n - 1, k - 1), (n // 2, k // 2)]:  # the documented index
        assert flat[(col // 16 * kp + kk - kk % 2) * 16 + col % 16 * 2 + kk % 2] == w[col, kk]
    assert int(packed.abs().sum()) == int(w.abs().sum())  # padding is zero
    assert torch.equal(ops.unpack_int8_strips(packed, n, k), w)
    with pytest.raises(ValueError, match="weight_packed must be int8"):
        ops.unpack_int8_strips(packed, n + 16, k)


def test_packed_flow_rewrites_every_layer_and_keeps_eager_numerics():
    """pack_weights (the default): merged Q|K|V become one
    linear_dynamic_int8_packed_split, the other layers
    linear_dynamic_int8_packed; the eager reference computes exactly what the
    separate, unpacked layers compute."""
    torch.manual_seed(0)
    packed = tq.quantize_pt2e(Attention().eval(), (_inputs(),), config=tq.dynamic_config())
    separate = _quantize(True, siblings=False, model=Attention)
    targets = _targets(packed)
    te = torch.ops.torchedge
    assert targets.count(te.linear_dynamic_int8_packed_split.default) == 1
    assert targets.count(te.linear_dynamic_int8_packed.default) == 2
    assert te.linear_dynamic_int8.default not in targets
    assert torch.ops.aten.split_with_sizes.default not in targets
    weights = sorted(tuple(t.shape) for t in (*packed.state_dict.values(),
                                               *packed.constants.values())
                     if isinstance(t, torch.Tensor) and t.dtype == torch.int8)
    # q|k|v: 2 + 1 + 3 strips of 24 k; gate: 2 strips; out: 2 strips of 40 k.
    assert weights == [(2, 24 * 16), (2, 40 * 16), (6, 24 * 16)], weights
    for seed in range(3):
        x = _inputs(seed)
        assert torch.equal(packed.module()(x), separate.module()(x))


@pytest.mark.parametrize("kernels", ["portable", "optimized"])
def test_packed_program_runs_as_the_separate_layers(kernels):
    torch.manual_seed(0)
    packed = tq.quantize_pt2e(Attention().eval(), (_inputs(),), config=tq.dynamic_config())
    separate = _quantize(True, siblings=False, model=Attention)
    run_packed = runtime.load(torchedge.to_edge(packed).to_pte().buffer, kernels=kernels)
    run_separate = runtime.load(torchedge.to_edge(separate).to_pte().buffer, kernels=kernels)
    for seed in range(3):
        x = _inputs(seed)
        got, want = run_packed.forward(x), run_separate.forward(x)
        got = got[0] if isinstance(got, (list, tuple)) else got
        want = want[0] if isinstance(want, (list, tuple)) else want
        assert torch.equal(got, want)  # same integers, same epilogue per column
        torch.testing.assert_close(got, packed.module()(x), rtol=1e-5, atol=1e-5)


def test_packed_ops_reject_inconsistent_arguments():
    from torchedge.quantization import int8_linear_ops as ops

    x = torch.randn(3, 8)
    w = ops.pack_int8_strips(torch.ones(20, 8, dtype=torch.int8))
    te = torch.ops.torchedge
    with pytest.raises(ValueError, match="weight_packed must be int8"):
        te.linear_dynamic_int8_packed(x, w, torch.ones(40), None)
    with pytest.raises(ValueError, match="sizes"):
        te.linear_dynamic_int8_packed_split(x, w, torch.ones(20), None, [10, 20])
    with pytest.raises(ValueError, match="weight_packed|strips"):  # 3 strips needed, 2 given
        te.linear_dynamic_int8_packed_split(x, w, torch.ones(20), None, [4, 8, 8])
    outs = te.linear_dynamic_int8_packed_split(x, w, torch.ones(20), None, [4, 16])
    assert [o.shape[-1] for o in outs] == [4, 16]
