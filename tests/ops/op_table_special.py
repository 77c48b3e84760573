"""The special-function kernels (kernels/portable/special_kernels.inc,
op_special_functions.cpp) against eager PyTorch: their op-table entries.

Each op is sampled inside the range where float32 inputs make finite,
representable results (regular (2, 3, 5), rank 0, empty, broadcast for the
binary ops) plus exact edge values whose results eager defines (zeros,
domain ends, poles); the harness compares under its elementwise tolerance
(float32/float64 rtol 1e-5, atol 1e-6). float32 and float64 only: the
kernels compute in double and round once, which eager's float16 kernels do
not. Not core ATen: each spec keeps its op whole (rules.KEPT_WHOLE does
the same for to_edge).
"""

from __future__ import annotations

from typing import Callable, Optional, Sequence

import torch

from harness import Kind, OpSpec, Sample
from samples import make

aten = torch.ops.aten
FLOATS = (torch.float32, torch.float64)
_NOT_CORE = "not core ATen: kept whole by to_edge"


def _values(dtype: torch.dtype, values: Sequence[float]) -> torch.Tensor:
    return torch.tensor(list(values), dtype=torch.float64).to(dtype)


def _unary(name: str, fn: Callable, keep, low: float, high: float, edges: Sequence[float] = ()) -> OpSpec:
    def samples(dtype: torch.dtype) -> list[Sample]:
        out = [Sample("regular", (make((2, 3, 5), dtype, low=low, high=high),)),
               Sample("rank0", (make((), dtype, low=low, high=high),)),
               Sample("empty", (make((0, 3), dtype),))]
        if edges:
            out.append(Sample("edges", (_values(dtype, edges),)))
        return out

    return OpSpec(name, fn, samples, FLOATS, Kind.ELEMENTWISE, keep=(keep,), notes=_NOT_CORE)


def _binary(name: str, fn: Callable, keep, a_range: tuple[float, float], b_range: tuple[float, float],
            edges: Optional[tuple[Sequence[float], Sequence[float]]] = None,
            b_integer: bool = False) -> OpSpec:
    def b(shape, dtype):
        t = make(shape, dtype, low=b_range[0], high=b_range[1])
        return t.floor() if b_integer else t

    def samples(dtype: torch.dtype) -> list[Sample]:
        a = lambda shape: make(shape, dtype, low=a_range[0], high=a_range[1])  # noqa: E731
        out = [Sample("regular", (a((3, 4)), b((3, 4), dtype))),
               Sample("broadcast", (a((2, 1, 4)), b((3, 1), dtype))),
               Sample("rank0", (a(()), b((), dtype))),
               Sample("empty", (a((0, 4)), b((4,), dtype)))]
        if edges:
            out.append(Sample("edges", (_values(dtype, edges[0]), _values(dtype, edges[1]))))
        return out

    return OpSpec(name, fn, samples, FLOATS, Kind.ELEMENTWISE, keep=(keep,), notes=_NOT_CORE)


S = torch.special
_ZERO_NAN = (0.0, -0.0, float("nan"))

SPECS = [
    _unary("aten::erfinv.out", torch.erfinv, aten.erfinv.default, -0.999, 0.999,
           (-1, 1, 0, 1e-6, -0.9999, 1.5, float("nan"))),
    _unary("aten::special_erfcx.out", S.erfcx, aten.special_erfcx.default, -5, 30,
           (0, -9, 1e4, float("inf"), float("nan"))),
    _unary("aten::special_ndtri.out", S.ndtri, aten.special_ndtri.default, 1e-6, 1,
           (0, 1, 0.5, 1e-30, -0.5, 2, float("nan"))),
    _unary("aten::special_log_ndtr.out", S.log_ndtr, aten.special_log_ndtr.default, -30, 8,
           (0, -40, 10, float("nan"))),
    _unary("aten::i0.out", torch.i0, aten.i0.default, -30, 30, _ZERO_NAN),
    _unary("aten::special_i0e.out", S.i0e, aten.special_i0e.default, -40, 40, _ZERO_NAN + (1e4,)),
    _unary("aten::special_i1.out", S.i1, aten.special_i1.default, -30, 30, _ZERO_NAN),
    _unary("aten::special_i1e.out", S.i1e, aten.special_i1e.default, -40, 40, _ZERO_NAN + (-1e4,)),
    _unary("aten::special_modified_bessel_i0.out", S.modified_bessel_i0,
           aten.special_modified_bessel_i0.default, -30, 30, _ZERO_NAN),
    _unary("aten::special_modified_bessel_i1.out", S.modified_bessel_i1,
           aten.special_modified_bessel_i1.default, -30, 30, _ZERO_NAN),
    _unary("aten::special_modified_bessel_k0.out", S.modified_bessel_k0,
           aten.special_modified_bessel_k0.default, 1e-3, 40, (0, -1, 1e-7, float("inf"), float("nan"))),
    _unary("aten::special_modified_bessel_k1.out", S.modified_bessel_k1,
           aten.special_modified_bessel_k1.default, 1e-3, 40, (0, -1, 1e-7, float("nan"))),
    _unary("aten::special_scaled_modified_bessel_k0.out", S.scaled_modified_bessel_k0,
           aten.special_scaled_modified_bessel_k0.default, 1e-3, 200, (0, -1, 1e-7, float("nan"))),
    _unary("aten::special_scaled_modified_bessel_k1.out", S.scaled_modified_bessel_k1,
           aten.special_scaled_modified_bessel_k1.default, 1e-3, 200, (0, -1, 1e-7, float("nan"))),
    _unary("aten::special_bessel_j0.out", S.bessel_j0, aten.special_bessel_j0.default, -4, 4,
           _ZERO_NAN + (30.5, -100.25)),
    _unary("aten::special_bessel_j1.out", S.bessel_j1, aten.special_bessel_j1.default, -3, 3,
           _ZERO_NAN + (30.5, -100.25)),
    _unary("aten::special_bessel_y0.out", S.bessel_y0, aten.special_bessel_y0.default, 0.01, 2,
           (0, -1, 30.5, 100.25, float("nan"))),
    _unary("aten::special_bessel_y1.out", S.bessel_y1, aten.special_bessel_y1.default, 0.01, 3,
           (0, -1, 30.5, 100.25, float("nan"))),
    _unary("aten::special_spherical_bessel_j0.out", S.spherical_bessel_j0,
           aten.special_spherical_bessel_j0.default, -20, 20, _ZERO_NAN + (1e-6,)),
    _unary("aten::special_airy_ai.out", S.airy_ai, aten.special_airy_ai.default, -2, 10,
           _ZERO_NAN + (float("inf"), -20.5, 50)),
    _binary("aten::igamma.out", torch.igamma, aten.igamma.default, (0.1, 20), (0.01, 30),
            ((0, 0, 1, -1, 2), (0, 1, 0, 1, float("inf")))),
    _binary("aten::igammac.out", torch.igammac, aten.igammac.default, (0.1, 20), (0.01, 30),
            ((0, 0, 1, -1, 2), (0, 1, 0, 1, float("inf")))),
    _binary("aten::special_zeta.out", S.zeta, aten.special_zeta.default, (1.5, 10), (0.5, 10),
            ((2, 2, 2.5, 1, 0.5, 3), (-2, -1.5, -1.5, 1, 1, 0))),
]

_POLYNOMIALS = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
                "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
                "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
                "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
                "laguerre_polynomial_l", "legendre_polynomial_p")
SPECS += [
    _binary(f"aten::special_{name}.out", getattr(S, name), getattr(aten, f"special_{name}").default,
            (-1, 1), (-1, 9), ((0.5, -0.5, 1, 0.25, 2), (-1, 0, 1.5, 6, float("nan"))), b_integer=True)
    for name in _POLYNOMIALS
]


def _polygamma_samples(dtype: torch.dtype) -> list[Sample]:
    out = []
    for n in range(4):
        fn = lambda x, n=n: torch.polygamma(n, x)  # noqa: E731
        out += [Sample(f"n{n}", (make((2, 3, 5), dtype, low=-6, high=8),), fn),
                Sample(f"n{n}_rank0", (make((), dtype, low=0.5, high=4),), fn)]
    out.append(Sample("edges", (_values(dtype, (0, 1, -1.5, 1e-3, float("nan"))),),
                      lambda x: torch.polygamma(1, x)))
    return out


SPECS.append(OpSpec("aten::polygamma.out", lambda x: torch.polygamma(1, x), _polygamma_samples, FLOATS,
                    Kind.ELEMENTWISE, keep=(aten.polygamma.default,), notes=_NOT_CORE))


# -- integer arithmetic and float bits (op_integer_bits.cpp) -------------------------------

INTS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def _int_pair(low: int, high: int, b_low: int, b_high: int,
              edges: tuple[Sequence[int], Sequence[int]]) -> Callable[[torch.dtype], list[Sample]]:
    def samples(dtype: torch.dtype) -> list[Sample]:
        lo = max(low, 0) if dtype == torch.uint8 else low
        b_lo = max(b_low, 0) if dtype == torch.uint8 else b_low
        a = lambda shape: torch.randint(lo, high, shape).to(dtype)  # noqa: E731
        b = lambda shape: torch.randint(b_lo, b_high, shape).to(dtype)  # noqa: E731
        ea, eb = edges
        if dtype == torch.uint8:
            ea, eb = zip(*[(x, y) for x, y in zip(ea, eb) if x >= 0 and y >= 0])
        return [Sample("regular", (a((3, 4)), b((3, 4)))),
                Sample("broadcast", (a((2, 1, 4)), b((3, 1)))),
                Sample("rank0", (a(()), b(()))),
                Sample("empty", (a((0, 4)), b((4,)))),
                Sample("edges", (torch.tensor(ea).to(dtype), torch.tensor(eb).to(dtype)))]
    return samples


def _float_pair(dtype: torch.dtype) -> list[Sample]:
    a, b = make((3, 4), dtype), make((3, 4), dtype)
    edges = _values(dtype, (0, 1, -0.0, float("inf"), float("nan"), 1)), _values(dtype, (-1, 1, 0, 0, 1, float("nan")))
    return [Sample("regular", (a, b)), Sample("broadcast", (make((2, 1, 4), dtype), make((3, 1), dtype))),
            Sample("rank0", (make((), dtype), make((), dtype))), Sample("edges", edges)]


def _frexp_samples(dtype: torch.dtype) -> list[Sample]:
    return [Sample("regular", (make((2, 3, 5), dtype) * 100,)), Sample("rank0", (make((), dtype),)),
            Sample("empty", (make((0, 3), dtype),)),
            Sample("edges", (_values(dtype, (0, -0.0, 3, float("inf"), float("nan"), 1e-40, -7.5)),))]


SPECS += [
    OpSpec("aten::gcd.out", torch.gcd, _int_pair(-30, 30, -30, 30, ((0, 0, -8, 12, 7), (0, -3, 6, -18, 0))),
           INTS, Kind.ELEMENTWISE, keep=(aten.gcd.default,), notes=_NOT_CORE),
    OpSpec("aten::lcm.out", torch.lcm, _int_pair(-12, 12, -12, 12, ((0, 4, -8, 100, 7), (0, -6, 6, 3, 0))),
           INTS, Kind.ELEMENTWISE, keep=(aten.lcm.default,), notes=_NOT_CORE),
    OpSpec("aten::bitwise_left_shift.Tensor_out", torch.bitwise_left_shift,
           _int_pair(-20, 20, 0, 10, ((5, 5, -5, 1, 3), (7, 8, 100, -1, 0))),
           INTS, Kind.ELEMENTWISE, keep=(aten.bitwise_left_shift.Tensor,), notes=_NOT_CORE),
    OpSpec("aten::bitwise_right_shift.Tensor_out", torch.bitwise_right_shift,
           _int_pair(-100, 100, 0, 10, ((5, -5, -100, 100, 3), (7, 8, -1, 70, 0))),
           INTS, Kind.ELEMENTWISE, keep=(aten.bitwise_right_shift.Tensor,), notes=_NOT_CORE),
    OpSpec("aten::nextafter.out", torch.nextafter, _float_pair, FLOATS, Kind.ELEMENTWISE,
           keep=(aten.nextafter.default,), notes=_NOT_CORE),
    OpSpec("aten::frexp.Tensor_out", torch.frexp, _frexp_samples, FLOATS, Kind.ELEMENTWISE,
           keep=(aten.frexp.Tensor,), notes=_NOT_CORE),
]


def _grid_sample_3d(mode: str, padding: str, align: bool) -> Callable:
    return lambda x, g: torch.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding,
                                                        align_corners=align)


def _grid_3d_samples(dtype: torch.dtype) -> list[Sample]:
    x = make((2, 3, 4, 5, 6), dtype)
    grid = make((2, 3, 2, 4, 3), dtype, low=-1.3, high=1.3)
    out = []
    for mode in ("bilinear", "nearest"):
        for padding in ("zeros", "border", "reflection"):
            for align in (False, True):
                out.append(Sample(f"{mode}_{padding}_{int(align)}", (x, grid), _grid_sample_3d(mode, padding, align)))
    return out


SPECS.append(OpSpec("aten::grid_sampler_3d.out", _grid_sample_3d("bilinear", "zeros", False), _grid_3d_samples,
                    FLOATS, Kind.REDUCTION, keep=(aten.grid_sampler_3d.default,), notes=_NOT_CORE))


def _resize_aa(size, align: bool = False) -> Callable:
    return lambda x: torch.nn.functional.interpolate(x, size=size, mode="bilinear", align_corners=align,
                                                     antialias=True)


def _resize_aa_samples(dtype: torch.dtype) -> list[Sample]:
    x = make((2, 3, 10, 20), dtype)
    return [Sample("down", (x,), _resize_aa((3, 7))), Sample("up", (x,), _resize_aa((13, 31))),
            Sample("mixed", (x,), _resize_aa((4, 40))), Sample("align_corners", (x,), _resize_aa((6, 9), True)),
            Sample("same", (make((1, 2, 5, 5), dtype),), _resize_aa((5, 5)))]


SPECS.append(OpSpec("aten::_upsample_bilinear2d_aa.out", _resize_aa((3, 7)), _resize_aa_samples, FLOATS,
                    Kind.REDUCTION, keep=(aten._upsample_bilinear2d_aa.default,), notes=_NOT_CORE))
