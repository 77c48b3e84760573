"""torchedge's static int8 convolution, linear and add operators (torch custom ops).

PT2E's static flow (convert_pt2e) expresses an int8 convolution as

    q_out = quantize_per_tensor(act(conv2d(dequantize_per_tensor(xq, sx, zx, -128, 127, int8),
                                            dequantize_per_channel(W, S, None/0, 0, ..., int8),
                                            bias, stride, padding, dilation, groups)),
                                so, zo, -128, 127, int8)          # act: none, relu, hardtanh

a linear layer likewise with linear(dequantize_per_tensor(xq), dequantize_per_channel(W),
bias) in place of conv2d, and a residual add as
quantize_per_tensor(act(dequantize(a) + dequantize(b)), ...).
static_int8_fusion.py replaces those patterns with one call each:

    torchedge::conv2d_int8(input, input_scale, input_zero_point, weight_panels,
        weight_scales, bias, kernel_size, stride, padding, dilation, groups,
        output_scale, output_zero_point, output_min, output_max, weight_bits=8,
        weight_sums=None) -> Tensor
    torchedge::depthwise_conv2d_int8(input, input_scale, input_zero_point, weight,
        weight_scales, bias, stride, padding, dilation,
        output_scale, output_zero_point, output_min, output_max) -> Tensor
    torchedge::quantized_linear(input_q, input_scale, input_zero_point, weight_q,
        weight_scales, bias, out_scale, out_zero_point, out_quant_min, out_quant_max,
        weight_sums=None)
    torchedge::add_int8(a, a_scale, a_zero_point, b, b_scale, b_zero_point,
        output_scale, output_zero_point, output_min, output_max) -> Tensor

and a conv2d_int8 whose output only a residual add reads becomes one call
(the ResNet block's tail; the add's operand order does not matter: float
addition commutes):

    torchedge::conv2d_add_int8(<conv2d_int8's arguments, its output_* renamed
        conv_*>, residual, residual_scale, residual_zero_point,
        output_scale, output_zero_point, output_min, output_max, weight_bits=8,
        weight_sums=None) -> Tensor
    == add_int8(conv2d_int8(..., conv_scale, conv_zero_point, conv_min, conv_max),
                conv_scale, conv_zero_point, residual, residual_scale,
                residual_zero_point, output_scale, ...)

each with an `.out` overload (the runtime kernels' names, kernels/quantized/
op_conv2d_int8.cpp, op_depthwise_conv2d_int8.cpp, op_quantized_linear.cpp,
op_add_int8.cpp, op_conv2d_add_int8.cpp). The
activation is folded into [output_min, output_max]: quantization is monotone,
so quantize(clamp(y, a, b)) == clamp(quantize(y), quantize(a), quantize(b)).

The CPU implementations below are exactly the composition above with the
output range as quant_min/quant_max (so the eager quantized reference is
bit-identical before and after the fusion); the runtime kernels sum in int32
and differ from eager by float rounding only. Tensors: input/a/b int8 NCHW;
weight_scales float32 [Cout] (Cout comes from here); bias float32 [Cout] or
None; quantized_linear's input_q is int8 [..., K], weight_q the plain int8
[N, K] (the kernel reads it row by row); weight_sums, when given, int32 [N]
with weight_sums[n] = sum_k weight_q[n, k] (the fusion stores it: kernels that
multiply the raw int8 input, AArch64's sdot / SMMLA GEMMs, subtract
input_zero_point * weight_sums[n] from each sum instead of summing the weights
on every call; the reference checks it). conv2d_int8 stores its weight in the "panel layout" of the runtime GEMM
(`pack_conv_weight_panels`): per group, Cout_g = Cout / groups rows and
K = (Cin / groups) * KH * KW inputs in PyTorch's (c, kh, kw) order; rows in
panels of 6, within a panel K in quads (K padded to a multiple of 4), within a
quad the 6 rows, within a row the quad's four k: row r, input k of group g is
at [g, r // 6, k // 4, r % 6, k % 4] of an int8
[groups, ceil(Cout_g / 6), ceil(K / 4), 6, 4] tensor; padding holds 0. The
shape spells the layout out so that files written with the earlier flat
[groups, panels, K * 6] form (same bytes, other order) are rejected at load. A quad row is the 4 bytes a VNNI vpdpbusd lane multiplies; the AVX2
kernel splits it into its two int16 pairs.
weight_bits is 7 when every weight is in [-64, 63] (the fusion measures it;
quantizing with weight_bits=7 makes it so), else 8: it changes no value, only
lets the runtime multiply u8 x s8 pairs without saturating on AVX2 CPUs
without VNNI (kernels/quantized/support/x86/int8_conv_u8_avx2.cpp); the
references check the promise.
conv2d_int8's and conv2d_add_int8's weight_sums, when given, is int32 [Cout]
with weight_sums[m] = the sum of output channel m's int8 weights
(`conv_weight_sums`; the fusion stores it: AArch64's sdot convolution starts
each sum at -input_zero_point * weight_sums[m] instead of summing the panels
on every call; the references check it).
depthwise_conv2d_int8 (groups == Cin == Cout) reads the plain int8
[C, 1, KH, KW] weight.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (defines quantized_decomposed)
import torch.nn.functional as F

NAMESPACE = "torchedge"
CONV_OP_NAME = "conv2d_int8"
DEPTHWISE_OP_NAME = "depthwise_conv2d_int8"
ADD_OP_NAME = "add_int8"
CONV_ADD_OP_NAME = "conv2d_add_int8"
LINEAR_OP_NAME = "quantized_linear"
PANEL = 6          # output channels per panel (the runtime GEMM's tile height)
QUAD = 4           # inputs per row of a panel's K step (a vpdpbusd lane)
MAX_K = 65536      # inputs per output channel the runtime's int32 sums allow
INT8_MIN, INT8_MAX = -128, 127

_CONV_ARGUMENTS = ("Tensor input, float input_scale, int input_zero_point, Tensor weight_panels, "
                   "Tensor weight_scales, Tensor? bias, int[] kernel_size, int[] stride, "
                   "int[] padding, int[] dilation, int groups, float output_scale, "
                   "int output_zero_point, int output_min, int output_max")
_DEPTHWISE_ARGUMENTS = ("Tensor input, float input_scale, int input_zero_point, Tensor weight, "
                        "Tensor weight_scales, Tensor? bias, int[] stride, int[] padding, "
                        "int[] dilation, float output_scale, int output_zero_point, "
                        "int output_min, int output_max")
_ADD_ARGUMENTS = ("Tensor a, float a_scale, int a_zero_point, Tensor b, float b_scale, "
                  "int b_zero_point, float output_scale, int output_zero_point, "
                  "int output_min, int output_max")
# The weights' width, then each output channel's weight sum, last (defaults:
# files written before them load as 8 bits and without sums).
_WEIGHT_BITS_ARGUMENT = ", int weight_bits=8, Tensor? weight_sums=None"
# conv2d_int8's arguments with its output quantization renamed conv_*, then the add's.
_CONV_ADD_ARGUMENTS = (_CONV_ARGUMENTS.replace("float output_", "float conv_")
                       .replace("int output_", "int conv_")
                       + ", Tensor residual, float residual_scale, int residual_zero_point, "
                       "float output_scale, int output_zero_point, int output_min, "
                       "int output_max" + _WEIGHT_BITS_ARGUMENT)
_CONV_ARGUMENTS += _WEIGHT_BITS_ARGUMENT

_LINEAR_ARGUMENTS = ("Tensor input_q, float input_scale, int input_zero_point, Tensor weight_q, "
                     "Tensor weight_scales, Tensor? bias, float out_scale, int out_zero_point, "
                     "int out_quant_min, int out_quant_max, Tensor? weight_sums=None")

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


# -- the panel layout --------------------------------------------------------------

def panel_shape(out_channels: int, k: int, groups: int) -> list:
    """[groups, ceil(Cout_g / 6), ceil(K / 4), 6, 4] for Cout = out_channels, K inputs per
    row: each panel is K quads of 6 rows x 4 inputs. The layout is spelled out in the
    shape (not flattened) so a file written with an earlier layout of the same bytes
    is rejected at load, not silently misread."""
    cout_g, quads = out_channels // groups, -(-k // QUAD)
    return [groups, -(-cout_g // PANEL), quads, PANEL, QUAD]


def panel_index(row: int, k: int) -> tuple:
    """(panel, offset) of row `row`, input `k` of a group in the panel layout (the
    offset into the panel's flattened [quads, 6, 4])."""
    return row // PANEL, (k & ~(QUAD - 1)) * PANEL + (row % PANEL) * QUAD + (k & (QUAD - 1))


def pack_conv_weight_panels(weight_q: torch.Tensor, groups: int) -> torch.Tensor:
    """int8 [Cout, Cin_g, KH, KW] -> the panel layout, int8 [groups, ceil(Cout_g / 6),
    ceil(K / 4), 6, 4]."""
    if weight_q.dtype != torch.int8 or weight_q.dim() != 4:
        raise ValueError(f"pack_conv_weight_panels: weight must be int8 [Cout, Cin/groups, KH, "
                         f"KW], got {weight_q.dtype} {list(weight_q.shape)}")
    cout = weight_q.shape[0]
    if not isinstance(groups, int) or groups < 1 or cout % groups:
        raise ValueError(f"pack_conv_weight_panels: groups ({groups}) must be >= 1 and divide "
                         f"Cout ({cout})")
    cout_g, k = cout // groups, math.prod(weight_q.shape[1:])
    _, panels, quads, _, _ = panel_shape(cout, k, groups)
    padded = torch.zeros(groups, panels * PANEL, quads * QUAD, dtype=torch.int8)
    padded[:, :cout_g, :k] = weight_q.reshape(groups, cout_g, k)
    return padded.reshape(groups, panels, PANEL, quads, QUAD).permute(0, 1, 3, 2, 4).contiguous()


def unpack_conv_weight_panels(weight_panels: torch.Tensor, out_channels: int,
                              in_channels_per_group: int, kernel_size: Sequence[int],
                              groups: int) -> torch.Tensor:
    """The inverse of pack_conv_weight_panels: int8 [Cout, Cin_g, KH, KW]."""
    kh, kw = kernel_size
    k = in_channels_per_group * kh * kw
    expected = panel_shape(out_channels, k, groups)
    if weight_panels.dtype != torch.int8 or list(weight_panels.shape) != expected:
        raise ValueError(f"torchedge::{CONV_OP_NAME}: weight_panels must be int8 {expected} for "
                         f"Cout = {out_channels}, Cin/groups = {in_channels_per_group}, "
                         f"kernel {list(kernel_size)}, groups = {groups}, got "
                         f"{weight_panels.dtype} {list(weight_panels.shape)}")
    _, panels, quads, _, _ = expected
    full = weight_panels.permute(0, 1, 3, 2, 4)  # [groups, panels, 6, quads, 4]
    rows = full.reshape(groups, panels * PANEL, quads * QUAD)[:, :out_channels // groups, :k]
    return rows.reshape(out_channels, in_channels_per_group, kh, kw)


# -- argument checks (shared by the eager and fake implementations) ---------------

def _pair(where: str, name: str, value: Sequence[int], minimum: int) -> list:
    if len(value) != 2 or any(not isinstance(v, int) or v < minimum for v in value):
        raise ValueError(f"{where}: {name} must be 2 ints >= {minimum}, got {list(value)}")
    return list(value)


def _check_qparams(where: str, prefix: str, scale: float, zero_point: int) -> None:
    if not (math.isfinite(scale) and scale > 0):
        raise ValueError(f"{where}: {prefix}scale must be finite and > 0, got {scale}")
    if not INT8_MIN <= zero_point <= INT8_MAX:
        raise ValueError(f"{where}: {prefix}zero_point must be in [-128, 127], got {zero_point}")


def _check_output(where: str, output_scale: float, output_zero_point: int, output_min: int,
                  output_max: int, prefix: str = "output_") -> None:
    _check_qparams(where, prefix, output_scale, output_zero_point)
    if not INT8_MIN <= output_min <= output_max <= INT8_MAX:
        raise ValueError(f"{where}: need -128 <= {prefix}min <= {prefix}max <= 127, got "
                         f"{prefix}min = {output_min}, {prefix}max = {output_max}")


def _check_int8(where: str, name: str, t: torch.Tensor, rank: int) -> None:
    if t.dtype != torch.int8 or t.dim() != rank:
        raise ValueError(f"{where}: {name} must be an int8 tensor of rank {rank}, got "
                         f"{t.dtype} {list(t.shape)}")


def _check_bias(where: str, cout: int, bias: Optional[torch.Tensor]) -> None:
    if bias is not None and (bias.dtype != torch.float32 or list(bias.shape) != [cout]):
        raise ValueError(f"{where}: bias must be float32 [{cout}] or None, got "
                         f"{bias.dtype} {list(bias.shape)}")


def _conv_output_shape(where: str, input: torch.Tensor, cout: int, kernel_size: Sequence[int],
                       stride: Sequence[int], padding: Sequence[int],
                       dilation: Sequence[int]) -> list:
    n, _, h, w = input.shape
    sizes = []
    for extent, k, s, p, d in zip((h, w), kernel_size, stride, padding, dilation):
        size = (extent + 2 * p - d * (k - 1) - 1) // s + 1
        if size < 1:
            raise ValueError(f"{where}: input {list(input.shape)} is smaller than the dilated "
                             f"kernel {list(kernel_size)} (padding {list(padding)}, dilation "
                             f"{list(dilation)})")
        sizes.append(size)
    return [n, cout, *sizes]


def check_conv2d_int8(input, input_scale, input_zero_point, weight_panels, weight_scales, bias,
                      kernel_size, stride, padding, dilation, groups, output_scale,
                      output_zero_point, output_min, output_max, weight_bits=8,
                      weight_sums=None) -> list:
    """Validates conv2d_int8's arguments; returns the output shape."""
    where = f"torchedge::{CONV_OP_NAME}"
    _check_weight_bits(where, weight_bits)
    _check_weight_sums(where, weight_scales, weight_sums)
    return _check_conv(where, "output_", input, input_scale,
                       input_zero_point, weight_panels, weight_scales, bias, kernel_size, stride,
                       padding, dilation, groups, output_scale, output_zero_point, output_min,
                       output_max)


def _check_weight_sums(where: str, weight_scales: torch.Tensor,
                       weight_sums: Optional[torch.Tensor]) -> None:
    cout = weight_scales.shape[0] if weight_scales.dim() == 1 else None
    if weight_sums is not None and (weight_sums.dtype != torch.int32
                                    or list(weight_sums.shape) != [cout]):
        raise ValueError(f"{where}: weight_sums must be int32 [{cout}] (Cout) or None, got "
                         f"{weight_sums.dtype} {list(weight_sums.shape)}")


def conv_weight_sums(weight_panels: torch.Tensor, out_channels: int) -> torch.Tensor:
    """conv2d_int8's weight_sums: int32 [Cout], each output channel's weight sum, from the
    panel layout [groups, panels, quads, 6, 4] (padding holds 0)."""
    groups, panels = weight_panels.shape[:2]
    rows = weight_panels.to(torch.int32).sum((2, 4), dtype=torch.int32)  # [groups, panels, 6]
    return rows.reshape(groups, panels * PANEL)[:, :out_channels // groups].reshape(-1)


def _check_weight_sums_values(where: str, weight_panels: torch.Tensor, weight_scales: torch.Tensor,
                              weight_sums: Optional[torch.Tensor]) -> None:
    """The references hold weight_sums to the weights' sums (the runtime trusts them)."""
    if weight_sums is not None and not torch.equal(
            weight_sums, conv_weight_sums(weight_panels, weight_scales.shape[0])):
        raise ValueError(f"{where}: weight_sums must be the sums of each output channel's "
                         "weights")


SEVEN_BIT_MIN, SEVEN_BIT_MAX = -64, 63


def _check_weight_bits(where: str, weight_bits: int) -> None:
    if weight_bits not in (7, 8):
        raise ValueError(f"{where}: weight_bits must be 7 (every weight in [-64, 63]) or 8, "
                         f"got {weight_bits}")


def weight_bits_of(weight_q: torch.Tensor) -> int:
    """7 when every int8 weight is in [-64, 63] (the runtime's AVX2 u8 path is then
    exact), else 8."""
    if weight_q.numel() and (int(weight_q.min()) < SEVEN_BIT_MIN
                             or int(weight_q.max()) > SEVEN_BIT_MAX):
        return 8
    return 7


def _check_weight_range(where: str, weight_panels: torch.Tensor, weight_bits: int) -> None:
    """The references hold the caller to weight_bits == 7's promise (the runtime trusts it)."""
    if weight_bits == 7 and weight_bits_of(weight_panels) != 7:
        raise ValueError(f"{where}: weight_bits = 7 but a weight lies outside [-64, 63] "
                         f"(min {int(weight_panels.min())}, max {int(weight_panels.max())})")


def _check_conv(where, out_prefix, input, input_scale, input_zero_point, weight_panels,
                weight_scales, bias, kernel_size, stride, padding, dilation, groups, output_scale,
                output_zero_point, output_min, output_max) -> list:
    """check_conv2d_int8 for op `where`, its output quantization named out_prefix*."""
    _check_int8(where, "input", input, 4)
    _check_int8(where, "weight_panels", weight_panels, 5)
    if weight_scales.dtype != torch.float32 or weight_scales.dim() != 1:
        raise ValueError(f"{where}: weight_scales must be float32 [Cout], got "
                         f"{weight_scales.dtype} {list(weight_scales.shape)}")
    cout, cin = weight_scales.shape[0], input.shape[1]
    kernel_size = _pair(where, "kernel_size", kernel_size, 1)
    stride = _pair(where, "stride", stride, 1)
    padding = _pair(where, "padding", padding, 0)
    dilation = _pair(where, "dilation", dilation, 1)
    if not isinstance(groups, int) or groups < 1 or cin % groups or cout % groups:
        raise ValueError(f"{where}: groups ({groups}) must be >= 1 and divide Cin ({cin}) and "
                         f"Cout ({cout})")
    k = cin // groups * kernel_size[0] * kernel_size[1]
    if k > MAX_K:
        raise ValueError(f"{where}: (Cin / groups) * KH * KW = {k} exceeds {MAX_K}")
    expected = panel_shape(cout, k, groups)
    if list(weight_panels.shape) != expected:
        raise ValueError(f"{where}: weight_panels must be int8 {expected} for Cout = {cout}, "
                         f"Cin = {cin}, kernel {kernel_size}, groups = {groups}, got "
                         f"{list(weight_panels.shape)}")
    _check_bias(where, cout, bias)
    _check_qparams(where, "input_", input_scale, input_zero_point)
    _check_output(where, output_scale, output_zero_point, output_min, output_max, out_prefix)
    return _conv_output_shape(where, input, cout, kernel_size, stride, padding, dilation)


def check_depthwise_conv2d_int8(input, input_scale, input_zero_point, weight, weight_scales,
                                bias, stride, padding, dilation, output_scale,
                                output_zero_point, output_min, output_max) -> list:
    """Validates depthwise_conv2d_int8's arguments; returns the output shape."""
    where = f"torchedge::{DEPTHWISE_OP_NAME}"
    _check_int8(where, "input", input, 4)
    _check_int8(where, "weight", weight, 4)
    c = input.shape[1]
    if weight.shape[0] != c or weight.shape[1] != 1 or weight.shape[2] < 1 or weight.shape[3] < 1:
        raise ValueError(f"{where}: weight must be int8 [C, 1, KH, KW] with C = Cin = {c}, got "
                         f"{list(weight.shape)}")
    if weight_scales.dtype != torch.float32 or list(weight_scales.shape) != [c]:
        raise ValueError(f"{where}: weight_scales must be float32 [{c}], got "
                         f"{weight_scales.dtype} {list(weight_scales.shape)}")
    stride = _pair(where, "stride", stride, 1)
    padding = _pair(where, "padding", padding, 0)
    dilation = _pair(where, "dilation", dilation, 1)
    _check_bias(where, c, bias)
    _check_qparams(where, "input_", input_scale, input_zero_point)
    _check_output(where, output_scale, output_zero_point, output_min, output_max)
    return _conv_output_shape(where, input, c, list(weight.shape[2:]), stride, padding, dilation)


def check_add_int8(a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale,
                   output_zero_point, output_min, output_max) -> list:
    """Validates add_int8's arguments; returns the output shape."""
    where = f"torchedge::{ADD_OP_NAME}"
    if a.dtype != torch.int8 or b.dtype != torch.int8 or a.shape != b.shape:
        raise ValueError(f"{where}: a and b must be int8 tensors of the same shape (no "
                         f"broadcasting), got {a.dtype} {list(a.shape)} and "
                         f"{b.dtype} {list(b.shape)}")
    _check_qparams(where, "a_", a_scale, a_zero_point)
    _check_qparams(where, "b_", b_scale, b_zero_point)
    _check_output(where, output_scale, output_zero_point, output_min, output_max)
    return list(a.shape)


def check_conv2d_add_int8(input, input_scale, input_zero_point, weight_panels, weight_scales,
                          bias, kernel_size, stride, padding, dilation, groups, conv_scale,
                          conv_zero_point, conv_min, conv_max, residual, residual_scale,
                          residual_zero_point, output_scale, output_zero_point, output_min,
                          output_max, weight_bits=8, weight_sums=None) -> list:
    """Validates conv2d_add_int8's arguments; returns the output shape (the conv's)."""
    where = f"torchedge::{CONV_ADD_OP_NAME}"
    _check_weight_bits(where, weight_bits)
    _check_weight_sums(where, weight_scales, weight_sums)
    shape = _check_conv(where, "conv_", input, input_scale, input_zero_point, weight_panels,
                        weight_scales, bias, kernel_size, stride, padding, dilation, groups,
                        conv_scale, conv_zero_point, conv_min, conv_max)
    if residual.dtype != torch.int8 or list(residual.shape) != list(shape):
        raise ValueError(f"{where}: residual must be int8 {list(shape)} (the conv's output "
                         f"shape), got {residual.dtype} {list(residual.shape)}")
    _check_qparams(where, "residual_", residual_scale, residual_zero_point)
    _check_output(where, output_scale, output_zero_point, output_min, output_max)
    return shape


def linear_weight_sums(weight_q: torch.Tensor) -> torch.Tensor:
    """quantized_linear's weight_sums: int32 [N], the sum of each int8 row of weight_q [N, K]."""
    return weight_q.to(torch.int32).sum(1, dtype=torch.int32)


def check_quantized_linear(input_q, input_scale, input_zero_point, weight_q, weight_scales, bias,
                           out_scale, out_zero_point, out_quant_min, out_quant_max,
                           weight_sums=None) -> list:
    """Validates quantized_linear's arguments; returns the output shape."""
    where = f"torchedge::{LINEAR_OP_NAME}"
    if input_q.dtype != torch.int8 or input_q.dim() < 1:
        raise ValueError(f"{where}: input_q must be an int8 tensor of rank >= 1, got "
                         f"{input_q.dtype} {list(input_q.shape)}")
    _check_int8(where, "weight_q", weight_q, 2)
    n, k = weight_q.shape
    if k != input_q.shape[-1]:
        raise ValueError(f"{where}: weight_q must be int8 [N, {input_q.shape[-1]}] (K of "
                         f"input_q), got {list(weight_q.shape)}")
    if k > MAX_K:
        raise ValueError(f"{where}: K = {k} exceeds {MAX_K}")
    if weight_scales.dtype != torch.float32 or list(weight_scales.shape) != [n]:
        raise ValueError(f"{where}: weight_scales must be float32 [{n}], got "
                         f"{weight_scales.dtype} {list(weight_scales.shape)}")
    _check_bias(where, n, bias)
    if weight_sums is not None and (weight_sums.dtype != torch.int32
                                    or list(weight_sums.shape) != [n]):
        raise ValueError(f"{where}: weight_sums must be int32 [{n}], got "
                         f"{weight_sums.dtype} {list(weight_sums.shape)}")
    _check_qparams(where, "input_", input_scale, input_zero_point)
    _check_output(where, out_scale, out_zero_point, out_quant_min, out_quant_max)
    return [*input_q.shape[:-1], n]


# -- eager references ---------------------------------------------------------------

_qd = torch.ops.quantized_decomposed


def _dequantize(x: torch.Tensor, scale: float, zero_point: int) -> torch.Tensor:
    return _qd.dequantize_per_tensor.default(x, scale, zero_point, INT8_MIN, INT8_MAX, torch.int8)


def _quantize(y: torch.Tensor, scale: float, zero_point: int, qmin: int, qmax: int) -> torch.Tensor:
    return _qd.quantize_per_tensor.default(y, scale, zero_point, qmin, qmax, torch.int8)


def _conv_reference(input, input_scale, input_zero_point, weight_q, weight_scales, bias, stride,
                    padding, dilation, groups, output_scale, output_zero_point, output_min,
                    output_max) -> torch.Tensor:
    x = _dequantize(input, input_scale, input_zero_point)
    w = _qd.dequantize_per_channel.default(weight_q, weight_scales, None, 0, -127, 127, torch.int8)
    y = F.conv2d(x, w, bias, list(stride), list(padding), list(dilation), groups)
    return _quantize(y, output_scale, output_zero_point, output_min, output_max)


def conv2d_int8_reference(input, input_scale, input_zero_point, weight_panels, weight_scales,
                          bias, kernel_size, stride, padding, dilation, groups, output_scale,
                          output_zero_point, output_min, output_max,
                          weight_bits=8, weight_sums=None) -> torch.Tensor:
    check_conv2d_int8(input, input_scale, input_zero_point, weight_panels, weight_scales, bias,
                      kernel_size, stride, padding, dilation, groups, output_scale,
                      output_zero_point, output_min, output_max, weight_bits, weight_sums)
    _check_weight_range(f"torchedge::{CONV_OP_NAME}", weight_panels, weight_bits)
    _check_weight_sums_values(f"torchedge::{CONV_OP_NAME}", weight_panels, weight_scales,
                              weight_sums)
    weight_q = unpack_conv_weight_panels(weight_panels, weight_scales.shape[0],
                                         input.shape[1] // groups, kernel_size, groups)
    return _conv_reference(input, input_scale, input_zero_point, weight_q, weight_scales, bias,
                           stride, padding, dilation, groups, output_scale, output_zero_point,
                           output_min, output_max)


def depthwise_conv2d_int8_reference(input, input_scale, input_zero_point, weight, weight_scales,
                                    bias, stride, padding, dilation, output_scale,
                                    output_zero_point, output_min, output_max) -> torch.Tensor:
    check_depthwise_conv2d_int8(input, input_scale, input_zero_point, weight, weight_scales, bias,
                                stride, padding, dilation, output_scale, output_zero_point,
                                output_min, output_max)
    return _conv_reference(input, input_scale, input_zero_point, weight, weight_scales, bias,
                           stride, padding, dilation, input.shape[1], output_scale,
                           output_zero_point, output_min, output_max)


def quantized_linear_reference(input_q, input_scale, input_zero_point, weight_q, weight_scales,
                               bias, out_scale, out_zero_point, out_quant_min,
                               out_quant_max, weight_sums=None) -> torch.Tensor:
    check_quantized_linear(input_q, input_scale, input_zero_point, weight_q, weight_scales, bias,
                           out_scale, out_zero_point, out_quant_min, out_quant_max, weight_sums)
    if weight_sums is not None and not torch.equal(weight_sums, linear_weight_sums(weight_q)):
        raise ValueError(f"torchedge::{LINEAR_OP_NAME}: weight_sums must be the sums of "
                         "weight_q's rows")
    x = _dequantize(input_q, input_scale, input_zero_point)
    w = _qd.dequantize_per_channel.default(weight_q, weight_scales, None, 0, -127, 127, torch.int8)
    return _quantize(F.linear(x, w, bias), out_scale, out_zero_point, out_quant_min,
                     out_quant_max)


def add_int8_reference(a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale,
                       output_zero_point, output_min, output_max) -> torch.Tensor:
    check_add_int8(a, a_scale, a_zero_point, b, b_scale, b_zero_point, output_scale,
                   output_zero_point, output_min, output_max)
    s = _dequantize(a, a_scale, a_zero_point) + _dequantize(b, b_scale, b_zero_point)
    return _quantize(s, output_scale, output_zero_point, output_min, output_max)


def conv2d_add_int8_reference(input, input_scale, input_zero_point, weight_panels, weight_scales,
                              bias, kernel_size, stride, padding, dilation, groups, conv_scale,
                              conv_zero_point, conv_min, conv_max, residual, residual_scale,
                              residual_zero_point, output_scale, output_zero_point, output_min,
                              output_max, weight_bits=8, weight_sums=None) -> torch.Tensor:
    """add_int8(conv2d_int8(...), residual): the two ops' own references, so the
    fused graph's eager outputs equal the unfused graph's bit for bit."""
    check_conv2d_add_int8(input, input_scale, input_zero_point, weight_panels, weight_scales,
                          bias, kernel_size, stride, padding, dilation, groups, conv_scale,
                          conv_zero_point, conv_min, conv_max, residual, residual_scale,
                          residual_zero_point, output_scale, output_zero_point, output_min,
                          output_max, weight_bits, weight_sums)
    conv = conv2d_int8_reference(input, input_scale, input_zero_point, weight_panels,
                                 weight_scales, bias, kernel_size, stride, padding, dilation,
                                 groups, conv_scale, conv_zero_point, conv_min, conv_max,
                                 weight_bits, weight_sums)
    return add_int8_reference(conv, conv_scale, conv_zero_point, residual, residual_scale,
                              residual_zero_point, output_scale, output_zero_point, output_min,
                              output_max)


# -- fake (shape) implementations ---------------------------------------------------

def _fake_conv(input, *args):
    return input.new_empty(check_conv2d_int8(input, *args), dtype=torch.int8)


def _fake_depthwise(input, *args):
    return input.new_empty(check_depthwise_conv2d_int8(input, *args), dtype=torch.int8)


def _fake_linear(input_q, *args):
    return input_q.new_empty(check_quantized_linear(input_q, *args), dtype=torch.int8)


def _fake_conv_add(input, *args):
    return input.new_empty(check_conv2d_add_int8(input, *args), dtype=torch.int8)


def _fake_add(a, *args):
    return a.new_empty(check_add_int8(a, *args), dtype=torch.int8)


def _register() -> None:
    if hasattr(getattr(torch.ops, NAMESPACE), CONV_OP_NAME):  # module reloaded: already registered
        return
    for name, arguments, reference, fake in (
            (CONV_OP_NAME, _CONV_ARGUMENTS, conv2d_int8_reference, _fake_conv),
            (DEPTHWISE_OP_NAME, _DEPTHWISE_ARGUMENTS, depthwise_conv2d_int8_reference,
             _fake_depthwise),
            (LINEAR_OP_NAME, _LINEAR_ARGUMENTS, quantized_linear_reference, _fake_linear),
            (ADD_OP_NAME, _ADD_ARGUMENTS, add_int8_reference, _fake_add),
            (CONV_ADD_OP_NAME, _CONV_ADD_ARGUMENTS, conv2d_add_int8_reference, _fake_conv_add)):
        _library.define(f"{name}({arguments}) -> Tensor")
        _library.define(f"{name}.out({arguments}, *, Tensor(a!) out) -> Tensor(a!)")
        _library.impl(name, reference, "CompositeExplicitAutograd")
        torch.library.register_fake(f"{NAMESPACE}::{name}", fake, lib=_library)


_register()
