"""Pack the constant weights of float32 linear layers ahead of time.

In an edge program a linear layer is one of

    aten.addmm(bias, x, B)        bias [N], x [M, K], beta = alpha = 1
    aten.mm(x, B)                 x [M, K]
    aten.linear(x, W, bias)       x [*, K], W [N, K]

where B [K, N] is a stored constant (constant folding turns the weight's
transpose into one) or aten.permute_copy(W, [1, 0]) of a stored [N, K]
constant W. Each becomes torchedge::linear_prepacked(x, W_packed, bias, N)
(linear_prepacked_op.py) with W_packed a new lifted constant holding the
weight in the SGEMM's 16-wide B strips, so the optimized kernel no longer
repacks the weight on every call. The pass runs at to_pte time on a copy of
each method (PteOptions.prepack_weights), never in to_edge: the EdgeProgram
stays core ATen and partitioners still see plain addmm / mm.
"""

from __future__ import annotations

from typing import Any, Optional

import torch
import torch.fx
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from torchedge.passes import linear_prepacked_op
from torchedge.passes.constant_folding import add_lifted_constant, drop_unused_constants
from torchedge.passes.fake_tensors import graph_fake_mode

aten = torch.ops.aten
LINEAR_PREPACKED = getattr(getattr(torch.ops, linear_prepacked_op.NAMESPACE),
                           linear_prepacked_op.OP_NAME).default
_CONSTANT_KINDS = (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR)
_TRANSPOSES = (aten.permute_copy.default, aten.t_copy.default)


def _val(node: Any) -> Optional[torch.Tensor]:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val if isinstance(val, torch.Tensor) else None


def _float32(node: Any, dims: Optional[int] = None) -> bool:
    val = _val(node)
    return val is not None and val.dtype == torch.float32 and (dims is None or val.dim() == dims)


def stored_constants(ep: ExportedProgram, keep: frozenset[str],
                     dims: int = 2) -> dict[torch.fx.Node, torch.Tensor]:
    """Placeholder -> value of every stored float32 `dims`-d constant that is
    not state and not named in `keep`."""
    specs = {s.arg.name: s for s in ep.graph_signature.input_specs if hasattr(s.arg, "name")}
    mutated = set(ep.graph_signature.buffers_to_mutate.values())
    found = {}
    for node in ep.graph.nodes:
        spec = specs.get(node.name)
        if node.op != "placeholder" or spec is None or spec.kind not in _CONSTANT_KINDS \
                or spec.target in mutated or spec.target in keep:
            continue
        value = ep.state_dict.get(spec.target, ep.constants.get(spec.target))
        if isinstance(value, torch.Tensor) and value.dtype == torch.float32 and value.dim() == dims:
            found[node] = value.detach()
    return found


def _weight(b: Any, constants: dict) -> Optional[tuple[torch.fx.Node, torch.Tensor]]:
    """(constant placeholder, [N, K] weight) of a [K, N] GEMM operand, else None."""
    if not isinstance(b, torch.fx.Node):
        return None
    if b in constants:
        return b, constants[b].t()
    if b.op == "call_function" and b.target in _TRANSPOSES and b.args[0] in constants:
        dims = [1, 0] if b.target == aten.t_copy.default else [d % 2 for d in b.args[1]]
        if dims == [1, 0]:
            return b.args[0], constants[b.args[0]]
    return None


def _match(node: torch.fx.Node, constants: dict) -> Optional[tuple]:
    """(x, weight placeholder, [N, K] weight, bias or None) of a prepackable linear layer."""
    if node.op != "call_function" or not _float32(node):
        return None
    if node.target == aten.addmm.default:
        if len(node.args) != 3 or any(node.kwargs.get(k, 1) != 1 for k in ("beta", "alpha")) \
                or set(node.kwargs) - {"beta", "alpha"}:
            return None
        bias, x, b = node.args
        found = _weight(b, constants)
        if found is None or not (_float32(x, 2) and _float32(bias, 1)) \
                or _val(bias).shape[0] != found[1].shape[0]:
            return None
        return x, found[0], found[1], bias
    if node.target == aten.mm.default and len(node.args) == 2 and not node.kwargs:
        x, b = node.args
        found = _weight(b, constants)
        return (x, *found, None) if found is not None and _float32(x, 2) else None
    if node.target == aten.linear.default and not node.kwargs and len(node.args) in (2, 3):
        x, w = node.args[:2]
        bias = node.args[2] if len(node.args) == 3 else None
        if w not in constants or not _float32(x) or _val(x).dim() < 1:
            return None
        n = constants[w].shape[0]
        if bias is not None and not (_float32(bias, 1) and _val(bias).shape[0] == n):
            return None
        return x, w, constants[w], bias
    return None


def count_prepackable_linears(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """How many linear layers prepack_linear_weights would rewrite."""
    constants = stored_constants(ep, keep)
    return sum(_match(node, constants) is not None for node in ep.graph.nodes)


def prepack_linear_weights(ep: ExportedProgram, keep: frozenset[str] = frozenset()) -> int:
    """Rewrites each float32 linear layer of `ep`'s graph whose weight is a
    stored constant (the forms in the module docstring) into one
    torchedge::linear_prepacked call reading a new lifted constant
    `<weight>_packed` ([ceil(N / 16), K, 16]; layers sharing a weight share
    it). Afterwards no such addmm / mm / linear is left; GEMMs of two
    activations, batched GEMMs, other dtypes and addmm with beta or alpha
    != 1 or a bias other than [N] are unchanged. Each rewritten node keeps
    its name and meta["val"], so the signature stays valid; transposes and
    weights nothing else reads any more are dropped. The stored constants
    named in `keep` (signature targets; to_pte names those another method
    reads, which may need them unpacked or packed the other way round) are
    left alone, so no weight is stored twice across methods. A weight that
    other nodes of this method read as well stays stored next to its packed
    copy. Modifies `ep` in place; returns the number of layers rewritten.
    """
    constants = stored_constants(ep, keep)
    matches = [(node, m) for node in ep.graph.nodes
               if (m := _match(node, constants)) is not None]
    if not matches:
        return 0
    fake_mode = graph_fake_mode(ep.graph)
    packed: dict[torch.fx.Node, torch.fx.Node] = {}
    for node, (x, weight_node, weight, bias) in matches:
        if weight_node not in packed:
            value = linear_prepacked_op.pack_weight(weight)
            packed[weight_node] = add_lifted_constant(ep, f"{weight_node.name}_packed", value,
                                                      fake_mode)
        operand = node.args[2] if node.target == aten.addmm.default else node.args[1]
        node.target = LINEAR_PREPACKED
        node.args = (x, packed[weight_node], bias, weight.shape[0])
        node.kwargs = {}
        if isinstance(operand, torch.fx.Node) and operand.op == "call_function" \
                and not operand.users:
            ep.graph.erase_node(operand)  # the weight's transpose
    ep.graph.lint()
    drop_unused_constants(ep)  # also recompiles
    return len(matches)
