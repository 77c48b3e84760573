"""Elementwise functions: prims.convert_element_type, exp2, copysign, signbit, fmax / fmin, hypot,
angle, erfc, and the gamma family (lgamma, digamma) in float64.

Limits: signbit / copysign read the sign of a NaN as positive (eager reads
the bit); erfc is 1 - erf in float64 (absolute error ~1e-16, so relative
accuracy fades past x = 5 where erfc < 1e-12); lgamma and digamma run in
float64 (Lanczos g=7 and a shifted asymptotic series: ~1e-14 relative)
and are rounded to the input's float dtype, about 40 core operators each
where a kernel would be one.
"""

from __future__ import annotations

import math

import torch

from torchedge.edge.decompositions.rules import decomposes

aten = torch.ops.aten


def _float_dtype(*tensors: torch.Tensor) -> torch.dtype:
    """The result dtype of a float-valued op (integers promote to the default
    float; complex dtypes stay)."""
    dtype = tensors[0].dtype
    for t in tensors[1:]:
        dtype = torch.promote_types(dtype, t.dtype)
    return dtype if dtype.is_floating_point or dtype.is_complex else torch.get_default_dtype()


def _as(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    return x if x.dtype == dtype else aten._to_copy.default(x, dtype=dtype)


@decomposes(torch.ops.prims.convert_element_type.default)
def convert_element_type(x: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """prims' dtype cast, which torch's own decompositions (renorm in
    float16 / bfloat16, ...) leave in the graph: the same cast as _to_copy."""
    return aten._to_copy.default(x, dtype=dtype)


@decomposes(aten.exp2.default)
def exp2(x: torch.Tensor) -> torch.Tensor:
    return aten.pow.Scalar(2.0, _as(x, _float_dtype(x)))


@decomposes(aten.signbit.default)
def signbit(x: torch.Tensor) -> torch.Tensor:
    """x < 0, or x is -0.0 (1 / x is -inf)."""
    if x.dtype == torch.bool:
        return aten.zeros_like.default(x)
    negative = aten.lt.Scalar(x, 0)
    if not x.is_floating_point():
        return negative
    minus_zero = aten.logical_and.default(aten.eq.Scalar(x, 0), aten.lt.Scalar(aten.reciprocal.default(x), 0))
    return aten.logical_or.default(negative, minus_zero)


@decomposes(aten.copysign.Tensor)
def copysign(x: torch.Tensor, sign: torch.Tensor) -> torch.Tensor:
    dtype = _float_dtype(x, sign)
    magnitude = aten.abs.default(_as(x, dtype))
    return aten.where.self(signbit(sign), aten.neg.default(magnitude), magnitude)


@decomposes(aten.copysign.Scalar)
def copysign_scalar(x: torch.Tensor, sign: float) -> torch.Tensor:
    magnitude = aten.abs.default(_as(x, _float_dtype(x)))
    return aten.neg.default(magnitude) if math.copysign(1.0, sign) < 0 else magnitude


def _nan_ignoring(a: torch.Tensor, b: torch.Tensor, extreme) -> torch.Tensor:
    dtype = torch.promote_types(a.dtype, b.dtype)
    a, b = _as(a, dtype), _as(b, dtype)
    result = extreme(a, b)
    if not dtype.is_floating_point:
        return result
    result = aten.where.self(aten.isnan.default(a), b, result)
    return aten.where.self(aten.isnan.default(b), a, result)


@decomposes(aten.fmax.default)
def fmax(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """maximum, except that a NaN loses to a number."""
    return _nan_ignoring(a, b, aten.maximum.default)


@decomposes(aten.fmin.default)
def fmin(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return _nan_ignoring(a, b, aten.minimum.default)


@decomposes(aten.hypot.default)
def hypot(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """big * sqrt(1 + (small / big)^2): no overflow where the result fits;
    an infinite side gives inf."""
    dtype = _float_dtype(a, b)
    a, b = aten.abs.default(_as(a, dtype)), aten.abs.default(_as(b, dtype))
    big, small = aten.maximum.default(a, b), aten.minimum.default(a, b)
    safe = aten.where.self(aten.eq.Scalar(big, 0), aten.ones_like.default(big), big)
    ratio = aten.div.Tensor(small, safe)
    result = aten.mul.Tensor(big, aten.sqrt.default(aten.add.Scalar(aten.mul.Tensor(ratio, ratio), 1)))
    infinite = aten.logical_or.default(aten.isinf.default(a), aten.isinf.default(b))
    return aten.where.self(infinite, aten.full_like.default(result, float("inf")), result)


@decomposes(aten.angle.default)
def angle(x: torch.Tensor) -> torch.Tensor:
    """The argument of a real number: pi for negatives, 0 otherwise, NaN kept;
    of a complex one atan2(imag, real), as std::arg."""
    if x.is_complex():
        parts = aten.view_as_real.default(x)
        return aten.atan2.default(aten.select.int(parts, -1, 1), aten.select.int(parts, -1, 0))
    x = _as(x, _float_dtype(x))
    result = aten.where.self(aten.lt.Scalar(x, 0), aten.full_like.default(x, math.pi),
                             aten.zeros_like.default(x))
    return aten.where.self(aten.isnan.default(x), x, result)


@decomposes(aten.erfc.default)
def erfc(x: torch.Tensor) -> torch.Tensor:
    dtype = _float_dtype(x)
    wide = _as(x, torch.float64)
    return _as(aten.rsub.Scalar(aten.erf.default(wide), 1), dtype)


_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61503916999185, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)


def _lgamma_positive(z: torch.Tensor) -> torch.Tensor:
    """log(gamma(z)) for z >= 0.5 (Lanczos, float64)."""
    zm1 = aten.sub.Scalar(z, 1.0)
    series = aten.full_like.default(z, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], start=1):
        series = aten.add.Tensor(series, aten.div.Tensor(aten.full_like.default(z, c), aten.add.Scalar(zm1, float(i))))
    t = aten.add.Scalar(zm1, _LANCZOS_G + 0.5)
    result = aten.mul.Tensor(aten.add.Scalar(zm1, 0.5), aten.log.default(t))
    result = aten.add.Scalar(aten.sub.Tensor(result, t), 0.5 * math.log(2 * math.pi))
    return aten.add.Tensor(result, aten.log.default(series))


@decomposes(aten.lgamma.default)
def lgamma(x: torch.Tensor) -> torch.Tensor:
    """log|gamma(x)|: Lanczos for x >= 0.5, the reflection
    log(pi / |sin(pi x)|) - lgamma(1 - x) below; inf at the poles and at
    +-inf (as eager)."""
    dtype = _float_dtype(x)
    w = _as(x, torch.float64)
    reflect = aten.lt.Scalar(w, 0.5)
    z = aten.where.self(reflect, aten.rsub.Scalar(w, 1.0), w)
    finite_z = aten.where.self(aten.isinf.default(z), aten.ones_like.default(z), z)
    positive = _lgamma_positive(finite_z)
    sine = aten.abs.default(aten.sin.default(aten.mul.Scalar(w, math.pi)))
    reflected = aten.sub.Tensor(aten.log.default(aten.div.Tensor(aten.full_like.default(w, math.pi), sine)),
                                positive)
    result = aten.where.self(reflect, reflected, positive)
    pole = aten.logical_or.default(aten.isinf.default(w),
                                   aten.logical_and.default(aten.le.Scalar(w, 0),
                                                            aten.eq.Tensor(w, aten.floor.default(w))))
    result = aten.where.self(pole, aten.full_like.default(result, float("inf")), result)
    return _as(result, dtype)


def _digamma_positive(z: torch.Tensor) -> torch.Tensor:
    """psi(z) for z > 0: recurrence up to z + 6, then the asymptotic series."""
    correction = aten.zeros_like.default(z)
    for k in range(6):
        correction = aten.add.Tensor(correction, aten.reciprocal.default(aten.add.Scalar(z, float(k))))
    y = aten.add.Scalar(z, 6.0)
    inv2 = aten.reciprocal.default(aten.mul.Tensor(y, y))
    # 1/(12y^2) - 1/(120y^4) + 1/(252y^6) - 1/(240y^8) + 1/(132y^10)
    tail = aten.full_like.default(y, 1.0 / 132)
    for c in (-1.0 / 240, 1.0 / 252, -1.0 / 120, 1.0 / 12):
        tail = aten.add.Scalar(aten.mul.Tensor(tail, inv2), c)
    tail = aten.mul.Tensor(tail, inv2)
    result = aten.sub.Tensor(aten.log.default(y), aten.div.Tensor(aten.full_like.default(y, 0.5), y))
    return aten.sub.Tensor(aten.sub.Tensor(result, tail), correction)


@decomposes(aten.digamma.default)
def digamma(x: torch.Tensor) -> torch.Tensor:
    """psi(x); for x < 0 psi(1 - x) - pi / tan(pi x); -inf at 0, NaN at the
    negative integers and -inf, inf at inf (as eager)."""
    dtype = _float_dtype(x)
    w = _as(x, torch.float64)
    negative = aten.lt.Scalar(w, 0)
    z = aten.where.self(negative, aten.rsub.Scalar(w, 1.0), w)
    safe = aten.where.self(aten.logical_or.default(aten.isinf.default(z), aten.eq.Scalar(z, 0)),
                           aten.ones_like.default(z), z)
    positive = _digamma_positive(safe)
    cotangent = aten.div.Tensor(aten.full_like.default(w, math.pi),
                                aten.tan.default(aten.mul.Scalar(w, math.pi)))
    result = aten.where.self(negative, aten.sub.Tensor(positive, cotangent), positive)
    nan = aten.full_like.default(result, float("nan"))
    integer_pole = aten.logical_and.default(negative, aten.eq.Tensor(w, aten.floor.default(w)))
    result = aten.where.self(integer_pole, nan, result)
    result = aten.where.self(aten.eq.Scalar(w, 0), aten.full_like.default(result, float("-inf")), result)
    result = aten.where.self(aten.eq.Scalar(w, float("inf")), aten.full_like.default(result, float("inf")), result)
    result = aten.where.self(aten.eq.Scalar(w, float("-inf")), nan, result)
    return _as(result, dtype)
