"""The math kernels (kernels/portable/math_kernels.inc) against eager PyTorch: their op-table entries.

Each entry of SPECS is an op-table entry (harness.OpSpec): the harness
exports one module per operator holding every sample (regular, broadcast,
rank 0, empty, channels-last, promotion, and op-specific edge values) of
every dtype, lowers it with torchedge, runs it in the C++ runtime and
compares each output with eager under the harness's tolerance table
(float32/float64 rtol 1e-5 atol 1e-6, float16 1e-3, bfloat16 1e-2,
integers and bool exact). A failing program is retried per dtype and per
sample, so a failure names its (dtype, case).

Each spec's `dtypes` are exactly the dtypes eager CPU accepts for the op
(test_operator_listing.py checks every one is listed, and
test_portable_ops.py proves every listed pair).
SPECS is in the op_table format, ready to be registered as the "math" group.
"""

from __future__ import annotations

import math
from typing import Callable

import torch
import torch.nn.functional as F

import harness
from harness import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, REAL_DTYPES, OpSpec, Sample
from samples import binary, make, other_dtype, unary

aten = torch.ops.aten
BOOL_AND_INTS = INT_DTYPES + (torch.bool,)


def _special(dtype: torch.dtype, *values: float) -> torch.Tensor:
    """A 1-d tensor of exact edge values (ties, NaN, inf, signed zeros)."""
    return torch.tensor(values, dtype=torch.float64).to(dtype)


SampleFn = Callable[[torch.dtype], list[Sample]]


def _with(extra: SampleFn, base: SampleFn) -> SampleFn:
    return lambda d: base(d) + extra(d)


def _unary_spec(name: str, fn: Callable, dtypes=ALL_DTYPES, float_domain=None, int_domain=None,
                extra=None) -> OpSpec:
    """A unary op sampled inside its domain: make() options per category."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        domain = (float_domain if dtype.is_floating_point else int_domain) or {}
        out = unary(dtype, **domain)
        return out + (extra(dtype) if extra is not None else [])

    return OpSpec(name, fn, samples, dtypes)


# -- rounding and sign -----------------------------------------------------------------


def _float_edges(dtype: torch.dtype) -> list[Sample]:
    if not dtype.is_floating_point:
        return []
    edges = _special(dtype, -2.5, -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, 2.5, 2.7,
                     math.nan, math.inf, -math.inf)
    return [Sample("edges", (edges,))]


def _round_decimals(dtype: torch.dtype) -> list[Sample]:
    values = _special(dtype, 1.2345, -2.675, 0.125, 1234.5, -0.0, math.nan)
    return [Sample(f"decimals_{d}", (make((3, 4), dtype) * 10,),
                   lambda x, d=d: torch.round(x, decimals=d)) for d in (2, -1)] + [
        Sample("edges", (values,), lambda x: torch.round(x, decimals=2)),
        Sample("rank0", (make((), dtype),), lambda x: torch.round(x, decimals=1)),
        Sample("channels_last", (make((2, 3, 4, 5), dtype),), lambda x: torch.round(x, decimals=1),
               channels_last=(0,)),
    ]


ROUNDING = [
    _unary_spec("aten::floor.out", torch.floor, REAL_DTYPES, extra=_float_edges),
    _unary_spec("aten::ceil.out", torch.ceil, REAL_DTYPES, extra=_float_edges),
    _unary_spec("aten::trunc.out", torch.trunc, REAL_DTYPES, extra=_float_edges),
    _unary_spec("aten::round.out", torch.round, REAL_DTYPES, extra=_float_edges),
    # round.decimals is not tagged core, so to_edge's verifier rejects it;
    # `keep` skips the verifier to reach the kernel (see the report).
    OpSpec("aten::round.decimals_out", lambda x: torch.round(x, decimals=2), _round_decimals,
           FLOAT_DTYPES, keep=(aten.round.decimals,)),
    _unary_spec("aten::sign.out", torch.sign, ALL_DTYPES, extra=_float_edges),
]

# -- exponentials, logarithms, trigonometric and hyperbolic functions ---------------------

UNIT = {"float_domain": {"low": -0.95, "high": 0.95}, "int_domain": {"low": -1, "high": 2}}
POSITIVE = {"float_domain": {"positive": True}, "int_domain": {"positive": True}}

TRANSCENDENTAL = [
    _unary_spec("aten::expm1.out", torch.expm1,
                extra=lambda d: [Sample("tiny", (_special(d, 1e-6, -1e-6, 1e-3),))]
                if d in (torch.float32, torch.float64) else []),
    _unary_spec("aten::log1p.out", torch.log1p, float_domain={"low": -0.9, "high": 4.0},
                int_domain={"low": 0, "high": 9}),
    _unary_spec("aten::log2.out", torch.log2, **POSITIVE),
    _unary_spec("aten::log10.out", torch.log10, **POSITIVE),
    _unary_spec("aten::tan.out", torch.tan, float_domain={"low": -1.4, "high": 1.4}),
    _unary_spec("aten::atan.out", torch.atan),
    _unary_spec("aten::asin.out", torch.asin, **UNIT),
    _unary_spec("aten::acos.out", torch.acos, **UNIT),
    _unary_spec("aten::sinh.out", torch.sinh),
    _unary_spec("aten::cosh.out", torch.cosh),
    _unary_spec("aten::asinh.out", torch.asinh),
    _unary_spec("aten::acosh.out", torch.acosh, float_domain={"low": 1.0, "high": 6.0},
                int_domain={"positive": True}),
    _unary_spec("aten::atanh.out", torch.atanh, **UNIT),
    OpSpec("aten::atan2.out", torch.atan2, lambda d: binary(d)),
]

# -- predicates, bitwise and logical ops ---------------------------------------------------


def _nonfinite(dtype: torch.dtype) -> list[Sample]:
    if not dtype.is_floating_point:
        return []
    return [Sample("nonfinite", (_special(dtype, math.nan, math.inf, -math.inf, 0.0, -1.5),))]


def _bitwise_tensor(dtype: torch.dtype) -> list[Sample]:
    wider = torch.int32 if dtype == torch.int64 else torch.int64
    return binary(dtype, promote=False) + [
        Sample("promote", (make((3, 4), dtype), make((3, 4), wider)))]


def _bitwise_scalar(op: Callable) -> Callable[[torch.dtype], list[Sample]]:
    def samples(dtype: torch.dtype) -> list[Sample]:
        out = unary(dtype, lambda x: op(x, 6))
        if dtype == torch.bool:
            out.append(Sample("bool_scalar", (make((3, 4), dtype),), lambda x: op(x, True)))
        return out
    return samples


PREDICATES_AND_BITWISE = [
    _unary_spec("aten::isnan.out", torch.isnan, extra=_nonfinite),
    _unary_spec("aten::isinf.out", torch.isinf, extra=_nonfinite),
    _unary_spec("aten::bitwise_not.out", torch.bitwise_not, BOOL_AND_INTS),
    OpSpec("aten::bitwise_or.Tensor_out", torch.bitwise_or, _bitwise_tensor, BOOL_AND_INTS),
    OpSpec("aten::bitwise_or.Scalar_out", lambda x: x | 6, _bitwise_scalar(torch.bitwise_or),
           BOOL_AND_INTS),
    OpSpec("aten::bitwise_xor.Tensor_out", torch.bitwise_xor, _bitwise_tensor, BOOL_AND_INTS),
    OpSpec("aten::bitwise_xor.Scalar_out", lambda x: x ^ 6, _bitwise_scalar(torch.bitwise_xor),
           BOOL_AND_INTS),
    OpSpec("aten::logical_xor.out", torch.logical_xor, lambda d: binary(d)),
]

# -- binary arithmetic -------------------------------------------------------------------------


def _nan_pairs(fn: Callable) -> Callable[[torch.dtype], list[Sample]]:
    def samples(dtype: torch.dtype) -> list[Sample]:
        if not dtype.is_floating_point:
            return []
        a = _special(dtype, math.nan, 1.0, -0.0, math.inf, 2.0)
        b = _special(dtype, 1.0, math.nan, 0.0, -math.inf, 2.0)
        return [Sample("nan", (a, b), fn)]
    return samples


def _division_like(fn: Callable) -> Callable[[torch.dtype], list[Sample]]:
    """Binary samples with nonzero divisors, plus signed and special floats."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        out = binary(dtype, fn, rhs={"nonzero": True})
        if dtype.is_floating_point:
            a = _special(dtype, 5.5, -5.5, 5.5, -5.5, 1.0, -1.0, 3.0, 0.0, -0.0, math.inf)
            b = _special(dtype, 2.0, 2.0, -2.0, -2.0, math.inf, math.inf, 0.0, -2.0, 2.0, 3.0)
            out.append(Sample("signs_and_specials", (a, b), fn))
        return out

    return samples


def _division_scalar(fn: Callable) -> Callable[[torch.dtype], list[Sample]]:
    def samples(dtype: torch.dtype) -> list[Sample]:
        divisor = 2.5 if dtype.is_floating_point else 3  # bool % 3 is int64
        out = unary(dtype, lambda x: fn(x, divisor))
        out.append(Sample("negative_divisor", (make((3, 4), dtype),), lambda x: fn(x, -4)))
        out.append(Sample("scalar_promote", (make((3, 4), dtype),), lambda x: fn(x, 1.5)))
        if dtype in (torch.float16, torch.bfloat16):
            # 0.1 is rounded to the tensor's dtype before dividing, as in ATen.
            out.append(Sample("rounded_scalar", (make((3, 4), dtype),), lambda x: fn(x, 0.1)))
        return out

    return samples


BINARY = [
    OpSpec("aten::maximum.out", torch.maximum, _with(_nan_pairs(torch.maximum), binary)),
    OpSpec("aten::minimum.out", torch.minimum, _with(_nan_pairs(torch.minimum), binary)),
    OpSpec("aten::remainder.Tensor_out", torch.remainder, _division_like(torch.remainder),
           REAL_DTYPES),
    OpSpec("aten::remainder.Scalar_out", lambda x: torch.remainder(x, 3),
           _division_scalar(torch.remainder), ALL_DTYPES),
    OpSpec("aten::fmod.Tensor_out", torch.fmod, _division_like(torch.fmod), REAL_DTYPES),
    OpSpec("aten::fmod.Scalar_out", lambda x: torch.fmod(x, 3), _division_scalar(torch.fmod),
           ALL_DTYPES),
]

# -- activations, clamping and creation ---------------------------------------------------------


def _elu(dtype: torch.dtype) -> list[Sample]:
    return unary(dtype, F.elu) + [
        Sample("alpha", (make((3, 4), dtype),), lambda x: F.elu(x, alpha=0.5)),
        Sample("selu", (make((3, 4), dtype),), F.selu),
        Sample("tiny", (_special(dtype, -1e-6, -0.0, 1e-6, -30.0),), F.elu),
    ]


def _clamp_tensor(dtype: torch.dtype) -> list[Sample]:
    low = 0 if dtype == torch.uint8 else -3
    lo = lambda shape: make(shape, dtype, low=low, high=low + 3)  # noqa: E731
    hi = lambda shape: make(shape, dtype, low=low + 3, high=low + 6)  # noqa: E731
    x = lambda shape: make(shape, dtype)  # noqa: E731
    one_bound = [
        Sample("min_only", (x((3, 4)), lo((4,))), lambda a, m: torch.clamp(a, min=m)),
        Sample("max_only", (x((3, 4)), hi((3, 1))), lambda a, m: torch.clamp(a, max=m)),
        Sample("max_only_rank0", (x((3, 4)), hi(())), lambda a, m: torch.clamp(a, max=m)),
        Sample("min_promote", (x((3, 4)), make((4,), other_dtype(dtype), low=-3, high=0)),
               lambda a, m: torch.clamp(a, min=m)),
    ]
    if dtype == torch.bool:  # ATen clamps bool only with a single bound
        return one_bound
    both = lambda a, m, n: torch.clamp(a, m, n)  # noqa: E731
    nan_bound = []
    if dtype.is_floating_point:
        nan_bound.append(Sample("nan_bound", (_special(dtype, 1.0, math.nan, 5.0),
                                              _special(dtype, math.nan, 0.0, 0.0),
                                              _special(dtype, 3.0, 3.0, 3.0)), both))
    return one_bound + nan_bound + [
        Sample("regular", (x((3, 4)), lo((3, 4)), hi((3, 4))), both),
        Sample("broadcast", (x((2, 1, 4)), lo((3, 1)), hi((4,))), both),
        Sample("rank0", (x(()), lo(()), hi(())), both),
        Sample("empty", (x((0, 4)), lo((4,)), hi((1,))), both),
        Sample("channels_last", (x((2, 3, 4, 5)), lo((2, 3, 4, 5)), hi((2, 3, 4, 5))), both,
               channels_last=(0, 1)),
        Sample("min_above_max", (x((3, 4)), hi((3, 4)) + 1, lo((3, 4))), both),
    ]


def _empty(dtype: torch.dtype) -> list[Sample]:
    # empty's contents are unspecified: every sample overwrites them (full_like).
    def fill(shape):
        return lambda x: torch.full_like(torch.empty(shape, dtype=dtype), 1) + x
    return [
        Sample("regular", (make((2, 3), dtype),), fill((2, 3))),
        Sample("rank0", (make((), dtype),), fill(())),
        Sample("empty", (make((0, 3), dtype),), fill((0, 3))),
    ]


ACTIVATION_CLAMP_CREATION = [
    OpSpec("aten::elu.out", F.elu, _elu, FLOAT_DTYPES),
    OpSpec("aten::clamp.Tensor_out", lambda x, m, n: torch.clamp(x, m, n), _clamp_tensor,
           ALL_DTYPES),
    OpSpec("aten::empty.out", lambda x: torch.empty((2, 3)), _empty, ALL_DTYPES),
]

SPECS = ROUNDING + TRANSCENDENTAL + PREDICATES_AND_BITWISE + BINARY + ACTIVATION_CLAMP_CREATION
