"""Source transform: replace nn.Linear layers by weight-quantized ones (LLM-style).

    quantize_linear_weights(model, "int8_weight_only")
    quantize_linear_weights(model, "int4_weight_only", group_size=64)
    quantize_linear_weights(model, "8da4w", group_size=32)     # int8 dynamic act, int4 weight

Schemes and what export then sees:
  int8_weight_only  int8 [N, K] per-channel symmetric weight + float32 scales [N];
                    quantized_decomposed.dequantize_per_channel -> linear
  int4_weight_only  packed uint8 [N, K/2] + scales [N, K/g] (+ int8 zero points);
                    torchedge::linear_int4_weight_only
  8da4w             symmetric (the default): the blocked layout (groupwise.pack_int4_blocked,
                    scales inside, 16 rows interleaved for the SIMD loops) and
                    torchedge::linear_8da4w_packed; asymmetric, or packed=False: the int4_weight_only
                    weight and torchedge::linear_8da4w. Both compute the same function.
The quantized modules are the eager reference: the runtime computes the
same functions. Layers are replaced in place; the model is returned.
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
import torch.nn as nn
import torch.nn.functional as F

from torchedge.quantization import int4_linear_ops  # noqa: F401  (registers the custom ops)
from torchedge.quantization.groupwise import (
    check_group_size,
    pack_int4,
    pack_int4_blocked,
    quantize_int4_groupwise,
    quantize_int8_per_channel,
)

LINEAR_SCHEMES = ("int8_weight_only", "int4_weight_only", "8da4w")


class Int8WeightOnlyLinear(nn.Module):
    """y = x @ dequantize_per_channel(W_int8, scales)^T + bias."""

    def __init__(self, linear: nn.Linear) -> None:
        super().__init__()
        q, scales = quantize_int8_per_channel(linear.weight)
        self.register_buffer("weight_int8", q)
        self.register_buffer("scales", scales)
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone(), False)
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        weight = torch.ops.quantized_decomposed.dequantize_per_channel(
            self.weight_int8, self.scales, None, 0, -127, 127, torch.int8)
        return F.linear(x, weight, self.bias)


class _Int4Linear(nn.Module):
    """Shared storage of the 4-bit schemes: packed weight, scales, zero points, bias."""

    def __init__(self, linear: nn.Linear, group_size: int, symmetric: bool) -> None:
        super().__init__()
        q, scales, zero_points = quantize_int4_groupwise(linear.weight, group_size, symmetric)
        self.register_buffer("packed_weight", pack_int4(q))
        self.register_buffer("scales", scales)
        self.register_buffer("zero_points", zero_points)
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone(), False)
        self.group_size = group_size
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"group_size={self.group_size}, symmetric={self.zero_points is None}")


class Int4WeightOnlyLinear(_Int4Linear):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.torchedge.linear_int4_weight_only(
            x, self.packed_weight, self.scales, self.zero_points, self.group_size, self.bias)


class Int8DynActInt4WeightLinear(_Int4Linear):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.torchedge.linear_8da4w(
            x, self.packed_weight, self.scales, self.zero_points, self.group_size, self.bias)


class Int8DynActInt4WeightPackedLinear(nn.Module):
    """8da4w with a symmetric weight in the blocked layout (torchedge::linear_8da4w_packed).

    The same function as Int8DynActInt4WeightLinear on the same integers and
    scales (its reference unpacks the layout), laid out for the runtime's
    kernels: kernels/quantized/support/int4_packed.h.
    """

    def __init__(self, linear: nn.Linear, group_size: int) -> None:
        super().__init__()
        q, scales, _ = quantize_int4_groupwise(linear.weight, group_size, symmetric=True)
        self.register_buffer("packed_weight", pack_int4_blocked(q, scales, group_size))
        self.bias = None if linear.bias is None else nn.Parameter(linear.bias.detach().clone(), False)
        self.group_size = group_size
        self.in_features, self.out_features = linear.in_features, linear.out_features

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"group_size={self.group_size}, layout=blocked")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.torchedge.linear_8da4w_packed(
            x, self.packed_weight, self.out_features, self.group_size, self.bias)


def quantize_linear_weights(
    model: nn.Module,
    scheme: str,
    *,
    group_size: int = 32,
    symmetric: bool = True,
    filter_fn: Optional[Callable[[str, nn.Linear], bool]] = None,
    packed: bool = True,
) -> nn.Module:
    """Replaces every nn.Linear (for which filter_fn(name, module) holds) in place.

    `packed` (8da4w, symmetric): store the weight in the blocked layout the
    runtime's 8da4w kernels stream fastest (linear_8da4w_packed); False keeps
    the plain layout and linear_8da4w. The numbers are the same either way.

    Raises ValueError naming an unknown scheme, an unsupported group size, or
    the first layer whose in_features is not a multiple of group_size (use
    filter_fn to leave such layers float). Weights are quantized now, from
    their current values.
    """
    if scheme not in LINEAR_SCHEMES:
        raise ValueError(f"unsupported linear quantization scheme {scheme!r}; "
                         f"supported: {', '.join(LINEAR_SCHEMES)}")
    if scheme == "int8_weight_only" and not symmetric:
        raise ValueError("int8_weight_only is symmetric per channel; symmetric=False is not supported")
    targets = [(name, m) for name, m in model.named_modules()
               if type(m) is nn.Linear and (filter_fn is None or filter_fn(name, m))]
    if scheme != "int8_weight_only":
        for name, linear in targets:
            check_group_size(linear.in_features, group_size, f"layer '{name}'")
    for name, linear in targets:
        if scheme == "int8_weight_only":
            replacement: nn.Module = Int8WeightOnlyLinear(linear)
        elif scheme == "int4_weight_only":
            replacement = Int4WeightOnlyLinear(linear, group_size, symmetric)
        elif packed and symmetric:
            replacement = Int8DynActInt4WeightPackedLinear(linear, group_size)
        else:
            replacement = Int8DynActInt4WeightLinear(linear, group_size, symmetric)
        _set_submodule(model, name, replacement)
    return model


def _set_submodule(model: nn.Module, name: str, module: nn.Module) -> None:
    if not name:
        raise ValueError("the model itself is an nn.Linear; wrap it in a module to replace it")
    parent_name, _, child = name.rpartition(".")
    parent = model.get_submodule(parent_name) if parent_name else model
    setattr(parent, child, module)
