"""torchedge::conv2d_winograd_blocked: torchedge::conv2d_winograd
(conv2d_winograd_op.py) on channel-blocked activations (NCHW16c,
conv2d_blocked_op.py), a float32 3x3 stride-1 convolution whose filters
were transformed for Winograd's F(2x2, 3x3) and packed ahead of time.

    torchedge::conv2d_winograd_blocked(Tensor input, Tensor filter_u_packed,
        Tensor? bias, Tensor? residual, int out_channels, int[] padding,
        float output_min, float output_max) -> Tensor

is to_blocked(clamp(conv2d(from_blocked(input), g, bias, stride 1, padding)
(+ from_blocked(residual)), output_min, output_max)) with one group and no
dilation: input is blocked [N, Cin / 16, H, W, 16]; residual and the result
[N, out_channels / 16, OH, OW, 16] with OH = H + 2 ph - 2, OW = W + 2 pw - 2;
out_channels a multiple of 16 (Cout padded to whole blocks); bias None or
[out_channels]. filter_u_packed holds U = transform_filters(w) ([16, Cout,
Cin], point xi = 4 i + j of filter (co, ci) at U[xi, co, ci]) as [16,
ceil(out_channels / 64), Cin / 16, 1024]: U[xi, co, ci] at [xi, co // 64,
ci // 16, (ci % 16) * 64 + co % 64], zeros past Cout and Cin. So each point
is conv2d_blocked's packing of the 1x1 filters U[xi]: the optimized kernel
(kernels/optimized/conv/winograd_blocked.h) runs the 16 products of the
transformed input and filters as 1x1 blocked convolutions. The filters are
g = filters_from_u(U) = H U H^T, as for conv2d_winograd: the reference here,
the portable kernel (kernels/portable/op_conv2d_winograd_blocked.cpp) and
the optimized kernel's fallback for inputs holding an infinity or NaN
compute the direct convolution with them. Rounding as conv2d_blocked:
((sum + bias) + residual), then the clamp (NaN stays NaN). The `.out`
overload (same arguments, then `*, Tensor(a!) out`) is the runtime kernel
"torchedge::conv2d_winograd_blocked.out". Only blocked_layout.py makes these
calls, at to_pte time; the EdgeProgram itself stays core ATen.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch
import torch.nn.functional as F

from torchedge.passes import conv2d_blocked_op as blocked
from torchedge.passes import conv2d_winograd_op as winograd
from torchedge.passes.custom_ops import define_out_op

NAMESPACE = blocked.NAMESPACE
OP_NAME = "conv2d_winograd_blocked"
POINTS = winograd.POINTS
_ARGUMENTS = ("Tensor input, Tensor filter_u_packed, Tensor? bias, Tensor? residual, "
              "int out_channels, int[] padding, float output_min, float output_max")


def pack_winograd_weight(weight: torch.Tensor) -> torch.Tensor:
    """[Cout, Cin, 3, 3] float32 filters -> transform_filters' U, packed:
    [16, ceil(Cout / 64), ceil(Cin / 16), 1024] (contiguous, zeros past Cout
    and Cin)."""
    u = winograd.transform_filters(weight)
    return torch.stack([blocked.pack_weight(u[xi][:, :, None, None])[:, :, 0, 0]
                        for xi in range(POINTS)]).contiguous()


def unpack_winograd_weight(filter_u_packed: torch.Tensor, out_channels: int) -> torch.Tensor:
    """The inverse of pack_winograd_weight, padding input channels kept:
    U [16, out_channels, Cin / 16 * 16]."""
    return torch.stack([blocked.unpack_weight(point[:, :, None, None], out_channels)[:, :, 0, 0]
                        for point in filter_u_packed])


def _check(input, filter_u_packed, bias, residual, out_channels, padding, output_min,
           output_max) -> tuple[list[int], list[int]]:
    """(padding, output shape [N, out_channels / 16, OH, OW, 16]) of a valid call."""
    blocked.check_blocked(input, "input", OP_NAME)
    groups = blocked.check_out_channels(out_channels, OP_NAME)
    expected = [POINTS, groups, input.shape[1], blocked.BLOCK * blocked.GROUP]
    if filter_u_packed.dtype != torch.float32 or list(filter_u_packed.shape) != expected:
        raise ValueError(f"{NAMESPACE}::{OP_NAME}: filter_u_packed must be float32 {expected} "
                         f"(16 points, ceil(out_channels / 64), the input's channel blocks, "
                         f"1024), got {filter_u_packed.dtype} {list(filter_u_packed.shape)}")
    _, pad, oh, ow = blocked.check_window(input, 3, 3, [1], padding, output_min, output_max,
                                          OP_NAME)
    blocked.check_bias(bias, out_channels, OP_NAME)
    shape = [input.shape[0], out_channels // blocked.BLOCK, oh, ow, blocked.BLOCK]
    blocked.check_residual(residual, shape, OP_NAME)
    return pad, shape


def conv2d_winograd_blocked_reference(input: torch.Tensor, filter_u_packed: torch.Tensor,
                                      bias: Optional[torch.Tensor],
                                      residual: Optional[torch.Tensor], out_channels: int,
                                      padding: Sequence[int], output_min: float,
                                      output_max: float) -> torch.Tensor:
    pad, _ = _check(input, filter_u_packed, bias, residual, out_channels, padding, output_min,
                    output_max)
    g = winograd.filters_from_u(unpack_winograd_weight(filter_u_packed, out_channels))
    y = F.conv2d(blocked.from_blocked_reference(input), g, bias, 1, pad)
    if residual is not None:
        y = y + blocked.from_blocked_reference(residual)
    return blocked.to_blocked_reference(torch.clamp(y, output_min, output_max))


def _fake(input, filter_u_packed, bias, residual, out_channels, padding, output_min,
          output_max):
    _, shape = _check(input, filter_u_packed, bias, residual, out_channels, padding, output_min,
                      output_max)
    return input.new_empty(shape)


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, conv2d_winograd_blocked_reference, _fake)
