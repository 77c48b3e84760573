"""Op table, third neural-network group (kernels/portable/nn3_kernels.inc):
reflection/replication padding, select/slice scatter, diagonal, 3-d pooling,
pairwise distances, masked scatter and training-mode batch norm.

to_edge keeps the Core ATen pads and select_scatter whole
(torchedge.edge.decompositions.PRESERVED_CORE_OPS); replication_pad1d is
not Core ATen and is decomposed, so its spec `keep`s the op. Argument
errors eager raises (negative pads past the input, out-of-range dims, ...)
are checked by the C++ tests in kernels/portable/test/nn3_test.cpp: the
harness only compares what eager accepts.
"""

from __future__ import annotations

from typing import Callable

import torch
import torch.nn.functional as F

from harness import FLOAT_DTYPES, REAL_DTYPES, Kind, OpSpec, Sample
from samples import make, special
from torchedge.edge.decompositions import PRESERVED_CORE_OPS

aten = torch.ops.aten
REDUCTION = Kind.REDUCTION


def _rows(*rows: tuple) -> Callable[[torch.dtype], list[Sample]]:
    """Samples from (case, shapes, fn[, channels_last input indices]) rows;
    each shape becomes make(shape, dtype)."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        return [Sample(case, tuple(make(s, dtype) for s in shapes), fn, *(extra or ()))
                for case, shapes, fn, *extra in rows]

    return samples


# -- reflection and replication padding ------------------------------------------------


def _pad_spec(mode: str, k: int) -> OpSpec:
    op = getattr(aten, f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d")
    spatial = {1: (6,), 2: (5, 6), 3: (3, 4, 5)}[k]
    pads = {1: [2, 3], 2: [1, 2, 3, 1], 3: [1, 2, 0, 3, 2, 1]}[k]
    crop = {1: [-1, 2], 2: [2, -1, -1, 2], 3: [-1, 1, 1, -1, 0, 2]}[k]
    wide = [s - 1 for s in spatial[::-1] for _ in range(2)]  # the largest reflection pads
    rows = [
        ("regular", [(2, 3) + spatial], lambda x: op(x, pads)),
        ("unbatched", [(3,) + spatial], lambda x: op(x, pads)),
        ("negative_crops", [(2, 2) + spatial], lambda x: op(x, crop)),
        ("largest_pad", [(1, 2) + spatial], lambda x: op(x, wide)),
        ("zero_pad", [(2,) + spatial], lambda x: op(x, [0] * (2 * k))),
        ("empty_batch", [(0, 3) + spatial], lambda x: op(x, pads)),
        ("functional_pad", [(2, 3) + spatial], lambda x: F.pad(x, pads, mode=mode)),  # how models reach it
    ]
    if mode == "replicate":
        rows.append(("pad_past_size", [(1, 2) + spatial], lambda x: op(x, [s + 2 for s in pads])))
    if k == 2:
        rows.append(("channels_last", [(2, 3) + spatial], lambda x: op(x, pads), (0,)))
    keep = (op.default,) if op.default not in PRESERVED_CORE_OPS else ()
    return OpSpec(f"aten::{op.__name__}.out", lambda x: op(x, pads), _rows(*rows),
                  dtypes=REAL_DTYPES, keep=keep)


PADDING = [_pad_spec(mode, k) for mode in ("reflect", "replicate") for k in (1, 2, 3)]

# -- scatters into slices, diagonal ---------------------------------------------------------


def _select_scatter(dtype: torch.dtype) -> list[Sample]:
    def s(dim, index):
        return lambda x, y: torch.select_scatter(x, y, dim, index)
    mixed = torch.float32 if dtype != torch.float32 else torch.int32
    return [
        Sample("regular", (make((3, 4), dtype), make((3,), dtype)), s(1, 2)),
        Sample("negative_index", (make((2, 3, 4), dtype), make((2, 4), dtype)), s(1, -1)),
        Sample("dim0", (make((4, 2, 3), dtype), make((2, 3), dtype)), s(0, 0)),
        Sample("rank0_src", (make((5,), dtype), make((), dtype)), s(0, 3)),
        Sample("empty", (make((0, 4), dtype), make((0,), dtype)), s(1, 1)),
        Sample("src_dtype", (make((3, 4), dtype), make((4,), mixed)), s(0, 1)),
        Sample("channels_last", (make((2, 3, 4, 5), dtype), make((2, 4, 5), dtype)), s(1, 1), (0,)),
    ]


def _slice_scatter(dtype: torch.dtype) -> list[Sample]:
    def s(dim=0, start=None, end=None, step=1):
        return lambda x, y: torch.slice_scatter(x, y, dim, start, end, step)
    mixed = torch.float32 if dtype != torch.float32 else torch.int32
    return [
        Sample("regular", (make((3, 6), dtype), make((3, 2), dtype)), s(1, 1, 5, 2)),
        Sample("dim0_full", (make((4, 3), dtype), make((4, 3), dtype)), s(0)),
        Sample("negative_start", (make((2, 5, 3), dtype), make((2, 2, 3), dtype)), s(1, -2)),
        Sample("end_clamped", (make((7,), dtype), make((3,), dtype)), s(0, 4, 100)),
        Sample("empty_slice", (make((3, 4), dtype), make((3, 0), dtype)), s(1, 5, 9)),
        Sample("empty_self", (make((0, 4), dtype), make((0, 2), dtype)), s(1, 0, 2)),
        Sample("src_dtype", (make((4, 3), dtype), make((2, 3), mixed)), s(0, 0, 4, 2)),
        Sample("channels_last", (make((2, 4, 3, 5), dtype), make((2, 2, 3, 5), dtype)), s(1, 1, 3), (0,)),
    ]


def _diagonal(dtype: torch.dtype) -> list[Sample]:
    def d(offset=0, dim1=0, dim2=1):
        return lambda x: torch.diagonal(x, offset, dim1, dim2)
    return [
        Sample("regular", (make((4, 4), dtype),), d()),
        Sample("wide_offset", (make((3, 5), dtype),), d(2)),
        Sample("negative_offset", (make((5, 3), dtype),), d(-1)),
        Sample("batched_dims", (make((2, 3, 4), dtype),), d(1, 2, 0)),
        Sample("negative_dims", (make((2, 3, 4), dtype),), d(0, -1, -2)),
        Sample("offset_past_end", (make((3, 3), dtype),), d(4)),
        Sample("empty", (make((0, 3), dtype),), d()),
        Sample("channels_last", (make((2, 3, 4, 5), dtype),), d(0, 1, 3), (0,)),
    ]


SCATTERS = [
    OpSpec("aten::select_scatter.out", lambda x, y: torch.select_scatter(x, y, 0, 0), _select_scatter),
    OpSpec("aten::slice_scatter.out", lambda x, y: torch.slice_scatter(x, y), _slice_scatter),
    OpSpec("aten::diagonal_copy.out", torch.diagonal, _diagonal),
]


# -- 3-d pooling -------------------------------------------------------------------------------

NCDHW = (2, 3, 4, 5, 6)


def _channels_last_3d(fn: Callable) -> Callable:
    """fn on a channels-last-3d copy (Sample.channels_last is 4-d only)."""
    return lambda x: fn(x.contiguous(memory_format=torch.channels_last_3d))


def _avg3(*args, **kwargs) -> Callable:
    return lambda x: F.avg_pool3d(x, *args, **kwargs)


def _max3(*args, **kwargs) -> Callable:
    return lambda x: F.max_pool3d(x, *args, return_indices=True, **kwargs)


def _max_pool3d(dtype: torch.dtype) -> list[Sample]:
    out = _rows(
        ("regular", [NCDHW], _max3(2)),
        ("stride_padding", [(1, 2, 5, 6, 7)], _max3(3, stride=2, padding=1)),
        ("dilation_ceil", [(1, 2, 5, 8, 9)], _max3((2, 2, 3), stride=2, dilation=(1, 2, 1), ceil_mode=True)),
        ("unbatched", [(3, 4, 4, 4)], _max3(2)),
        ("empty_batch", [(0, 2, 4, 4, 4)], _max3(2)),
        ("channels_last_3d", [NCDHW], _channels_last_3d(_max3(3, stride=1, padding=1))),
    )(dtype)
    edge = special(dtype)
    if edge is not None:
        out.append(Sample("special", (edge.reshape(1, 1, 1, 1, -1),), _max3((1, 1, 2), ceil_mode=True)))
    return out


def _adaptive3(size) -> Callable:
    return lambda x: F.adaptive_avg_pool3d(x, size)


POOLING_3D = [
    OpSpec("aten::avg_pool3d.out", _avg3(2), _rows(
        ("regular", [NCDHW], _avg3(2)),
        ("padding_exclude", [(1, 2, 5, 7, 6)], _avg3(3, stride=2, padding=1, count_include_pad=False)),
        ("padding_include", [(1, 2, 5, 7, 6)], _avg3((3, 1, 3), stride=(2, 1, 2), padding=(1, 0, 1))),
        ("ceil_mode", [(1, 2, 5, 7, 6)], _avg3(2, ceil_mode=True, padding=1)),
        ("divisor_override", [(1, 2, 4, 6, 6)], _avg3(3, divisor_override=4)),
        ("unbatched", [(3, 4, 4, 4)], _avg3(2)),
        ("empty_batch", [(0, 2, 4, 4, 4)], _avg3(2)),
        ("channels_last_3d", [NCDHW], _channels_last_3d(_avg3(3, stride=1, padding=1))),
    ), kind=REDUCTION),
    OpSpec("aten::max_pool3d_with_indices.out", _max3(2), _max_pool3d, dtypes=REAL_DTYPES),
    OpSpec("aten::_adaptive_avg_pool3d.out", _adaptive3(2), _rows(
        ("regular", [NCDHW], _adaptive3((2, 3, 2))),
        ("uneven", [(1, 2, 5, 7, 3)], _adaptive3((3, 4, 2))),
        ("upsizing", [(1, 2, 2, 3, 2)], _adaptive3((3, 4, 5))),
        ("single_cells", [(2, 3, 4, 4, 4)], _adaptive3((1, 2, 1))),
        ("unbatched", [(3, 6, 6, 6)], _adaptive3((4, 4, 4))),
        ("empty_batch", [(0, 2, 4, 4, 4)], _adaptive3(2)),
        ("channels_last_3d", [NCDHW], _channels_last_3d(_adaptive3((3, 2, 4)))),
    ), kind=REDUCTION),
]

# -- pairwise distances ----------------------------------------------------------------------


def _cdist(p: float) -> Callable:
    return lambda x, y: torch.cdist(x, y, p)


def _pdist(p: float) -> Callable:
    return lambda x: F.pdist(x, p)


DISTANCES = [
    OpSpec("aten::_cdist_forward.out", _cdist(2.0), _rows(
        ("regular", [(3, 4), (5, 4)], _cdist(2.0)),
        ("p1", [(3, 4), (5, 4)], _cdist(1.0)),
        ("p0", [(3, 4), (2, 4)], _cdist(0.0)),
        ("p_inf", [(3, 4), (2, 4)], _cdist(float("inf"))),
        ("p_fraction", [(3, 4), (2, 4)], _cdist(1.5)),
        ("batched", [(2, 3, 4), (2, 5, 4)], _cdist(2.0)),
        ("broadcast", [(2, 1, 3, 4), (5, 2, 4)], _cdist(3.0)),
        ("empty_rows", [(0, 4), (3, 4)], _cdist(2.0)),
        ("no_columns", [(3, 0), (2, 0)], _cdist(2.0)),
    ), dtypes=FLOAT_DTYPES, kind=REDUCTION),
    OpSpec("aten::_pdist_forward.out", _pdist(2.0), _rows(
        ("regular", [(5, 4)], _pdist(2.0)),
        ("p1", [(4, 3)], _pdist(1.0)),
        ("p0", [(4, 3)], _pdist(0.0)),
        ("p_inf", [(4, 3)], _pdist(float("inf"))),
        ("p_fraction", [(4, 3)], _pdist(0.5)),
        ("one_row", [(1, 3)], _pdist(2.0)),
        ("no_columns", [(3, 0)], _pdist(2.0)),
    ), dtypes=FLOAT_DTYPES, kind=REDUCTION),
]

# -- masked scatter -----------------------------------------------------------------


def _masked_scatter(dtype: torch.dtype) -> list[Sample]:
    def mask(*shape):
        return torch.rand(shape) > 0.4

    def ms(x, m, s):
        return x.masked_scatter(m, s)
    return [
        Sample("regular", (make((3, 4), dtype), mask(3, 4), make((12,), dtype)), ms),
        Sample("broadcast_mask", (make((3, 4), dtype), mask(4), make((3, 5), dtype)), ms),
        Sample("broadcast_self", (make((4,), dtype), mask(2, 3, 4), make((30,), dtype)), ms),
        Sample("rank0", (make((), dtype), torch.tensor(True), make((2,), dtype)), ms),
        Sample("all_false", (make((2, 3), dtype), torch.zeros(2, 3, dtype=torch.bool), make((1,), dtype)), ms),
        Sample("empty", (make((0, 4), dtype), mask(0, 4), make((3,), dtype)), ms),
        Sample("channels_last", (make((2, 3, 4, 5), dtype), mask(2, 3, 4, 5), make((120,), dtype)), ms, (0,)),
    ]


MASKING = [
    OpSpec("aten::masked_scatter.out", lambda x, m, s: x.masked_scatter(m, s), _masked_scatter),
]

# -- training-mode batch norm ---------------------------------------------------------------


def _batch_norm_train(dtype: torch.dtype) -> list[Sample]:
    def params(c: int, p: torch.dtype = dtype) -> tuple:
        return (make((c,), p), make((c,), p))

    def bn(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True, eps=1e-3)

    out = [
        Sample("regular", (make((2, 3, 4, 5), dtype),) + params(3), bn),
        Sample("rank2", (make((4, 6), dtype),) + params(6), bn),
        Sample("rank3", (make((2, 3, 5), dtype),) + params(3), bn),
        Sample("no_affine", (make((2, 3, 4), dtype),), lambda x: F.batch_norm(x, None, None, training=True)),
        Sample("single_row", (make((1, 4), dtype),) + params(4), bn),
        Sample("statistics", (make((3, 2, 5), dtype),) + params(2),
               lambda x, w, b: aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 1e-5)),
        Sample("channels_last", (make((2, 3, 4, 5), dtype),) + params(3), bn, (0,)),
    ]
    if dtype in (torch.float16, torch.bfloat16):  # 16-bit activations with float32 parameters
        out.append(Sample("float32_params", (make((2, 3, 4), dtype),) + params(3, torch.float32), bn))
    return out


NORMALIZATION = [
    OpSpec("aten::_native_batch_norm_legit.no_stats_out", lambda x: F.batch_norm(x, None, None, training=True),
           _batch_norm_train, dtypes=FLOAT_DTYPES, kind=REDUCTION),
]

# -- fold (col2im) and the functional copy --------------------------------------------------


def _fold(size, kernel, **kwargs) -> Callable:
    return lambda x: F.fold(x, size, kernel, **kwargs)


def _copy(dtype: torch.dtype) -> list[Sample]:
    other = torch.float32 if dtype != torch.float32 else torch.int64
    return [
        Sample("regular", (make((3, 4), dtype), make((3, 4), dtype)), aten.copy),
        Sample("broadcast", (make((2, 3, 4), dtype), make((3, 1), dtype)), aten.copy),
        Sample("rank0", (make((), dtype), make((), dtype)), aten.copy),
        Sample("rank0_src", (make((2, 3), dtype), make((), dtype)), aten.copy),
        Sample("converts", (make((3, 4), dtype), make((4,), other)), aten.copy),
        Sample("empty", (make((0, 4), dtype), make((4,), dtype)), aten.copy),
        Sample("channels_last", (make((2, 3, 4, 5), dtype), make((2, 3, 4, 5), dtype)), aten.copy, (0,)),
    ]


FOLD_AND_COPY = [
    OpSpec("aten::col2im.out", _fold((4, 5), 2), _rows(
        ("regular", [(2, 12, 12)], _fold((4, 5), 2)),
        ("unbatched", [(8, 12)], _fold((4, 5), 2)),
        ("stride_padding", [(1, 18, 9)], _fold((5, 6), 3, stride=2, padding=1)),
        ("dilation", [(2, 8, 8)], _fold((4, 5), 2, dilation=(2, 1))),
        ("rectangular_kernel", [(1, 6, 12)], _fold((4, 5), (1, 3), stride=(1, 1))),
        ("empty_batch", [(0, 12, 12)], _fold((4, 5), 2)),
    ), kind=REDUCTION),
    OpSpec("aten::copy.out", aten.copy, _copy),
]

SPECS = PADDING + SCATTERS + POOLING_3D + DISTANCES + MASKING + NORMALIZATION + FOLD_AND_COPY
