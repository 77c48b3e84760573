"""The second nn group (kernels/portable/nn2_kernels.inc) against eager PyTorch: their op-table entries.

Each entry of SPECS is an op-table entry (harness.OpSpec): the harness
exports one module per operator holding every sample of every dtype, lowers
it with torchedge (export -> to_edge -> to_pte), runs it in the C++ runtime
and compares each output with eager: reductions, interpolation, norms and
pooling use the harness's reduction tolerances (float32/float64 rtol 1e-4
atol 1e-5, float16 1e-3, bfloat16 1e-2), integer and bool outputs (indices,
masks) are exact. A failing program is retried per dtype and per sample, so
a failure names its (dtype, case).

Each spec's `dtypes` are exactly the dtypes eager CPU accepts for the op
(test_operator_listing.py checks every one is listed, and
test_portable_ops.py proves every listed pair), except where a note
says which eager dtype the kernel leaves out.

Where ATen leaves an order unspecified the samples avoid depending on it:
topk and the non-stable sort get distinct values, and ties are only sorted
in lanes of at most 16 elements, which ATen sorts stably (insertion sort).
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F

import harness
from harness import ALL_DTYPES, FLOAT_DTYPES, REAL_DTYPES, Kind, OpSpec, Sample
from samples import make

aten = torch.ops.aten
CL = (0,)  # the first input channels-last
# Ops outside the Core ATen set that export leaves as they are: the edge
# verifier rejects them, so their specs `keep` them (which skips it).
_NOT_CORE = "not core ATen: torchedge's verifier rejects it; reached with `keep`"
SampleFn = Callable[[torch.dtype], list[Sample]]


def _special(dtype: torch.dtype, *values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64).to(dtype)


def _sparse(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """make() with about half the elements zero (so any/all see both)."""
    return make(shape, dtype) * (torch.rand(shape) < 0.5).to(dtype)


def _distinct(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """Distinct values in random order, exact in every dtype (numel <= 200)."""
    n = math.prod(shape)
    values = torch.randperm(n) - (0 if dtype == torch.uint8 else n // 2)
    t = values.to(torch.float64) * (0.5 if dtype.is_floating_point else 1)
    return t.to(dtype).reshape(shape)


def _ties(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """Small integers 0..3 (as any dtype), so equal values are common."""
    return torch.randint(0, 4, shape).to(dtype)


def _near_one(shape: tuple[int, ...], dtype: torch.dtype) -> torch.Tensor:
    """Products stay in range: floats in [0.6, 1.4], integers in [-2, 2]."""
    if dtype.is_floating_point:
        return make(shape, dtype, low=0.6, high=1.4)
    if dtype == torch.bool:
        return make(shape, dtype)
    return make(shape, dtype, low=0 if dtype == torch.uint8 else -2, high=3)


# -- any / all ------------------------------------------------------------------------


def _truth_samples(reduce: Callable) -> SampleFn:
    """reduce(x, dim, keepdim) calls the overload under test."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        out = [
            Sample("regular", (_sparse((2, 3, 5), dtype),), lambda x: reduce(x, 1, False)),
            Sample("keepdim_negative", (_sparse((2, 3, 5), dtype),), lambda x: reduce(x, -1, True)),
            Sample("rank0", (_sparse((), dtype),), lambda x: reduce(x, 0, False)),
            Sample("empty_reduced", (make((0, 3), dtype),), lambda x: reduce(x, 0, False)),
            Sample("empty_kept", (make((0, 3), dtype),), lambda x: reduce(x, 1, False)),
            Sample("all_true", (make((2, 4), dtype, nonzero=True),), lambda x: reduce(x, 1, False)),
            Sample("channels_last", (_sparse((2, 3, 4, 5), dtype),), lambda x: reduce(x, 1, False),
                   channels_last=CL),
        ]
        if dtype.is_floating_point:  # NaN is true, -0.0 false
            out.append(Sample("nan_negzero", (_special(dtype, math.nan, -0.0, 0.0).reshape(3, 1),),
                              lambda x: reduce(x, 1, False)))
        return out

    return samples


def _dims_samples(op: Callable) -> SampleFn:
    def samples(dtype: torch.dtype) -> list[Sample]:
        x = lambda shape: _sparse(shape, dtype)  # noqa: E731
        return [
            Sample("regular", (x((2, 3, 5)),), lambda t: op(t, dim=(0, 2))),
            Sample("keepdim", (x((2, 3, 5)),), lambda t: op(t, dim=(1, -1), keepdim=True)),
            Sample("all_dims", (x((2, 3)),), lambda t: op(t, dim=(0, 1))),
            Sample("no_dims", (x((2, 3)),), lambda t: op(t, dim=())),  # reduces nothing
            Sample("empty", (make((0, 3), dtype),), lambda t: op(t, dim=(0, 1))),
            Sample("channels_last", (x((2, 3, 4, 5)),), lambda t: op(t, dim=(1, 2)),
                   channels_last=CL),
        ]

    return samples


_ALL_OPS = (aten.all.dim, aten.all.dims, aten.all.default)  # core ATen rewrites all as any

TRUTH = [
    OpSpec("aten::any.out", None, _truth_samples(lambda x, d, k: torch.any(x, d, keepdim=k)),
           ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::any.dims_out", None, _dims_samples(torch.any), ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::any.all_out", torch.any, _truth_samples(lambda x, d, k: torch.any(x)),
           ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::all.out", None, _truth_samples(lambda x, d, k: torch.all(x, d, keepdim=k)),
           ALL_DTYPES, Kind.REDUCTION, keep=_ALL_OPS),
    OpSpec("aten::all.dims_out", None, _dims_samples(torch.all), ALL_DTYPES, Kind.REDUCTION,
           keep=_ALL_OPS),
    OpSpec("aten::all.all_out", torch.all, _truth_samples(lambda x, d, k: torch.all(x)),
           ALL_DTYPES, Kind.REDUCTION, keep=_ALL_OPS),
]

# -- interpolation, normalization, pooling, sampling -------------------------------------


def _bilinear(dtype: torch.dtype) -> list[Sample]:
    def up(**kw):
        return lambda x: F.interpolate(x, mode="bilinear", **kw)

    x = lambda shape=(2, 3, 5, 7): make(shape, dtype)  # noqa: E731
    return [
        Sample("regular", (x(),), up(scale_factor=2)),
        Sample("align_corners", (x(),), up(scale_factor=2, align_corners=True)),
        Sample("fractional_scale", (x(),), up(scale_factor=1.7)),
        Sample("two_scales_align", (x(),), up(scale_factor=(1.3, 0.6), align_corners=True)),
        Sample("downscale", (x((1, 2, 9, 11)),), up(scale_factor=0.45)),
        Sample("size", (x(),), up(size=(9, 4))),
        Sample("size_align", (x(),), up(size=(9, 4), align_corners=True)),
        Sample("size_one", (x(),), up(size=(1, 1), align_corners=True)),
        Sample("same_height", (x(),), up(size=(5, 12))),
        Sample("recompute_scale", (x(),), up(scale_factor=1.7, recompute_scale_factor=True)),
        Sample("channels_last", (x(),), up(scale_factor=2), channels_last=CL),
    ]


def _group_norm(dtype: torch.dtype) -> list[Sample]:
    x = lambda shape: make(shape, dtype)  # noqa: E731
    out = [
        Sample("regular", (x((2, 6, 4, 5)), x((6,)), x((6,))),
               lambda t, w, b: F.group_norm(t, 3, w, b)),
        Sample("one_group_no_affine", (x((2, 6, 4, 5)),), lambda t: F.group_norm(t, 1)),
        Sample("group_per_channel", (x((2, 4, 7)), x((4,))), lambda t, w: F.group_norm(t, 4, w)),
        Sample("rank2", (x((3, 4)),), lambda t: F.group_norm(t, 2, eps=1e-3)),
        Sample("channels_last", (x((2, 6, 4, 5)), x((6,)), x((6,))),
               lambda t, w, b: F.group_norm(t, 2, w, b), channels_last=CL),
        Sample("empty_batch", (x((0, 6, 3)),), lambda t: F.group_norm(t, 3)),
        # The statistics outputs, through the op itself.
        Sample("stats", (x((2, 6, 4)), x((6,)), x((6,))),
               lambda t, w, b: aten.native_group_norm(t, w, b, 2, 6, 4, 3, 1e-5)),
    ]
    if dtype in (torch.float16, torch.bfloat16):
        # ATen's mixed dtype: float32 parameters. Only out0 is compared: eager
        # returns float32 statistics, torch's shape function (and so the
        # exported program) says the input's dtype.
        w, b = make((6,), torch.float32), make((6,), torch.float32)
        out.append(Sample("mixed_params", (x((2, 6, 4)), w, b),
                          lambda t, w, b: aten.native_group_norm(t, w, b, 2, 6, 4, 3, 1e-5)[0]))
    return out


def _adaptive_max(dtype: torch.dtype) -> list[Sample]:
    def pool(size):
        return lambda x: F.adaptive_max_pool2d(x, size, return_indices=True)

    x = lambda shape: make(shape, dtype)  # noqa: E731
    nan = torch.arange(16, dtype=torch.float64).reshape(1, 1, 4, 4)
    nan[0, 0, 1, 1] = nan[0, 0, 1, 0] = math.nan
    return [
        Sample("regular", (x((2, 3, 7, 5)),), pool((3, 4))),
        Sample("rank3", (x((3, 6, 6)),), pool((2, 3))),
        Sample("global", (x((2, 3, 5, 5)),), pool((1, 1))),
        Sample("upsampling", (x((1, 2, 3, 2)),), pool((5, 4))),
        Sample("ties", (x((1, 2, 4, 4)).round(),), pool((2, 2))),
        Sample("channels_last", (x((2, 3, 7, 5)),), pool((3, 2)), channels_last=CL),
        Sample("empty_batch", (x((0, 3, 4, 4)),), pool((2, 2))),
        Sample("nan", (nan.to(dtype),), pool((2, 2))),
    ]


def _grid_sample(dtype: torch.dtype) -> list[Sample]:
    def sample(mode, padding, align):
        return lambda x, g: F.grid_sample(x, g, mode=mode, padding_mode=padding,
                                          align_corners=align)

    x = make((2, 3, 5, 6), dtype)
    grid = make((2, 4, 7, 2), dtype, low=-1.3, high=1.3)
    out = []
    for mode in ("bilinear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                case = f"{mode}_{padding}_{'align' if align else 'noalign'}"
                out.append(Sample(case, (x, grid), sample(mode, padding, align)))
    out.append(Sample("channels_last", (x, grid), sample("bilinear", "zeros", False),
                      channels_last=CL))
    return out


SPATIAL = [
    OpSpec("aten::upsample_bilinear2d.vec_out", None, _bilinear, FLOAT_DTYPES, Kind.REDUCTION,
           notes="eager also takes uint8 (a fixed-point AVX path); not reproduced"),
    OpSpec("aten::native_group_norm.out", None, _group_norm, FLOAT_DTYPES, Kind.REDUCTION),
    OpSpec("aten::adaptive_max_pool2d.out", None, _adaptive_max, FLOAT_DTYPES, Kind.REDUCTION,
           keep=(aten.adaptive_max_pool2d.default,), notes=_NOT_CORE),
    OpSpec("aten::grid_sampler_2d.out", None, _grid_sample, FLOAT_DTYPES, Kind.REDUCTION,
           notes="bilinear and nearest; bicubic is NotSupported"),
]

# -- value + index reductions, products, scans -----------------------------------------


def _extremum(op: Callable) -> SampleFn:
    def samples(dtype: torch.dtype) -> list[Sample]:
        x = lambda shape: make(shape, dtype)  # noqa: E731
        out = [
            Sample("regular", (x((2, 3, 5)),), lambda t: op(t, 1)),
            Sample("keepdim_negative", (x((2, 3, 5)),), lambda t: op(t, -1, keepdim=True)),
            Sample("rank0", (x(()),), lambda t: op(t, 0)),
            Sample("ties", (_ties((4, 9), dtype),), lambda t: op(t, 1)),
            Sample("empty_kept", (x((0, 4)),), lambda t: op(t, 1)),
            Sample("channels_last", (x((2, 3, 4, 5)),), lambda t: op(t, 1), channels_last=CL),
        ]
        if dtype.is_floating_point:
            nan = _special(dtype, 1, math.nan, 5, math.nan, -math.inf, 2).reshape(2, 3)
            out.append(Sample("nan", (nan,), lambda t: op(t, 1)))
        return out

    return samples


def _prod(dtype: torch.dtype) -> list[Sample]:
    x = lambda shape: _near_one(shape, dtype)  # noqa: E731
    return [
        Sample("regular", (x((2, 3, 5)),), lambda t: torch.prod(t, 1)),
        Sample("keepdim_negative", (x((2, 3, 5)),), lambda t: torch.prod(t, -1, keepdim=True)),
        Sample("dtype", (x((3, 4)),), lambda t: torch.prod(t, 0, dtype=torch.float64)),
        Sample("rank0", (x(()),), lambda t: torch.prod(t, 0)),
        Sample("empty", (x((0, 3)),), lambda t: torch.prod(t, 0)),
        Sample("channels_last", (x((2, 3, 2, 5)),), lambda t: torch.prod(t, 1), channels_last=CL),
    ]


def _prod_all(dtype: torch.dtype) -> list[Sample]:
    x = lambda shape: _near_one(shape, dtype)  # noqa: E731
    return [
        Sample("regular", (x((2, 5)),), torch.prod),
        Sample("dtype", (x((2, 3)),), lambda t: torch.prod(t, dtype=torch.float32)),
        Sample("rank0", (x(()),), torch.prod),
        Sample("empty", (x((0, 3)),), torch.prod),
    ]


def _scan(op: Callable, values: Callable) -> SampleFn:
    def samples(dtype: torch.dtype) -> list[Sample]:
        x = lambda shape: values(shape, dtype)  # noqa: E731
        return [
            Sample("regular", (x((2, 3, 5)),), lambda t: op(t, 1)),
            Sample("last_dim", (x((2, 3, 5)),), lambda t: op(t, -1)),
            Sample("dtype", (x((3, 4)),), lambda t: op(t, 0, dtype=torch.float64)),
            Sample("rank0", (x(()),), lambda t: op(t, 0)),
            Sample("empty", (x((0, 3)),), lambda t: op(t, 1)),
            Sample("channels_last", (x((2, 3, 4, 5)),), lambda t: op(t, 1), channels_last=CL),
        ]

    return samples


REDUCTIONS = [
    OpSpec("aten::max.dim_max", None, _extremum(torch.max), ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::min.dim_min", None, _extremum(torch.min), ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::prod.int_out", None, _prod, ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::prod.out", None, _prod_all, ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::cumsum.out", None, _scan(torch.cumsum, make), ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::cumprod.out", None, _scan(torch.cumprod, _near_one), ALL_DTYPES, Kind.REDUCTION,
           keep=(aten.cumprod.default,), notes=_NOT_CORE),
]

# -- sorting -----------------------------------------------------------------------------


def _sort(dtype: torch.dtype) -> list[Sample]:
    d = lambda shape: _distinct(shape, dtype)  # noqa: E731
    out = [
        Sample("regular", (d((3, 20)),), lambda t: torch.sort(t)),
        Sample("descending_dim0", (d((20, 3)),), lambda t: torch.sort(t, 0, descending=True)),
        Sample("rank0", (d(()),), lambda t: torch.sort(t)),
        Sample("empty", (d((0, 4)),), lambda t: torch.sort(t)),
        Sample("channels_last", (d((2, 3, 4, 5)),), lambda t: torch.sort(t, 1), channels_last=CL),
    ]
    if dtype == torch.bool:  # only ties: lanes of <= 16 elements, which eager sorts stably
        out[:2] = [Sample("regular", (make((3, 12), dtype),), lambda t: torch.sort(t)),
                   Sample("descending_dim0", (make((12, 3), dtype),),
                          lambda t: torch.sort(t, 0, descending=True))]
    if dtype.is_floating_point:
        nan = _special(dtype, 3, math.nan, -math.inf, 0, math.inf, -1)
        out += [Sample("nan", (nan,), lambda t: torch.sort(t)),
                Sample("nan_descending", (nan,), lambda t: torch.sort(t, descending=True))]
    return out


def _sort_stable(dtype: torch.dtype) -> list[Sample]:
    ties = lambda shape: _ties(shape, dtype)  # noqa: E731
    return [
        Sample("regular", (ties((3, 40)),), lambda t: torch.sort(t, stable=True)),
        Sample("descending", (ties((50, 2)),),
               lambda t: torch.sort(t, dim=0, descending=True, stable=True)),
        Sample("rank0", (ties(()),), lambda t: torch.sort(t, stable=True)),
        Sample("channels_last", (ties((2, 3, 4, 5)),), lambda t: torch.sort(t, dim=1, stable=True),
               channels_last=CL),
    ]


def _topk(dtype: torch.dtype) -> list[Sample]:
    d = lambda shape: _distinct(shape, dtype)  # noqa: E731
    out = [
        Sample("regular", (d((3, 20)),), lambda t: torch.topk(t, 5)),
        Sample("smallest_dim0", (d((20, 3)),), lambda t: torch.topk(t, 4, 0, largest=False)),
        Sample("k_all", (d((2, 7)),), lambda t: torch.topk(t, 7)),
        Sample("k_zero", (d((2, 7)),), lambda t: torch.topk(t, 0)),
        Sample("rank0", (d(()),), lambda t: torch.topk(t, 1)),
        Sample("channels_last", (d((2, 6, 4, 5)),), lambda t: torch.topk(t, 3, 1),
               channels_last=CL),
    ]
    if dtype.is_floating_point:
        nan = _special(dtype, 3, math.nan, -math.inf, 0, math.inf, -1)
        out += [Sample("nan", (nan,), lambda t: torch.topk(t, 3)),
                Sample("nan_smallest", (nan,), lambda t: torch.topk(t, 3, largest=False))]
    return out


SORTING = [
    OpSpec("aten::sort.values", None, _sort, ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::sort.values_stable", None, _sort_stable, ALL_DTYPES, Kind.REDUCTION,
           keep=(aten.sort.stable,), notes=_NOT_CORE),
    OpSpec("aten::topk.values", None, _topk, REAL_DTYPES, Kind.REDUCTION),
]

# -- scatter ----------------------------------------------------------------------------


def _index(shape: tuple[int, ...], size: int, dtype: torch.dtype = torch.int64) -> torch.Tensor:
    return torch.randint(0, size, shape).to(dtype)


def _scatter_samples(op: Callable) -> SampleFn:
    """op(self, dim, index, src) for scatter.src / scatter_add."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        x = lambda shape: make(shape, dtype)  # noqa: E731
        return [
            Sample("regular", (x((3, 5)), _index((3, 4), 5), x((3, 6))),
                   lambda s, i, v: op(s, 1, i, v)),
            Sample("dim0", (x((4, 3)), _index((6, 2), 4), x((6, 3))),
                   lambda s, i, v: op(s, 0, i, v)),
            Sample("negative_dim_int32",
                   (x((2, 3, 4)), _index((2, 2, 5), 4, torch.int32), x((2, 3, 5))),
                   lambda s, i, v: op(s, -1, i, v)),
            Sample("rank0", (x(()), _index((), 1), x(())), lambda s, i, v: op(s, 0, i, v)),
            Sample("empty_index", (x((3, 4)), _index((0, 4), 3), x((2, 4))),
                   lambda s, i, v: op(s, 0, i, v)),
            Sample("channels_last", (x((2, 3, 4, 5)), _index((2, 3, 4, 5), 3), x((2, 3, 4, 5))),
                   lambda s, i, v: op(s, 1, i, v), channels_last=CL),
        ]

    return samples


def _scatter_value(dtype: torch.dtype) -> list[Sample]:
    x = lambda shape: make(shape, dtype)  # noqa: E731
    out = [
        Sample("regular", (x((3, 5)), _index((3, 4), 5)), lambda s, i: s.scatter(1, i, 1)),
        Sample("dim0_int32", (x((4, 3)), _index((6, 2), 4, torch.int32)),
               lambda s, i: s.scatter(0, i, 0)),
        Sample("rank0", (x(()), _index((), 1)), lambda s, i: s.scatter(0, i, 1)),
        Sample("channels_last", (x((2, 3, 4, 5)), _index((2, 2, 4, 5), 3)),
               lambda s, i: s.scatter(1, i, 1), channels_last=CL),
    ]
    if dtype.is_floating_point:
        out.append(Sample("float_value", (x((3, 5)), _index((3, 4), 5)),
                          lambda s, i: s.scatter(1, i, -2.5)))
    return out


def _scatter_reduce(dtype: torch.dtype) -> list[Sample]:
    def reduce(how, include_self=True, dim=1):
        return lambda s, i, v: s.scatter_reduce(dim, i, v, how, include_self=include_self)

    x = lambda shape: _near_one(shape, dtype)  # noqa: E731
    args = lambda: (x((3, 5)), _index((3, 6), 5), x((3, 6)))  # noqa: E731 (repeated targets)
    out = [
        Sample("regular", args(), reduce("sum")),
        Sample("sum_exclude_self", args(), reduce("sum", False)),
        Sample("prod", args(), reduce("prod")),
        Sample("prod_exclude_self", args(), reduce("prod", False)),
        Sample("amax", args(), reduce("amax")),
        Sample("amax_exclude_self", args(), reduce("amax", False)),
        Sample("amin_dim0", (x((4, 3)), _index((6, 2), 4), x((6, 3))), reduce("amin", False, 0)),
        Sample("rank0", (x(()), _index((), 1), x(())), reduce("sum", True, 0)),
        Sample("channels_last", (x((2, 3, 4, 5)), _index((2, 3, 4, 5), 3), x((2, 3, 4, 5))),
               reduce("amax"), channels_last=CL),
    ]
    if dtype != torch.bool:  # eager has no bool mean
        out += [Sample("mean", args(), reduce("mean")),
                Sample("mean_exclude_self", args(), reduce("mean", False))]
    if dtype.is_floating_point:
        nan = _special(dtype, 1, math.nan, 3, 0)
        src = _special(dtype, math.nan, 2, -1, 5)
        idx = torch.tensor([0, 0, 2, 3])
        out += [Sample("nan_amax", (nan, idx, src), reduce("amax", True, 0)),
                Sample("nan_amin", (nan, idx, src), reduce("amin", True, 0))]
    return out


SCATTER = [
    OpSpec("aten::scatter.src_out", None, _scatter_samples(torch.scatter), ALL_DTYPES,
           Kind.REDUCTION),
    OpSpec("aten::scatter.value_out", None, _scatter_value, ALL_DTYPES, Kind.REDUCTION),
    OpSpec("aten::scatter_add.out", None, _scatter_samples(torch.scatter_add), ALL_DTYPES,
           Kind.REDUCTION),
    OpSpec("aten::scatter_reduce.two_out", None, _scatter_reduce, ALL_DTYPES, Kind.REDUCTION),
]

SPECS = TRUTH + SPATIAL + REDUCTIONS + SORTING + SCATTER
