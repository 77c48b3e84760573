"""What the op table is made of: the dtypes, the tolerance table, `Sample`
(one shape case of one dtype) and `OpSpec` (how the harness reaches and
checks one kernel), plus `replace_calls` for specs that rewrite the graph.

Tolerance table (runtime vs eager, |actual - expected| <= atol + rtol * |expected|):

    dtype               elementwise              reduction / matmul / conv / norm
    float32, float64    rtol 1e-5, atol 1e-6     rtol 1e-4, atol 1e-5
    float16             rtol 1e-3, atol 1e-3     rtol 1e-3, atol 1e-3
    bfloat16            rtol 1e-2, atol 1e-2     rtol 1e-2, atol 1e-2
    integers, bool      exact                    exact
    complex32/64/128    as float16 / float32 / float64, on real and imaginary parts
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

import torch
import torch.fx
from torch._ops import OpOverload

ALL_DTYPES = (
    torch.float32, torch.float64, torch.float16, torch.bfloat16,
    torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool,
)
FLOAT_DTYPES = ALL_DTYPES[:4]
INT_DTYPES = ALL_DTYPES[4:9]
REAL_DTYPES = ALL_DTYPES[:9]  # everything but bool
COMPLEX_DTYPES = (torch.complex32, torch.complex64, torch.complex128)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def dtype_from_name(name: str) -> torch.dtype:
    return getattr(torch, name)


class Kind(enum.Enum):
    ELEMENTWISE = "elementwise"
    REDUCTION = "reduction"  # reductions, matmul, conv, normalization, pooling


def tolerance(dtype: torch.dtype, kind: Kind) -> tuple[float, float]:
    """(rtol, atol) of the table in this file's docstring (a complex dtype
    as its parts' dtype)."""
    dtype = {torch.complex32: torch.float16, torch.complex64: torch.float32,
             torch.complex128: torch.float64}.get(dtype, dtype)
    if dtype in (torch.float32, torch.float64):
        return (1e-5, 1e-6) if kind is Kind.ELEMENTWISE else (1e-4, 1e-5)
    if dtype == torch.float16:
        return 1e-3, 1e-3
    if dtype == torch.bfloat16:
        return 1e-2, 1e-2
    return 0.0, 0.0


@dataclass(frozen=True)
class Sample:
    """One shape case of one dtype: `fn(*inputs)` (fn defaults to the OpSpec's).

    Inputs listed in `channels_last` are converted to channels-last inside
    the lowered graph (the runtime's Python inputs are contiguous), so the
    kernel sees a channels-last dim order.
    """

    case: str
    inputs: tuple[torch.Tensor, ...]
    fn: Optional[Callable[..., Any]] = None
    channels_last: tuple[int, ...] = ()
    # float16/bfloat16 only: compare with eager run in float32 and rounded to
    # the dtype, for ops whose eager 16-bit CPU path rounds partial sums
    # (e.g. slow_conv_transpose2d's column buffer) and so is less exact
    # than a kernel that accumulates in float.
    float_reference: bool = False
    # float32/16-bit: compare with eager run in float64 and rounded to the
    # dtype, for values where eager's result depends on the CPU it runs on
    # (its vectorized gelu gives NaN for +inf on AVX-512 and inf on AVX2;
    # float64, like the math and our kernels, gives inf).
    double_reference: bool = False


@dataclass(frozen=True)
class OpSpec:
    """How the harness reaches and checks one kernel (an OpInfo-lite entry)."""

    name: str                                          # kernel name, "aten::add.out"
    fn: Callable[..., Any]                             # builds the op from torch
    samples: Callable[[torch.dtype], list[Sample]]     # shape cases per dtype
    dtypes: tuple[torch.dtype, ...] = ALL_DTYPES       # dtypes worth trying
    kind: Kind = Kind.ELEMENTWISE
    keep: tuple[OpOverload, ...] = ()                  # ops kept out of decomposition
    rewrite: Optional[Callable[[torch.fx.GraphModule], None]] = None
    rename: Mapping[str, str] = field(default_factory=dict)  # emitted name -> kernel name
    keep_copies: bool = False   # keep same-layout clones (to_edge drops them otherwise)
    notes: str = ""


def replace_calls(
    source: OpOverload,
    target: OpOverload,
    arguments: Callable[[tuple, dict], tuple[tuple, dict]] = lambda a, k: (a, k),
) -> Callable[[torch.fx.GraphModule], None]:
    """A `rewrite` that calls `target` where the edge graph calls `source`
    (same results; `arguments` maps source's (args, kwargs) to target's)."""

    def rewrite(gm: torch.fx.GraphModule) -> None:
        for node in gm.graph.nodes:
            if node.op == "call_function" and node.target == source:
                node.target = target
                node.args, node.kwargs = arguments(tuple(node.args), dict(node.kwargs))

    return rewrite
