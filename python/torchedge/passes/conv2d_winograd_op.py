"""torchedge::conv2d_winograd: a float32 3x3 stride-1 convolution whose filters
were transformed for Winograd's F(2x2, 3x3) ahead of time.

    torchedge::conv2d_winograd(Tensor input, Tensor filter_u, Tensor? bias,
        Tensor? residual, int[] padding, float output_min, float output_max) -> Tensor

is clamp(conv2d(input, g, bias, stride 1, padding) (+ residual), output_min,
output_max) with one group and no dilation, where filter_u [16, Cout, Cin]
holds U = G g G^T of every 3x3 filter g[co, ci] (point xi = 4 i + j of the
4x4 result at filter_u[xi, co, ci]) and

    G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]].

transform_filters() computes U in float32 in the order the optimized kernel's
own transform uses (kernels/optimized/conv/winograd_avx2.cpp), so the
optimized kernel gives the same bits whether it transforms the filters per
call or reads them from the file. The filters come back as g = H U H^T
with H = [[1, 0, 0, 0], [0, 1, -1, 0], [0, 0, 0, 1]] (H G = I; rows first,
then columns, in float32): exactly g where a row's outer taps are the
middle one's scale or smaller, within a rounding of the row's magnitude
otherwise. That reconstruction is the op's reference: eager here, the
portable kernel (kernels/portable/op_conv2d_winograd.cpp) and the optimized
kernel's fallback for inputs holding an infinity or NaN (which the
transforms would spread to outputs the direct sums keep finite) compute the
direct convolution with it. The `.out` overload (same arguments, then
`*, Tensor(a!) out`) is the runtime kernel "torchedge::conv2d_winograd.out".
Only winograd_filters.py makes these calls, at to_pte time; the EdgeProgram
itself stays core ATen.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import torch
import torch.nn.functional as F

from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
OP_NAME = "conv2d_winograd"
POINTS = 16  # the 4x4 transform
_ARGUMENTS = ("Tensor input, Tensor filter_u, Tensor? bias, Tensor? residual, int[] padding, "
              "float output_min, float output_max")

def transform_filters(weight: torch.Tensor) -> torch.Tensor:
    """[Cout, Cin, 3, 3] float32 -> U [16, Cout, Cin] (float32, contiguous)."""
    if weight.dim() != 4 or tuple(weight.shape[2:]) != (3, 3) or weight.dtype != torch.float32:
        raise ValueError(f"{NAMESPACE}::{OP_NAME}: filters must be float32 [Cout, Cin, 3, 3], "
                         f"got {weight.dtype} {list(weight.shape)}")
    g = weight.detach()
    half = torch.tensor(0.5, dtype=torch.float32)

    def g_rows(t0, t1, t2):  # G applied to three taps: ((a + b) + c) / 2 style, as the kernel
        return [t0, half * ((t0 + t1) + t2), half * ((t0 - t1) + t2), t2]

    gg = [g_rows(g[..., 0, j], g[..., 1, j], g[..., 2, j]) for j in range(3)]  # gg[j][i]
    points = []
    for i in range(4):
        points += g_rows(gg[0][i], gg[1][i], gg[2][i])  # (G g) G^T, row i
    return torch.stack(points).contiguous()


def filters_from_u(filter_u: torch.Tensor) -> torch.Tensor:
    """U [16, Cout, Cin] -> g [Cout, Cin, 3, 3] = H U H^T (rows, then columns)."""
    u = [[filter_u[4 * i + j] for j in range(4)] for i in range(4)]
    rows = [u[0], [a - b for a, b in zip(u[1], u[2])], u[3]]  # H U: 3 rows of 4
    taps = [[r[0], r[1] - r[2], r[3]] for r in rows]  # (H U) H^T
    return torch.stack([torch.stack(row, dim=-1) for row in taps], dim=-2)


def output_size(size: int, pad: int) -> int:
    return size + 2 * pad - 2


def _check(input: torch.Tensor, filter_u: torch.Tensor, bias: Optional[torch.Tensor],
           residual: Optional[torch.Tensor], padding: Sequence[int], output_min: float,
           output_max: float) -> list[int]:
    where = f"{NAMESPACE}::{OP_NAME}"
    if input.dim() != 4 or input.dtype != torch.float32:
        raise ValueError(f"{where}: input must be a 4-d float32 tensor, got {input.dtype} "
                         f"{list(input.shape)}")
    if filter_u.dim() != 3 or filter_u.shape[0] != POINTS or filter_u.shape[2] != input.shape[1] \
            or filter_u.dtype != torch.float32:
        raise ValueError(f"{where}: filter_u must be float32 [16, Cout, {input.shape[1]}], got "
                         f"{filter_u.dtype} {list(filter_u.shape)}")
    cout = filter_u.shape[1]
    if bias is not None and (bias.dtype != torch.float32 or tuple(bias.shape) != (cout,)):
        raise ValueError(f"{where}: bias must be float32 [{cout}], got {bias.dtype} "
                         f"{list(bias.shape)}")
    pad = list(padding) * 2 if len(padding) == 1 else list(padding)
    if len(pad) != 2 or min(pad) < 0:
        raise ValueError(f"{where}: padding must be 1 or 2 non-negative ints, got {list(padding)}")
    shape = [input.shape[0], cout, output_size(input.shape[2], pad[0]),
             output_size(input.shape[3], pad[1])]
    if min(shape[2:]) < 1:
        raise ValueError(f"{where}: the padded input {list(input.shape)} is smaller than 3x3")
    if residual is not None and (residual.dtype != torch.float32 or list(residual.shape) != shape):
        raise ValueError(f"{where}: residual must be float32 {shape} (the convolution's "
                         f"output), got {residual.dtype} {list(residual.shape)}")
    if math.isnan(output_min) or math.isnan(output_max) or output_min > output_max:
        raise ValueError(f"{where}: need output_min <= output_max, got {output_min} and "
                         f"{output_max}")
    return pad


def conv2d_winograd_reference(input: torch.Tensor, filter_u: torch.Tensor,
                              bias: Optional[torch.Tensor], residual: Optional[torch.Tensor],
                              padding: Sequence[int], output_min: float,
                              output_max: float) -> torch.Tensor:
    pad = _check(input, filter_u, bias, residual, padding, output_min, output_max)
    y = F.conv2d(input, filters_from_u(filter_u), bias, 1, pad)
    if residual is not None:
        y = y + residual
    return torch.clamp(y, output_min, output_max)


def _fake(input, filter_u, bias, residual, padding, output_min, output_max):
    pad = _check(input, filter_u, bias, residual, padding, output_min, output_max)
    return input.new_empty((input.shape[0], filter_u.shape[1],
                            output_size(input.shape[2], pad[0]),
                            output_size(input.shape[3], pad[1])))


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, conv2d_winograd_reference, _fake)
