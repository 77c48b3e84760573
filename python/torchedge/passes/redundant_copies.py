"""Remove copies, and multiplications by one, that produce exactly their input."""

from __future__ import annotations

import torch
import torch.fx
from torch.fx.experimental.symbolic_shapes import statically_known_true

aten = torch.ops.aten

_COPIES = frozenset({aten.clone.default, aten._to_copy.default, aten.alias_copy.default})
# x * 1 and x / 1 are x bit for bit in IEEE arithmetic (-0, infinities and NaN
# included); scaled_dot_product_attention's decomposition multiplies q and k^T
# by sqrt(scale), 1.0 when the model scaled q itself (Whisper, BERT in
# transformers): two full passes over q and k per layer.
_IDENTITY_SCALARS = frozenset({aten.mul.Scalar, aten.div.Scalar})


def _same_layout(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.device != b.device or a.dim() != b.dim():
        return False
    pairs = list(zip(a.shape, b.shape)) + list(zip(a.stride(), b.stride()))
    return all(statically_known_true(x == y) for x, y in pairs)


def remove_redundant_copies(gm: torch.fx.GraphModule) -> bool:
    """Drops clone/_to_copy/alias_copy nodes whose result has the input's
    dtype, sizes and strides (e.g. `.contiguous()` after a `permute_copy`,
    which is contiguous already), and mul.Scalar / div.Scalar by the number 1
    whose result has the input's dtype, sizes and strides (no promotion).

    Afterwards every remaining copy changes dtype or memory layout. Needs
    current meta["val"] (run after `refresh_fake_tensors`); the graph is
    functional, so reading the input instead of its copy is equivalent.
    Returns whether the graph changed.
    """
    changed = False
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target not in _COPIES | _IDENTITY_SCALARS:
            continue
        if node.target in _IDENTITY_SCALARS and not (
                len(node.args) == 2 and not node.kwargs and type(node.args[1]) in (int, float)
                and node.args[1] == 1):
            continue
        source = node.args[0]
        before, after = source.meta.get("val"), node.meta.get("val")
        if isinstance(before, torch.Tensor) and isinstance(after, torch.Tensor) and _same_layout(before, after):
            node.replace_all_uses_with(source)
            gm.graph.erase_node(node)
            changed = True
    return changed
