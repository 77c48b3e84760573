"""Fold inference batch norms into the convolutions that feed them.

After this pass, a convolution (not transposed) whose only user is an
inference batch norm (`_native_batch_norm_legit_no_training`) whose only
used result is the normalized tensor, where the weight, bias and every
batch-norm statistic and affine parameter are stored constants (parameters
or buffers that the program does not mutate), is one convolution with

    weight' = weight * scale[c]          scale = gamma / sqrt(var + eps)
    bias'   = (bias - mean) * scale + beta

The new weight and bias are written as aten ops over the constants;
`fold_constants` (which runs next in `to_edge`) computes them ahead of time
and drops the old constants, so the stored weights do not grow. This is
what ONNX Runtime and XNNPACK do for inference; it saves a full pass over
every activation tensor. The folded weights differ from eager's two-step
arithmetic by float32 rounding only (~1e-7 relative).

The convolution's weight must have no other user (otherwise the folded
copy would be stored beside it).
"""

from __future__ import annotations

import operator
from typing import Optional

import torch
import torch.fx
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

aten = torch.ops.aten
_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)


def _constant_placeholders(ep: ExportedProgram) -> set[str]:
    mutated = set(ep.graph_signature.buffers_to_mutate.values())
    return {
        spec.arg.name for spec in ep.graph_signature.input_specs
        if spec.kind in _CONSTANT_KINDS and spec.target not in mutated and hasattr(spec.arg, "name")
    }


def _normalized_output(bn: torch.fx.Node) -> Optional[torch.fx.Node]:
    """The getitem(bn, 0) node when it is bn's only used result."""
    users = list(bn.users)
    if len(users) != 1 or users[0].target is not operator.getitem or users[0].args[1] != 0:
        return None
    return users[0]


def fold_batch_norms(ep: ExportedProgram) -> int:
    """Rewrites ep's graph in place; returns how many batch norms were folded."""
    constants = _constant_placeholders(ep)
    graph = ep.graph_module.graph

    def is_constant(value) -> bool:
        return value is None or (isinstance(value, torch.fx.Node) and value.name in constants)

    folded = 0
    for bn in list(graph.nodes):
        if bn.op != "call_function" or bn.target is not aten._native_batch_norm_legit_no_training.default:
            continue
        conv, gamma, beta, mean, var, _momentum, eps = bn.args
        out = _normalized_output(bn)
        if (out is None or not isinstance(conv, torch.fx.Node)
                or conv.target is not aten.convolution.default or len(conv.users) != 1):
            continue
        x, weight, bias, stride, padding, dilation, transposed, output_padding, groups = conv.args
        if transposed or not all(is_constant(v) for v in (weight, bias, gamma, beta, mean, var)):
            continue
        if weight is None or len(weight.users) != 1:
            continue
        rank = len(weight.meta["val"].shape)
        with graph.inserting_before(conv):
            scale = graph.call_function(aten.rsqrt.default, (graph.call_function(aten.add.Scalar, (var, eps)),))
            if gamma is not None:
                scale = graph.call_function(aten.mul.Tensor, (gamma, scale))
            per_channel = graph.call_function(aten.view_copy.default, (scale, [-1] + [1] * (rank - 1)))
            new_weight = graph.call_function(aten.mul.Tensor, (weight, per_channel))
            shifted = (graph.call_function(aten.sub.Tensor, (bias, mean)) if bias is not None
                       else graph.call_function(aten.neg.default, (mean,)))
            new_bias = graph.call_function(aten.mul.Tensor, (shifted, scale))
            if beta is not None:
                new_bias = graph.call_function(aten.add.Tensor, (new_bias, beta))
            fused = graph.call_function(
                aten.convolution.default,
                (x, new_weight, new_bias, stride, padding, dilation, transposed, output_padding, groups))
        fused.meta = dict(conv.meta)
        out.replace_all_uses_with(fused)
        graph.erase_node(out)
        graph.erase_node(bn)
        graph.erase_node(conv)
        folded += 1
    if folded:
        graph.lint()
        ep.graph_module.recompile()
    return folded
