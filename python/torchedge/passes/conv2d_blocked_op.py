"""torchedge's channel-blocked float32 convolutions and their layout changes.

A blocked activation (NCHW16c, ONNX Runtime calls it NCHWc) is a 5-d float32
[N, CB, H, W, 16] tensor: element (n, c, h, w) of an NCHW tensor with C
channels sits at [n, c // 16, h, w, c % 16], CB = ceil(C / 16), so the 16
channels of one pixel are one 64-byte vector. When C is not a multiple of 16
(MobileNetV2's 24) the last block's lanes past C are padding: to_pte's
blocked_layout.py zero-pads the tensors it blocks and the filters and biases
of the convolutions, so every padding lane holds clamp(0) (0 for ReLU/ReLU6
chains) and is multiplied by zero filters where it is read; the ops below
only ever see whole blocks.

    torchedge::to_blocked(Tensor input) -> Tensor
        [N, C, H, W] -> [N, C / 16, H, W, 16]    (C a multiple of 16)
    torchedge::from_blocked(Tensor input) -> Tensor
        [N, CB, H, W, 16] -> [N, CB * 16, H, W]
    torchedge::conv2d_blocked(Tensor input, Tensor weight_packed, Tensor? bias,
        Tensor? residual, int out_channels, int[] stride, int[] padding,
        float output_min, float output_max) -> Tensor
    torchedge::conv2d_blocked_gelu(<conv2d_blocked's arguments>) -> Tensor
    torchedge::conv2d_blocked_silu(<conv2d_blocked's arguments>) -> Tensor
    torchedge::conv2d_depthwise_blocked(Tensor input, Tensor weight_packed,
        Tensor? bias, int[] stride, int[] padding, float output_min,
        float output_max) -> Tensor
    torchedge::max_pool2d_blocked(Tensor self, int[2] kernel_size, int[2] stride,
        int[2] padding, int[2] dilation, bool ceil_mode) -> Tensor

conv2d_blocked is from_blocked^-1 of clamp(conv2d(from_blocked(input), w,
bias, stride, padding) (+ from_blocked(residual)), output_min, output_max),
one group, no dilation, Cout a multiple of 16: residual and the result are
blocked; the input is blocked, or (a network's first layer, Cin < 16: RGB
images) a plain NCHW [N, Cin, H, W] tensor read as it is. weight_packed
holds the [Cout, Cin, KH, KW] filters w as [ceil(Cout / 64), ceil(Cin / 16),
KH, KW, 1024]: element (co, ci, kh, kw) at [co // 64, ci // 16, kh, kw,
(ci % 16) * 64 + co % 64], zeros past Cout and Cin. So for one input channel
and tap, the filters of 64 output channels (four blocks) are 256 contiguous
bytes: the optimized kernel broadcasts an input value and multiplies it into
four 16-wide weight vectors (kernels/optimized/conv/conv2d_blocked.h).
Rounding: ((sum + bias) + residual), then the clamp (NaN stays NaN), as
conv2d_add_clamp; the sums run in another order than the NCHW kernels'.

conv2d_blocked_gelu is the exact (erf) GELU of conv2d_blocked's result,
gelu(clamp(...)): blocked_layout.py gives a conv2d_blocked whose only
reader is a GELU (approximate="none") that GELU in its epilogue, so the
output is written once instead of written, read and written again (the 1-d
feature extractors of wav2vec2 and Whisper put a GELU after every
convolution). gelu(0) = 0 keeps the padding lanes zero. conv2d_blocked_silu
is the same with SiLU, x / (1 + exp(-x)) (MobileViT's and EfficientNet's
convolutions; silu(0) = 0 too).

conv2d_depthwise_blocked is the depthwise convolution (groups = channels,
one filter per channel, no dilation) on a blocked input, any kernel size
and stride: weight_packed holds the [C, 1, KH, KW] filters as [CB, KH, KW,
16] (channel c's tap (kh, kw) at [c // 16, kh, kw, c % 16], zeros past C),
bias is None or [CB * 16]; (sum + bias), then the clamp. Each tap is one
16-wide multiply-add (kernels/optimized/conv/depthwise_blocked.h).

max_pool2d_blocked is torchedge::max_pool2d (max_pool2d_op.py: NaN wins,
windows clipped to the input, no indices) on a blocked tensor, which it
returns blocked. The `.out` overloads (same arguments, then `*, Tensor(a!)
out`) are the runtime kernels "torchedge::to_blocked.out",
"torchedge::from_blocked.out", "torchedge::conv2d_blocked.out",
"torchedge::conv2d_blocked_gelu.out", "torchedge::conv2d_blocked_silu.out",
"torchedge::conv2d_depthwise_blocked.out" and
"torchedge::max_pool2d_blocked.out". Only blocked_layout.py makes these
calls, at to_pte time; the EdgeProgram itself stays core ATen. The
Winograd form of conv2d_blocked's 3x3 stride-1 case,
torchedge::conv2d_winograd_blocked, is defined in
conv2d_winograd_blocked_op.py with this layout's checks.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

import torch
import torch.nn.functional as F

from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
CONV_OP_NAME = "conv2d_blocked"
CONV_GELU_OP_NAME = "conv2d_blocked_gelu"
CONV_SILU_OP_NAME = "conv2d_blocked_silu"
TO_OP_NAME = "to_blocked"
FROM_OP_NAME = "from_blocked"
POOL_OP_NAME = "max_pool2d_blocked"
DEPTHWISE_OP_NAME = "conv2d_depthwise_blocked"
BLOCK = 16  # channels per vector
GROUP = 64  # output channels per packed weight group (four blocks)
_CONV_ARGUMENTS = ("Tensor input, Tensor weight_packed, Tensor? bias, Tensor? residual, "
                   "int out_channels, int[] stride, int[] padding, float output_min, "
                   "float output_max")
_DEPTHWISE_ARGUMENTS = ("Tensor input, Tensor weight_packed, Tensor? bias, int[] stride, "
                        "int[] padding, float output_min, float output_max")


def blocks(channels: int) -> int:
    """Channel blocks of a blocked tensor with `channels` channels."""
    return (channels + BLOCK - 1) // BLOCK


def pack_weight(weight: torch.Tensor) -> torch.Tensor:
    """[Cout, Cin, KH, KW] float32 -> the packed [ceil(Cout / 64),
    ceil(Cin / 16), KH, KW, 1024] layout (contiguous; zeros past Cout and
    Cin, so padding lanes read or written are multiplied by zero)."""
    if weight.dim() != 4 or weight.dtype != torch.float32 or weight.numel() == 0:
        raise ValueError(f"{NAMESPACE}::{CONV_OP_NAME}: filters must be non-empty float32 "
                         f"[Cout, Cin, KH, KW], got {weight.dtype} {list(weight.shape)}")
    cout, cin_used, kh, kw = weight.shape
    cin = blocks(cin_used) * BLOCK
    groups = (cout + GROUP - 1) // GROUP
    w = torch.zeros(groups * GROUP, cin, kh, kw, dtype=torch.float32)
    w[:cout, :cin_used] = weight.detach()
    # [g, 64 co, cin/16, 16 ci, kh, kw] -> [g, cin/16, kh, kw, 16 ci, 64 co]
    w = w.reshape(groups, GROUP, cin // BLOCK, BLOCK, kh, kw).permute(0, 2, 4, 5, 3, 1)
    return w.reshape(groups, cin // BLOCK, kh, kw, BLOCK * GROUP).contiguous()


def pack_depthwise_weight(weight: torch.Tensor) -> torch.Tensor:
    """[C, 1, KH, KW] float32 depthwise filters -> [ceil(C / 16), KH, KW, 16]
    (contiguous, zeros past C)."""
    if weight.dim() != 4 or weight.dtype != torch.float32 or weight.shape[1] != 1 \
            or weight.numel() == 0:
        raise ValueError(f"{NAMESPACE}::{DEPTHWISE_OP_NAME}: filters must be non-empty float32 "
                         f"[C, 1, KH, KW], got {weight.dtype} {list(weight.shape)}")
    c, _, kh, kw = weight.shape
    w = torch.zeros(blocks(c) * BLOCK, kh, kw, dtype=torch.float32)
    w[:c] = weight.detach()[:, 0]
    return w.reshape(blocks(c), BLOCK, kh, kw).permute(0, 2, 3, 1).contiguous()


def unpack_depthwise_weight(weight_packed: torch.Tensor) -> torch.Tensor:
    """The inverse of pack_depthwise_weight, padding channels kept:
    [CB * 16, 1, KH, KW]."""
    cb, kh, kw, _ = weight_packed.shape
    return weight_packed.permute(0, 3, 1, 2).reshape(cb * BLOCK, 1, kh, kw).contiguous()


def pad_channels(t: torch.Tensor, channels: int) -> torch.Tensor:
    """`t` ([C] or [C, ...]) zero-padded along dim 0 to `channels` rows."""
    if t.shape[0] == channels:
        return t
    padded = t.new_zeros((channels,) + tuple(t.shape[1:]))
    padded[:t.shape[0]] = t
    return padded


def unpack_weight(weight_packed: torch.Tensor, out_channels: int,
                  in_channels: Optional[int] = None) -> torch.Tensor:
    """The inverse of pack_weight: [Cout, Cin, KH, KW] (Cout given, and Cin
    below 16: the packed form rounds them up)."""
    groups, cin_blocks, kh, kw, _ = weight_packed.shape
    w = weight_packed.reshape(groups, cin_blocks, kh, kw, BLOCK, GROUP).permute(0, 5, 1, 4, 2, 3)
    w = w.reshape(groups * GROUP, cin_blocks * BLOCK, kh, kw)[:out_channels]
    return (w if in_channels is None else w[:, :in_channels]).contiguous()


def to_blocked_reference(input: torch.Tensor) -> torch.Tensor:
    _check_nchw(input, TO_OP_NAME)
    n, c, h, w = input.shape
    return input.reshape(n, c // BLOCK, BLOCK, h, w).permute(0, 1, 3, 4, 2).contiguous()


def from_blocked_reference(input: torch.Tensor) -> torch.Tensor:
    check_blocked(input, "input", FROM_OP_NAME)
    n, cb, h, w, _ = input.shape
    return input.permute(0, 1, 4, 2, 3).reshape(n, cb * BLOCK, h, w).contiguous()


def _check_nchw(input: torch.Tensor, op: str) -> None:
    if input.dim() != 4 or input.dtype != torch.float32 or input.shape[1] % BLOCK:
        raise ValueError(f"{NAMESPACE}::{op}: input must be float32 [N, C, H, W] with C a "
                         f"multiple of {BLOCK}, got {input.dtype} {list(input.shape)}")


def check_blocked(t: torch.Tensor, name: str, op: str) -> None:
    if t.dim() != 5 or t.dtype != torch.float32 or t.shape[4] != BLOCK:
        raise ValueError(f"{NAMESPACE}::{op}: {name} must be blocked float32 [N, C/{BLOCK}, H, "
                         f"W, {BLOCK}], got {t.dtype} {list(t.shape)}")


def _pair(values: Sequence[int], name: str, minimum: int, op: str) -> list[int]:
    pair = list(values) * 2 if len(values) == 1 else list(values)
    if len(pair) != 2 or min(pair) < minimum:
        raise ValueError(f"{NAMESPACE}::{op}: {name} must be 1 or 2 ints >= {minimum}, "
                         f"got {list(values)}")
    return pair


def check_window(input, kh: int, kw: int, stride, padding, output_min, output_max,
                 op: str) -> tuple[list[int], list[int], int, int]:
    """(stride, padding, OH, OW) of a convolution's window over `input`
    ([..., H, W, 16] or [N, C, H, W]), its clamp checked."""
    where = f"{NAMESPACE}::{op}"
    st, pad = _pair(stride, "stride", 1, op), _pair(padding, "padding", 0, op)
    oh = (input.shape[2] + 2 * pad[0] - kh) // st[0] + 1
    ow = (input.shape[3] + 2 * pad[1] - kw) // st[1] + 1
    if oh < 1 or ow < 1:
        raise ValueError(f"{where}: the padded input {list(input.shape)} is smaller than the "
                         f"{kh}x{kw} filter")
    if math.isnan(output_min) or math.isnan(output_max) or output_min > output_max:
        raise ValueError(f"{where}: need output_min <= output_max, got {output_min} and "
                         f"{output_max}")
    return st, pad, oh, ow


def check_bias(bias, channels: int, op: str) -> None:
    if bias is not None and (bias.dtype != torch.float32 or list(bias.shape) != [channels]):
        raise ValueError(f"{NAMESPACE}::{op}: bias must be float32 [{channels}], got "
                         f"{bias.dtype} {list(bias.shape)}")


def check_out_channels(out_channels: int, op: str) -> int:
    """The packed weight groups of a convolution with `out_channels` (a
    positive multiple of 16) outputs."""
    if out_channels < BLOCK or out_channels % BLOCK:
        raise ValueError(f"{NAMESPACE}::{op}: out_channels must be a positive multiple of "
                         f"{BLOCK}, got {out_channels}")
    return (out_channels + GROUP - 1) // GROUP


def check_residual(residual, shape: list[int], op: str) -> None:
    if residual is not None and (residual.dtype != torch.float32
                                 or list(residual.shape) != shape):
        raise ValueError(f"{NAMESPACE}::{op}: residual must be float32 {shape} (the "
                         f"convolution's output), got {residual.dtype} {list(residual.shape)}")


def _check_conv(input, weight_packed, bias, residual, out_channels, stride, padding,
                output_min, output_max) -> tuple[list[int], list[int], list[int]]:
    """(stride, padding, output shape [N, Cout/16, OH, OW, 16]) of a valid call."""
    where = f"{NAMESPACE}::{CONV_OP_NAME}"
    plain = input.dim() == 4
    if plain:
        if input.dtype != torch.float32 or not 0 < input.shape[1] < BLOCK:
            raise ValueError(f"{where}: a plain NCHW input must be float32 with fewer than "
                             f"{BLOCK} channels (else blocked), got {input.dtype} "
                             f"{list(input.shape)}")
    else:
        check_blocked(input, "input", CONV_OP_NAME)
    cin_blocks = 1 if plain else input.shape[1]
    groups = check_out_channels(out_channels, CONV_OP_NAME)
    if weight_packed.dim() != 5 or weight_packed.dtype != torch.float32 \
            or weight_packed.shape[0] != groups or weight_packed.shape[1] != cin_blocks \
            or weight_packed.shape[4] != BLOCK * GROUP:
        raise ValueError(f"{where}: weight_packed must be float32 [{groups}, {cin_blocks}, "
                         f"KH, KW, {BLOCK * GROUP}], got {weight_packed.dtype} "
                         f"{list(weight_packed.shape)}")
    kh, kw = weight_packed.shape[2], weight_packed.shape[3]
    st, pad, oh, ow = check_window(input, kh, kw, stride, padding, output_min, output_max,
                                   CONV_OP_NAME)
    check_bias(bias, out_channels, CONV_OP_NAME)
    shape = [input.shape[0], out_channels // BLOCK, oh, ow, BLOCK]
    check_residual(residual, shape, CONV_OP_NAME)
    return st, pad, shape


def _check_depthwise(input, weight_packed, bias, stride, padding, output_min,
                     output_max) -> tuple[list[int], list[int], list[int]]:
    """(stride, padding, output shape [N, CB, OH, OW, 16]) of a valid call."""
    check_blocked(input, "input", DEPTHWISE_OP_NAME)
    cb = input.shape[1]
    if weight_packed.dim() != 4 or weight_packed.dtype != torch.float32 \
            or weight_packed.shape[0] != cb or weight_packed.shape[3] != BLOCK:
        raise ValueError(f"{NAMESPACE}::{DEPTHWISE_OP_NAME}: weight_packed must be float32 "
                         f"[{cb}, KH, KW, {BLOCK}], got {weight_packed.dtype} "
                         f"{list(weight_packed.shape)}")
    st, pad, oh, ow = check_window(input, weight_packed.shape[1], weight_packed.shape[2], stride,
                                   padding, output_min, output_max, DEPTHWISE_OP_NAME)
    check_bias(bias, cb * BLOCK, DEPTHWISE_OP_NAME)
    return st, pad, [input.shape[0], cb, oh, ow, BLOCK]


def conv2d_depthwise_blocked_reference(input: torch.Tensor, weight_packed: torch.Tensor,
                                       bias: Optional[torch.Tensor], stride: Sequence[int],
                                       padding: Sequence[int], output_min: float,
                                       output_max: float) -> torch.Tensor:
    st, pad, _ = _check_depthwise(input, weight_packed, bias, stride, padding, output_min,
                                  output_max)
    channels = input.shape[1] * BLOCK
    y = F.conv2d(from_blocked_reference(input), unpack_depthwise_weight(weight_packed), bias, st,
                 pad, groups=channels)
    return to_blocked_reference(torch.clamp(y, output_min, output_max))


def _fake_depthwise(input, weight_packed, bias, stride, padding, output_min, output_max):
    _, _, shape = _check_depthwise(input, weight_packed, bias, stride, padding, output_min,
                                   output_max)
    return input.new_empty(shape)


def conv2d_blocked_reference(input: torch.Tensor, weight_packed: torch.Tensor,
                             bias: Optional[torch.Tensor], residual: Optional[torch.Tensor],
                             out_channels: int, stride: Sequence[int], padding: Sequence[int],
                             output_min: float, output_max: float) -> torch.Tensor:
    st, pad, _ = _check_conv(input, weight_packed, bias, residual, out_channels, stride, padding,
                             output_min, output_max)
    plain = input.dim() == 4
    weight = unpack_weight(weight_packed, out_channels, input.shape[1] if plain else None)
    y = F.conv2d(input if plain else from_blocked_reference(input), weight, bias, st, pad)
    if residual is not None:
        y = y + from_blocked_reference(residual)
    return to_blocked_reference(torch.clamp(y, output_min, output_max))


def _then(activation: Callable[[torch.Tensor], torch.Tensor]) -> Callable[..., torch.Tensor]:
    """conv2d_blocked_reference followed by an elementwise `activation` (the
    layout does not matter to it)."""
    def reference(input: torch.Tensor, weight_packed: torch.Tensor,
                  bias: Optional[torch.Tensor], residual: Optional[torch.Tensor],
                  out_channels: int, stride: Sequence[int], padding: Sequence[int],
                  output_min: float, output_max: float) -> torch.Tensor:
        return activation(conv2d_blocked_reference(input, weight_packed, bias, residual,
                                                   out_channels, stride, padding, output_min,
                                                   output_max))
    return reference


conv2d_blocked_gelu_reference = _then(F.gelu)
conv2d_blocked_silu_reference = _then(F.silu)


def _fake_conv(input, weight_packed, bias, residual, out_channels, stride, padding, output_min,
               output_max):
    _, _, shape = _check_conv(input, weight_packed, bias, residual, out_channels, stride,
                              padding, output_min, output_max)
    return input.new_empty(shape)


def _fake_to(input):
    _check_nchw(input, TO_OP_NAME)
    n, c, h, w = input.shape
    return input.new_empty((n, c // BLOCK, h, w, BLOCK))


def _fake_from(input):
    check_blocked(input, "input", FROM_OP_NAME)
    n, cb, h, w, _ = input.shape
    return input.new_empty((n, cb * BLOCK, h, w))


_POOL_ARGUMENTS = ("Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, "
                   "int[2] dilation, bool ceil_mode")


def max_pool2d_blocked_reference(self: torch.Tensor, kernel_size: Sequence[int],
                                 stride: Sequence[int], padding: Sequence[int],
                                 dilation: Sequence[int], ceil_mode: bool) -> torch.Tensor:
    check_blocked(self, "self", POOL_OP_NAME)
    y = torch.ops.aten.max_pool2d_with_indices.default(
        from_blocked_reference(self), list(kernel_size), list(stride), list(padding),
        list(dilation), ceil_mode)[0]
    return to_blocked_reference(y)


def _fake_pool(self, kernel_size, stride, padding, dilation, ceil_mode):
    check_blocked(self, "self", POOL_OP_NAME)
    n, cb, h, w, _ = self.shape
    y = torch.ops.aten.max_pool2d_with_indices.default(
        self.new_empty((n, cb * BLOCK, h, w)), list(kernel_size), list(stride), list(padding),
        list(dilation), ceil_mode)[0]
    return self.new_empty((n, cb, y.shape[2], y.shape[3], BLOCK))


define_out_op(NAMESPACE, POOL_OP_NAME, _POOL_ARGUMENTS, max_pool2d_blocked_reference, _fake_pool)
define_out_op(NAMESPACE, CONV_OP_NAME, _CONV_ARGUMENTS, conv2d_blocked_reference, _fake_conv)
define_out_op(NAMESPACE, CONV_GELU_OP_NAME, _CONV_ARGUMENTS, conv2d_blocked_gelu_reference,
              _fake_conv)
define_out_op(NAMESPACE, CONV_SILU_OP_NAME, _CONV_ARGUMENTS, conv2d_blocked_silu_reference,
              _fake_conv)
define_out_op(NAMESPACE, DEPTHWISE_OP_NAME, _DEPTHWISE_ARGUMENTS,
              conv2d_depthwise_blocked_reference, _fake_depthwise)
define_out_op(NAMESPACE, TO_OP_NAME, "Tensor input", to_blocked_reference, _fake_to)
define_out_op(NAMESPACE, FROM_OP_NAME, "Tensor input", from_blocked_reference, _fake_from)
