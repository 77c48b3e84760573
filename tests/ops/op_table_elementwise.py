"""Op table, elementwise group (kernels/portable/elementwise_kernels.inc):
arithmetic, activations, unary math, comparisons, logical/bitwise ops,
dtype conversion and tensor creation."""

from __future__ import annotations

import dataclasses
from typing import Callable

import torch
import torch.nn.functional as F

from harness import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, REAL_DTYPES, OpSpec, Sample
from samples import binary, make, other_dtype, unary

aten = torch.ops.aten
BOOL_AND_INTS = INT_DTYPES + (torch.bool,)


def _number(dtype: torch.dtype, value: float = 2.5):
    """A Python scalar of dtype's category: float for floats, int for ints, True for bool."""
    if dtype == torch.bool:
        return True
    return value if dtype.is_floating_point else int(value + 0.5)


def _unary(name: str, fn: Callable, dtypes=ALL_DTYPES, **make_kw) -> OpSpec:
    return OpSpec(name, fn, lambda d: unary(d, **make_kw), dtypes)


def _binary(name: str, fn: Callable, dtypes=ALL_DTYPES, **kw) -> OpSpec:
    return OpSpec(name, fn, lambda d: binary(d, **kw), dtypes)


def _with_scalar(name: str, make_fn: Callable[[torch.dtype], Callable], dtypes=ALL_DTYPES,
                 mixed: Callable[[torch.dtype], Callable] = None, **make_kw) -> OpSpec:
    """Tensor-scalar ops: `make_fn(dtype)` is the op with a scalar of dtype's
    category; `mixed(dtype)` (optional) one with a scalar of another category,
    to exercise promotion with Python numbers."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        out = unary(dtype, make_fn(dtype), **make_kw)
        if mixed is not None:
            out.append(Sample("scalar_promote", (make((3, 4), dtype, **make_kw),), mixed(dtype)))
        return out

    return OpSpec(name, make_fn(torch.float32), samples, dtypes)


def _alpha(dtype: torch.dtype):
    return _number(dtype, 2.0)


# -- arithmetic -------------------------------------------------------------------


def _binary_alpha(name: str, op: Callable, dtypes) -> OpSpec:
    def samples(dtype: torch.dtype) -> list[Sample]:
        alpha = _alpha(dtype)
        return binary(dtype, lambda x, y: op(x, y, alpha=alpha))

    return OpSpec(name, lambda x, y: op(x, y, alpha=2), samples, dtypes)


def _div_samples(mode):
    def samples(dtype: torch.dtype) -> list[Sample]:
        return binary(dtype, lambda x, y: torch.div(x, y, rounding_mode=mode), rhs={"nonzero": True})
    return samples


def _pow_tensor_tensor(dtype: torch.dtype) -> list[Sample]:
    if dtype.is_floating_point:
        return binary(dtype, positive=True, rhs={"positive": False, "low": -2, "high": 2},
                      promote=False)
    return binary(dtype, rhs={"low": 0, "high": 4}, promote=False)


def _pow_tensor_scalar(dtype: torch.dtype) -> list[Sample]:
    if dtype.is_floating_point:
        return (unary(dtype, lambda x: x ** 2) + [
            Sample("fractional", (make((3, 4), dtype, positive=True),), lambda x: x ** 0.5),
            Sample("negative", (make((3, 4), dtype, positive=True),), lambda x: x ** -1.5)])
    return unary(dtype, lambda x: x ** 3) + [
        Sample("float_exponent", (make((3, 4), dtype, positive=True),), lambda x: x ** 0.5)]


def _pow_scalar(dtype: torch.dtype) -> list[Sample]:
    if dtype.is_floating_point:
        return unary(dtype, lambda x: torch.pow(2.0, x))
    return unary(dtype, lambda x: torch.pow(2, x), low=0, high=6) + [
        Sample("float_base", (make((3, 4), dtype, low=0, high=6),), lambda x: torch.pow(1.5, x))]


ARITHMETIC = [
    _binary_alpha("aten::add.out", torch.add, ALL_DTYPES),
    _with_scalar("aten::add.Scalar_out", lambda d: (lambda x: torch.add(x, _number(d), alpha=_alpha(d))),
                 mixed=lambda d: (lambda x: x + 1.5)),
    _binary_alpha("aten::sub.out", torch.sub, REAL_DTYPES),
    _with_scalar("aten::sub.Scalar_out", lambda d: (lambda x: torch.sub(x, _number(d), alpha=_alpha(d))),
                 REAL_DTYPES, mixed=lambda d: (lambda x: x - 1.5)),
    OpSpec("aten::rsub.Tensor_out", lambda x, y: torch.rsub(x, y, alpha=2),
           lambda d: binary(d, lambda x, y: torch.rsub(x, y, alpha=_alpha(d))), REAL_DTYPES,
           keep=(aten.rsub.Tensor,)),
    OpSpec("aten::rsub.Scalar_out", lambda x: torch.rsub(x, 2.5),
           lambda d: unary(d, lambda x: torch.rsub(x, _number(d), alpha=_alpha(d))) + [
               Sample("scalar_promote", (make((3, 4), d),), lambda x: torch.rsub(x, 1.5))],
           REAL_DTYPES, keep=(aten.rsub.Scalar,)),
    _binary("aten::mul.out", torch.mul),
    _with_scalar("aten::mul.Scalar_out", lambda d: (lambda x: x * _number(d)),
                 mixed=lambda d: (lambda x: x * 1.5)),
    OpSpec("aten::div.out", torch.div,
           lambda d: binary(d, torch.div, rhs={"nonzero": True})),
    _with_scalar("aten::div.Scalar_out", lambda d: (lambda x: x / _number(d, 4.0)),
                 mixed=lambda d: (lambda x: x / 0.5)),
    OpSpec("aten::div.out_mode", lambda x, y: torch.div(x, y, rounding_mode="floor"),
           lambda d: _div_samples("floor")(d) + [
               Sample(f"trunc_{s.case}", s.inputs, lambda x, y: torch.div(x, y, rounding_mode="trunc"),
                      s.channels_last) for s in _div_samples("trunc")(d)[:3]],
           REAL_DTYPES),
    _with_scalar("aten::div.Scalar_mode_out",
                 lambda d: (lambda x: torch.div(x, _number(d, 3.0), rounding_mode="floor")),
                 REAL_DTYPES, mixed=lambda d: (lambda x: torch.div(x, -1.5, rounding_mode="trunc"))),
    OpSpec("aten::pow.Tensor_Tensor_out", torch.pow, _pow_tensor_tensor, REAL_DTYPES),
    OpSpec("aten::pow.Tensor_Scalar_out", lambda x: x ** 2, _pow_tensor_scalar, REAL_DTYPES),
    OpSpec("aten::pow.Scalar_out", lambda x: torch.pow(2.0, x), _pow_scalar, REAL_DTYPES),
]

# -- activations ------------------------------------------------------------------


def _hardtanh(dtype: torch.dtype) -> list[Sample]:
    return unary(dtype, lambda x: F.hardtanh(x, -1.0, 1.0)) + [
        Sample("relu6", (make((3, 4), dtype),), lambda x: F.hardtanh(x, 0.0, 6.0))]


def _clamp(dtype: torch.dtype) -> list[Sample]:
    lo, hi = (-1.0, 1.0) if dtype.is_floating_point else (-2, 3)
    return unary(dtype, lambda x: torch.clamp(x, lo, hi)) + [
        Sample("min_only", (make((3, 4), dtype),), lambda x: torch.clamp(x, min=lo)),
        Sample("max_only", (make((3, 4), dtype),), lambda x: torch.clamp(x, max=hi)),
        Sample("float_bounds", (make((3, 4), dtype),), lambda x: torch.clamp(x, -0.5, 2.5)),
    ]


ACTIVATIONS = [
    _unary("aten::relu.out", torch.relu, REAL_DTYPES),
    OpSpec("aten::gelu.out", F.gelu,
           lambda d: [dataclasses.replace(s, double_reference=s.case == "special") for s in unary(d)] + [Sample("tanh", (make((3, 4), d),), lambda x: F.gelu(x, approximate="tanh"))],
           FLOAT_DTYPES),
    _unary("aten::sigmoid.out", torch.sigmoid),
    _unary("aten::tanh.out", torch.tanh),
    OpSpec("aten::hardtanh.out", F.hardtanh, _hardtanh, REAL_DTYPES),
    OpSpec("aten::clamp.out", lambda x: torch.clamp(x, -1.0, 1.0), _clamp, REAL_DTYPES),
    OpSpec("aten::hardswish.out", F.hardswish, lambda d: unary(d), FLOAT_DTYPES,
           keep=(aten.hardswish.default,)),
    OpSpec("aten::hardsigmoid.out", F.hardsigmoid, lambda d: unary(d), FLOAT_DTYPES,
           keep=(aten.hardsigmoid.default,)),
    OpSpec("aten::silu.out", F.silu, lambda d: unary(d), FLOAT_DTYPES, keep=(aten.silu.default,)),
    OpSpec("aten::leaky_relu.out", F.leaky_relu,
           lambda d: unary(d) + [Sample("slope", (make((3, 4), d),), lambda x: F.leaky_relu(x, 0.2))],
           FLOAT_DTYPES),
]

# -- unary math -------------------------------------------------------------------

UNARY_MATH = [
    _unary("aten::neg.out", torch.neg, REAL_DTYPES),
    _unary("aten::abs.out", torch.abs),
    _unary("aten::exp.out", torch.exp),
    _unary("aten::log.out", torch.log, positive=True),
    _unary("aten::sqrt.out", torch.sqrt, positive=True),
    _unary("aten::rsqrt.out", torch.rsqrt, positive=True),
    _unary("aten::reciprocal.out", torch.reciprocal, nonzero=True),
    _unary("aten::sin.out", torch.sin),
    _unary("aten::cos.out", torch.cos),
    _unary("aten::erf.out", torch.erf),
]

# -- selection, comparison, logical and bitwise -----------------------------------------


def _where(dtype: torch.dtype) -> list[Sample]:
    cond = lambda shape: make(shape, torch.bool)  # noqa: E731
    return [
        Sample("regular", (cond((3, 4)), make((3, 4), dtype), make((3, 4), dtype))),
        Sample("broadcast", (cond((3, 1)), make((1, 4), dtype), make((2, 3, 4), dtype))),
        Sample("rank0", (cond(()), make((3, 4), dtype), make((), dtype))),
        Sample("empty", (cond((0, 4)), make((0, 4), dtype), make((4,), dtype))),
        Sample("channels_last", (cond((2, 3, 4, 5)), make((2, 3, 4, 5), dtype), make((2, 3, 4, 5), dtype)),
               channels_last=(1, 2)),
        Sample("promote", (cond((3, 4)), make((3, 4), dtype), make((3, 4), other_dtype(dtype)))),
    ]


def _comparison(kind: str) -> list[OpSpec]:
    op = getattr(torch, kind)
    return [
        _binary(f"aten::{kind}.Tensor_out", op),
        _with_scalar(f"aten::{kind}.Scalar_out", lambda d: (lambda x: op(x, _number(d, 1.0))),
                     mixed=lambda d: (lambda x: op(x, 0.5))),
    ]


LOGICAL = [
    OpSpec("aten::where.self_out", torch.where, _where),
    *[spec for kind in ("eq", "ne", "lt", "le", "gt", "ge") for spec in _comparison(kind)],
    _unary("aten::logical_not.out", torch.logical_not),
    _binary("aten::logical_and.out", torch.logical_and),
    _binary("aten::logical_or.out", torch.logical_or),
    OpSpec("aten::bitwise_and.Tensor_out", torch.bitwise_and,
           lambda d: binary(d, promote=False) + (
               [] if d == torch.int64 else [Sample("promote", (make((3, 4), d), make((3, 4), torch.int64)))]),
           BOOL_AND_INTS),
    _with_scalar("aten::bitwise_and.Scalar_out", lambda d: (lambda x: x & _number(d, 6.0)), BOOL_AND_INTS),
]

# -- conversion and creation --------------------------------------------------------


def _to_copy(dtype: torch.dtype) -> list[Sample]:
    """dtype -> every other dtype (values that survive the trip: -9..9, fractions),
    and the shape cases converting to a dtype other than `dtype`."""
    out = []
    for target in ALL_DTYPES:
        if target == dtype:
            continue  # a no-op .to() calls no kernel
        low = 0 if target in (torch.uint8, torch.bool) else None
        out.append(Sample(f"to_{target}".replace("torch.", ""), (make((3, 4), dtype, low=low),),
                          lambda x, t=target: x.to(t)))
    other = other_dtype(dtype)
    out += [
        Sample("rank0", (make((), dtype),), lambda x: x.to(other)),
        Sample("empty", (make((0, 3), dtype),), lambda x: x.to(other)),
        Sample("channels_last", (make((2, 3, 4, 5), dtype),), lambda x: x.to(other),
               channels_last=(0,)),
        Sample("to_channels_last", (make((2, 3, 4, 5), dtype),),
               lambda x: x.to(other, memory_format=torch.channels_last)),
    ]
    return out


def _creation_like(fn: Callable[[torch.Tensor, torch.dtype], torch.Tensor]) -> Callable:
    """Samples of a *_like / fill op producing `dtype` from inputs of several dtypes."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        like = lambda x: fn(x, dtype)  # noqa: E731
        return [
            Sample("regular", (make((3, 4), dtype),), like),
            Sample("rank0", (make((), dtype),), like),
            Sample("empty", (make((0, 3), dtype),), like),
            Sample("channels_last", (make((2, 3, 4, 5), dtype),), like, channels_last=(0,)),
            Sample("from_other_dtype", (make((3, 4), other_dtype(dtype)),), like),
        ]

    return samples


def _full(dtype: torch.dtype) -> list[Sample]:
    value = _number(dtype, 7.0)
    return [
        Sample("regular", (make((2, 3), dtype),), lambda x: torch.full((2, 3), value, dtype=dtype) + x * 0),
        Sample("rank0", (make((), dtype),), lambda x: torch.full((), value, dtype=dtype)),
        Sample("empty", (make((0, 3), dtype),), lambda x: torch.full((0, 3), value, dtype=dtype)),
    ]


def _arange(start_form: bool) -> Callable:
    def samples(dtype: torch.dtype) -> list[Sample]:
        anchor = (make((1,), dtype),)  # arange has no tensor input; the sample still needs one
        if not start_form:
            return [Sample("regular", anchor, lambda x: torch.arange(7, dtype=dtype)),
                    Sample("empty", anchor, lambda x: torch.arange(0, dtype=dtype))]
        if dtype.is_floating_point:
            cases = [(1.0, 4.0, 0.5), (3.0, -1.0, -0.75), (0.0, 1.0, 0.3)]
        else:
            cases = [(1, 9, 2), (5, -3, -3), (0, 0, 1)]
        return [Sample(f"{a}_{b}_{s}", anchor, lambda x, a=a, b=b, s=s: torch.arange(a, b, s, dtype=dtype))
                for a, b, s in cases]
    return samples


CONVERSION_AND_CREATION = [
    OpSpec("aten::_to_copy.out", lambda x: x.to(torch.float32), _to_copy),
    OpSpec("aten::full.out", lambda: torch.full((2, 3), 1.0), _full),
    OpSpec("aten::full_like.out", torch.full_like,
           _creation_like(lambda x, d: torch.full_like(x, _number(d, 3.0), dtype=d))),
    OpSpec("aten::zeros_like.out", torch.zeros_like,
           _creation_like(lambda x, d: torch.zeros_like(x, dtype=d)), keep=(aten.zeros_like.default,)),
    OpSpec("aten::ones_like.out", torch.ones_like,
           _creation_like(lambda x, d: torch.ones_like(x, dtype=d)), keep=(aten.ones_like.default,)),
    OpSpec("aten::scalar_tensor.out", torch.scalar_tensor,
           lambda d: [Sample("rank0", (make((), d),), lambda x: torch.scalar_tensor(_number(d, 5.0), dtype=d))],
           keep=(aten.scalar_tensor.default,)),
    OpSpec("aten::arange.out", torch.arange, _arange(False), REAL_DTYPES, keep=(aten.arange.default,)),
    OpSpec("aten::arange.start_out", torch.arange, _arange(True), REAL_DTYPES,
           keep=(aten.arange.start, aten.arange.start_step)),
    OpSpec("aten::fill.Scalar_out", torch.fill,
           _creation_like(lambda x, d: torch.fill(x.to(d), _number(d, 4.0))), keep=(aten.fill.Scalar,)),
    OpSpec("aten::fill.Tensor_out", torch.fill,
           lambda d: [Sample(s.case, s.inputs + (make((), d),), lambda x, v: torch.fill(x, v), s.channels_last)
                      for s in unary(d)], keep=(aten.fill.Tensor,)),
]

SPECS = ARITHMETIC + ACTIVATIONS + UNARY_MATH + LOGICAL + CONVERSION_AND_CREATION
