"""int8 per-channel linear layers with group-wise int8 or float activations.

    torchedge::linear_q8c(input, weight_q, scales, group_size, activation_bits, bias)

weight_q int8 [N, K] in [-127, 127], scales float32 [N]: w[n, k] = q[n, k] * scales[n]
(symmetric per output channel, groupwise.quantize_int8_per_channel).
Activations as in affine4_linear (`activation_bits` 32: float32; 8: int8 per
row and per group of `group_size` values, s = max|x| / 127), so
    out = scales[n] * sum_j s_j * sum(xq * q) + bias
with exact integer sums. The output projection of a decoder LLM (its
largest matrix, and the one most sensitive to 4-bit weights: SmolLM2's
perplexity rises ~6 % with a 4-bit head, ~0.3 % with this one).
"""

from __future__ import annotations

from typing import Callable, Optional

import torch
import torch.nn.functional as F
from torch import nn

from torchedge.quantization.affine4_linear import ACTIVATION_BITS, quantize_activations_per_group
from torchedge.quantization.groupwise import check_group_size, quantize_int8_per_channel

NAMESPACE = "torchedge"
OP_NAME = "linear_q8c"
_ARGUMENTS = "Tensor input, Tensor weight_q, Tensor scales, int group_size, int activation_bits, Tensor? bias"

_library = torch.library.Library(NAMESPACE, "FRAGMENT")


def _check(input, weight_q, scales, group_size, activation_bits, bias) -> None:
    where = f"{NAMESPACE}::{OP_NAME}"
    if weight_q.dtype != torch.int8 or weight_q.dim() != 2:
        raise ValueError(f"{where}: weight_q must be int8 [N, K], got {weight_q.dtype} {list(weight_q.shape)}")
    n, k = weight_q.shape
    check_group_size(k, group_size, where)
    if input.dtype != torch.float32 or input.shape[-1] != k:
        raise ValueError(f"{where}: input must be float32 with {k} features, got {input.dtype} "
                         f"{list(input.shape)}")
    if scales.dtype != torch.float32 or list(scales.shape) != [n]:
        raise ValueError(f"{where}: scales must be float32 [{n}], got {scales.dtype} {list(scales.shape)}")
    if activation_bits not in ACTIVATION_BITS:
        raise ValueError(f"{where}: activation_bits must be one of {ACTIVATION_BITS}, got {activation_bits}")
    if bias is not None and list(bias.shape) != [n]:
        raise ValueError(f"{where}: bias must have shape [{n}], got {list(bias.shape)}")


def linear_q8c_reference(input, weight_q, scales, group_size, activation_bits, bias):
    _check(input, weight_q, scales, group_size, activation_bits, bias)
    weight = weight_q.to(torch.float32) * scales.unsqueeze(1)
    x = input if activation_bits == 32 else quantize_activations_per_group(input, group_size)
    return F.linear(x, weight, bias)


def _register() -> None:
    packet = getattr(torch.ops, NAMESPACE)
    if hasattr(packet, OP_NAME):
        return
    _library.define(f"{OP_NAME}({_ARGUMENTS}) -> Tensor")
    _library.define(f"{OP_NAME}.out({_ARGUMENTS}, *, Tensor(a!) out) -> Tensor(a!)")
    _library.impl(OP_NAME, linear_q8c_reference, "CompositeExplicitAutograd")
    torch.library.register_fake(
        f"{NAMESPACE}::{OP_NAME}",
        lambda input, weight_q, scales, group_size, activation_bits, bias:
            input.new_empty((*input.shape[:-1], weight_q.shape[0])),
        lib=_library)


_register()


class Int8ChannelLinear(nn.Module):
    """nn.Linear with int8 per-channel weights (see the module docstring)."""

    def __init__(self, linear: nn.Linear, group_size: int, activation_bits: int) -> None:
        super().__init__()
        check_group_size(linear.in_features, group_size, "Int8ChannelLinear")
        q, scales = quantize_int8_per_channel(linear.weight)
        self.register_buffer("weight_q", q)
        self.register_buffer("scales", scales)
        bias = linear.bias.detach().to(torch.float32).clone() if linear.bias is not None else None
        self.register_buffer("bias", bias)
        self.group_size, self.activation_bits = group_size, activation_bits

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.ops.torchedge.linear_q8c(x, self.weight_q, self.scales, self.group_size,
                                              self.activation_bits, self.bias)


def quantize_linear_int8_channel(model: nn.Module, group_size: int = 32, activation_bits: int = 8,
                                 filter_fn: Optional[Callable[[str, nn.Linear], bool]] = None) -> nn.Module:
    """Replaces every nn.Linear (for which filter_fn holds) by an Int8ChannelLinear, in place."""
    targets = [(name, m) for name, m in model.named_modules()
               if type(m) is nn.Linear and (filter_fn is None or filter_fn(name, m))]
    for name, linear in targets:
        parent_name, _, child = name.rpartition(".")
        parent = model.get_submodule(parent_name) if parent_name else model
        setattr(parent, child, Int8ChannelLinear(linear, group_size, activation_bits))
    return model
