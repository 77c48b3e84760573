"""torchedge::safe_softmax: softmax whose fully masked slices give zeros.

    torchedge::safe_softmax(Tensor self, int dim) -> Tensor

is aten._safe_softmax(self, dim): softmax(self, dim), except that a slice
along `dim` whose every element is -inf (a query that may attend to no key)
gives 0 instead of NaN. torch.nn.functional.scaled_dot_product_attention
exports it as seven core ATen ops (_softmax, eq, logical_not, any,
logical_not, full_like, where) that make six passes over the attention
scores and allocate five of their size; safe_softmax.py folds them back at
to_pte time. The `.out` overload (same arguments, then `*, Tensor(a!) out`)
is the runtime kernel "torchedge::safe_softmax.out".
"""

from __future__ import annotations

import torch

from torchedge.passes.custom_ops import define_out_op

NAMESPACE = "torchedge"
OP_NAME = "safe_softmax"
_ARGUMENTS = "Tensor self, int dim"


def safe_softmax_reference(self: torch.Tensor, dim: int) -> torch.Tensor:
    return torch.ops.aten._safe_softmax.default(self, dim)


def _fake(self: torch.Tensor, dim: int) -> torch.Tensor:
    return torch.empty_like(self)


define_out_op(NAMESPACE, OP_NAME, _ARGUMENTS, safe_softmax_reference, _fake)
