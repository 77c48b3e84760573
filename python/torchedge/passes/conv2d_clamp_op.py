"""torchedge::conv2d_clamp: a float32 2-D convolution with its activation fused.

    torchedge::conv2d_clamp(Tensor input, Tensor weight, Tensor? bias, int[] stride,
        int[] padding, int[] dilation, int groups, float output_min, float output_max)
        -> Tensor

is clamp(conv2d(input, weight, bias, stride, padding, dilation, groups),
output_min, output_max): relu is (0, +inf), relu6 (0, 6), hardtanh(a, b) and
clamp(a, b) are (a, b); an open end is +-inf. NaN propagates, as in relu,
hardtanh and clamp. The `.out` overload (same arguments, then `*, Tensor(a!)
out`) is the runtime kernel "torchedge::conv2d_clamp.out"
(kernels/portable/op_conv2d_clamp.cpp, kernels/optimized/ops/op_conv2d_clamp.cpp,
which clamps in the convolution's epilogue). Only activation_fusion.py makes
these calls, at to_pte time; the EdgeProgram itself stays core ATen.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import torch
import torch.nn.functional as F

NAMESPACE = "torchedge"
OP_NAME = "conv2d_clamp"
_ARGUMENTS = ("Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
              "int[] dilation, int groups, float output_min, float output_max")

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def _check(input: torch.Tensor, output_min: float, output_max: float) -> None:
    where = f"{NAMESPACE}::{OP_NAME}"
    if input.dim() != 4 or not input.is_floating_point():
        raise ValueError(f"{where}: input must be a 4-d float tensor, got {input.dtype} "
                         f"{list(input.shape)}")
    if math.isnan(output_min) or math.isnan(output_max) or output_min > output_max:
        raise ValueError(f"{where}: need output_min <= output_max, got {output_min} and "
                         f"{output_max}")


def conv2d_clamp_reference(input: torch.Tensor, weight: torch.Tensor,
                           bias: Optional[torch.Tensor], stride: Sequence[int],
                           padding: Sequence[int], dilation: Sequence[int], groups: int,
                           output_min: float, output_max: float) -> torch.Tensor:
    _check(input, output_min, output_max)
    y = F.conv2d(input, weight, bias, list(stride), list(padding), list(dilation), groups)
    return torch.clamp(y, output_min, output_max)


def _fake(input, weight, bias, stride, padding, dilation, groups, output_min, output_max):
    _check(input, output_min, output_max)
    return F.conv2d(input, weight, bias, list(stride), list(padding), list(dilation), groups)


def _register() -> None:
    if hasattr(getattr(torch.ops, NAMESPACE), OP_NAME):  # module reloaded: already registered
        return
    _library.define(f"{OP_NAME}({_ARGUMENTS}) -> Tensor")
    _library.define(f"{OP_NAME}.out({_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
    _library.impl(OP_NAME, conv2d_clamp_reference, "CompositeExplicitAutograd")
    torch.library.register_fake(f"{NAMESPACE}::{OP_NAME}", _fake, lib=_library)


_register()
