"""torchedge's int8 average over H and W (a torch custom op).

PT2E's static flow leaves global average pooling in float:

    q = quantize_per_tensor(adaptive_avg_pool2d(dequantize_per_tensor(xq, sx, zx), 1), so, zo)

(also mean(x, [-2, -1]) and an avg_pool2d whose window is the whole plane),
which makes the runtime write a float32 copy of the whole activation.
static_int8_fusion.py replaces it with

    torchedge::mean_hw_int8(input, input_scale, input_zero_point, keepdim,
        output_scale, output_zero_point, output_min, output_max) -> Tensor

input int8 [N, C, H, W] (contiguous), output int8 [N, C, 1, 1] (keepdim) or
[N, C]. The formula is integer up to one float32 scaling step, with the
rounding of PyTorch's quantized average pooling (quantized::adaptive_avg_pool2d
on a qint8 tensor: the integer sum divided by H*W, rounded half to even):

    acc   = sum over (h, w) of input[n, c, h, w]  -  H*W * input_zero_point   (exact int)
    ratio = float32(input_scale / output_scale)                   (in double, then rounded)
    v     = float32(acc) * ratio / float32(H*W) + output_zero_point   (float32 steps)
    out   = clamp(round_half_even(v), output_min, output_max)

With the input's quantization on the output (as TorchEdgeQuantizer shares it
across pooling) ratio is 1 and out == round_half_even(sum(input) / (H*W))
exactly (the zero point is added before rounding: half-to-even is not
invariant under odd shifts): PyTorch's quantized kernel bit for bit (tests/quantization/
test_int8_mean.py). Against the float composition it replaces (dequantize,
float mean, quantize) it differs by at most one step, where the float sum's
rounding lands a value on the other side of a half. The runtime kernel
(kernels/quantized/op_mean_hw_int8.cpp) computes the same float32 operations.
"""

from __future__ import annotations

import torch

from torchedge.passes.custom_ops import define_out_op
from torchedge.quantization.int8_conv_ops import NAMESPACE, _check_output, _check_qparams

MEAN_OP_NAME = "mean_hw_int8"
MAX_PLANE = 1 << 16  # H*W bound: int32 sums, and float32(acc) exact (|acc| <= 255 * 2^16 < 2^24)
_MEAN_ARGUMENTS = ("Tensor input, float input_scale, int input_zero_point, bool keepdim, "
                   "float output_scale, int output_zero_point, int output_min, int output_max")


def check_mean_hw_int8(input, input_scale, input_zero_point, keepdim, output_scale,
                       output_zero_point, output_min, output_max) -> list:
    """Validates mean_hw_int8's arguments; returns the output shape."""
    where = f"torchedge::{MEAN_OP_NAME}"
    if input.dtype != torch.int8 or input.dim() != 4:
        raise ValueError(f"{where}: input must be an int8 tensor of rank 4, got "
                         f"{input.dtype} {list(input.shape)}")
    n, c, h, w = input.shape
    if isinstance(h, int) and isinstance(w, int) and not 1 <= h * w <= MAX_PLANE:
        raise ValueError(f"{where}: H*W must be in [1, {MAX_PLANE}], got {h} x {w}")
    _check_qparams(where, "input_", input_scale, input_zero_point)
    _check_output(where, output_scale, output_zero_point, output_min, output_max)
    return [n, c, 1, 1] if keepdim else [n, c]


def mean_hw_int8_reference(input, input_scale, input_zero_point, keepdim, output_scale,
                           output_zero_point, output_min, output_max) -> torch.Tensor:
    shape = check_mean_hw_int8(input, input_scale, input_zero_point, keepdim, output_scale,
                               output_zero_point, output_min, output_max)
    plane = input.shape[2] * input.shape[3]
    acc = input.to(torch.int64).sum(dim=(2, 3)) - plane * input_zero_point
    ratio = torch.tensor(input_scale / output_scale, dtype=torch.float32)
    v = (acc.to(torch.float32) * ratio) / torch.tensor(float(plane), dtype=torch.float32)
    v = v + torch.tensor(float(output_zero_point), dtype=torch.float32)
    out = torch.clamp(torch.round(v), output_min, output_max)
    return out.to(torch.int8).reshape(shape)


def _fake_mean(input, *args):
    return input.new_empty(check_mean_hw_int8(input, *args), dtype=torch.int8)


define_out_op(NAMESPACE, MEAN_OP_NAME, _MEAN_ARGUMENTS, mean_hw_int8_reference, _fake_mean)
