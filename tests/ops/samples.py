"""Input generators for the op table: tensors per dtype, and the common shape
cases (regular, broadcast, rank 0, empty, channels-last) plus edge values
(NaN, infinities, signed zeros, integer extremes) of unary and binary
elementwise ops.

Values are small and, where an op has a domain, inside it: integers in
[-9, 9] (uint8 [0, 19]), floats ~ N(0, 2), `positive` gives (0.1, 4] and 1..9,
`nonzero` replaces zeros by one. The harness seeds torch per (op, dtype).
"""

from __future__ import annotations

from typing import Callable, Optional

import torch

from harness import Sample

Shape = tuple[int, ...]


def make(shape: Shape, dtype: torch.dtype, *, positive: bool = False, nonzero: bool = False,
         low: Optional[float] = None, high: Optional[float] = None) -> torch.Tensor:
    """A random tensor of `shape` and `dtype` (see the module docstring)."""
    if dtype.is_complex:  # (real, imag) each drawn as the parts' floating dtype
        part = {torch.complex32: torch.float16, torch.complex64: torch.float32}.get(dtype, torch.float64)
        real = make(shape, part, positive=positive, nonzero=nonzero, low=low, high=high)
        return torch.complex(real, make(shape, part, low=low, high=high)).to(dtype).contiguous()
    if dtype == torch.bool:
        t = torch.randint(0, 2, shape).bool()
        t = torch.ones(shape, dtype=torch.bool) if (positive or nonzero) else t
        return t.clone(memory_format=torch.contiguous_format)
    if dtype.is_floating_point:
        if low is not None or high is not None:
            lo, hi = (low if low is not None else -4.0), (high if high is not None else 4.0)
            t = torch.rand(shape, dtype=torch.float64) * (hi - lo) + lo
        elif positive:
            t = torch.rand(shape, dtype=torch.float64) * 3.9 + 0.1
        else:
            t = torch.randn(shape, dtype=torch.float64) * 2
        t = t.to(dtype)
    else:
        lo = int(low) if low is not None else (1 if positive else (0 if dtype == torch.uint8 else -9))
        hi = int(high) if high is not None else (20 if dtype == torch.uint8 else 10)
        t = torch.randint(lo, hi, shape, dtype=torch.int64).to(dtype)
    if nonzero:
        t = torch.where(t == 0, torch.ones((), dtype=dtype), t)
    # Standard contiguous strides: arithmetic on empty tensors can leave
    # strides like (3, 0, 1) for shape (0, 1, 3), which export reads as
    # another dim order (reported; not what this harness tests).
    return t.clone(memory_format=torch.contiguous_format)


SPECIAL_FLOATS = (float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 100.0)


def special(dtype: torch.dtype, reverse: bool = False) -> Optional[torch.Tensor]:
    """Edge values of `dtype`: NaN, +-inf, +-0 ... for floats (complex: those
    as real parts against the reversed list as imaginary parts), the extremes
    (min, max, min + 1, max - 1, 0, 1, -1) for integers; None for bool."""
    if dtype == torch.bool:
        return None
    if dtype.is_complex:  # the float edge values against each other as (real, imag)
        part = special(torch.float64, reverse)
        return torch.complex(part, part.flip(0)).to(dtype)
    if dtype.is_floating_point:
        values = list(SPECIAL_FLOATS)
    else:
        info = torch.iinfo(dtype)
        values = [info.min, info.max, info.min + 1, info.max - 1, 0, 1] + ([-1] if info.min < 0 else [2])
    return torch.tensor(values[::-1] if reverse else values, dtype=dtype)


def other_dtype(dtype: torch.dtype) -> torch.dtype:
    """A second dtype to promote with: float32 for non-float32, else int64."""
    return torch.int64 if dtype == torch.float32 else torch.float32


def unary(dtype: torch.dtype, fn: Optional[Callable] = None, *, channels_last: bool = True,
          empty: bool = True, **make_kw) -> list[Sample]:
    """regular (2, 3, 5), rank0 (), empty (0, 3), channels_last (2, 3, 4, 5)."""
    out = [Sample("regular", (make((2, 3, 5), dtype, **make_kw),), fn),
           Sample("rank0", (make((), dtype, **make_kw),), fn)]
    if empty:
        out.append(Sample("empty", (make((0, 3), dtype, **make_kw),), fn))
    if channels_last:
        out.append(Sample("channels_last", (make((2, 3, 4, 5), dtype, **make_kw),), fn,
                          channels_last=(0,)))
    edge = special(dtype)
    if edge is not None and (dtype.is_floating_point or dtype.is_complex
                             or not ({"low", "high"} & set(make_kw))):
        out.append(Sample("special", (edge,), fn))
    return out


def binary(dtype: torch.dtype, fn: Optional[Callable] = None, *, promote: bool = True,
           rhs: Optional[dict] = None, **make_kw) -> list[Sample]:
    """regular, broadcast, rank0 (a 0-dim operand, and both 0-dim), empty,
    channels_last (both, and mixed with contiguous) and, with `promote`, a
    second operand of other_dtype(dtype). `rhs` overrides make() options of
    the second operand (e.g. nonzero divisors)."""
    rhs = {**make_kw, **(rhs or {})}
    a = lambda shape, d=dtype: make(shape, d, **make_kw)  # noqa: E731
    b = lambda shape, d=dtype: make(shape, d, **rhs)  # noqa: E731
    out = [
        Sample("regular", (a((3, 4)), b((3, 4))), fn),
        Sample("broadcast", (a((2, 1, 4)), b((3, 1))), fn),
        Sample("rank0", (a((3, 4)), b(())), fn),
        Sample("rank0_both", (a(()), b(())), fn),
        Sample("empty", (a((0, 4)), b((4,))), fn),
        Sample("channels_last", (a((2, 3, 4, 5)), b((2, 3, 4, 5))), fn, channels_last=(0, 1)),
        Sample("channels_last_mixed", (a((2, 3, 4, 5)), b((2, 3, 4, 5))), fn, channels_last=(0,)),
    ]
    if promote:
        out.append(Sample("promote", (a((3, 4)), b((3, 4), other_dtype(dtype))), fn))
    edge = special(dtype)
    if edge is not None and (dtype.is_floating_point or dtype.is_complex):
        out.append(Sample("special", (edge, special(dtype, reverse=True)), fn))
    elif edge is not None and not ({"low", "high"} & set(make_kw)):
        # integer extremes against small positive values (no x / 0, no INT_MIN / -1)
        out.append(Sample("extremes", (edge, torch.arange(1, len(edge) + 1, dtype=dtype)), fn))
    return out


def scalar_rhs(dtype: torch.dtype, fn: Callable, **make_kw) -> list[Sample]:
    """Ops with a Python-number operand baked into `fn`: the unary cases."""
    return unary(dtype, fn, **make_kw)
