"""Fuses PT2E's dynamic int8 linear pattern into torchedge::linear_dynamic_int8.

convert_pt2e lowers each dynamically quantized linear layer to

    scale, zp = choose_qparams.tensor(x, -128, 127, float32 eps, int8)
    xq  = quantize_per_tensor.tensor(x, scale, zp, -128, 127, int8)
    xdq = dequantize_per_tensor.tensor(xq, scale, zp, -128, 127, int8)
    wdq = dequantize_per_channel(W, S, Z, 0, qmin, qmax, int8)     # W, S, Z constants
    y   = linear(xdq, wdq, bias)

which the runtime would run as a float GEMM on dequantized values. When W is
a constant int8 [N, K] tensor, S constant float32 [N] scales and Z absent
or all zero (symmetric per-output-channel weights), `fuse_dynamic_linear`
replaces `y` with `torchedge::linear_dynamic_int8(x, W, S, bias)`, whose
runtime kernel quantizes x itself and multiplies in int8. The op's eager
implementation is the same five-op composition, so the quantized reference
model computes exactly what it did before; anything else (other ranges,
asymmetric or non-constant weights, per-token activations) is left as it
was.

`fuse_sibling_linears` then merges fused layers that read the same input
(a transformer's Q, K and V projections) into one call on weights, scales
and biases concatenated along N (new constants), followed by a split of the
output along its last dimension: the input is quantized once and the GEMM
is wider. Each output column is the same integer sum scaled by the same
factors, so only float rounding of the reference's float linear changes.

`pack_dynamic_linear_weights` finally stores each fused layer's constant
weight in the runtime GEMM's strip layout
(torchedge::linear_dynamic_int8_packed; int8_linear_ops.pack_int8_strips),
so the kernel does not reorder the weight on every call. Same bytes per
weight (plus zero padding to 16 columns and even K), same numerics.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

import torch
import torch.fx

from torchedge.quantization import int8_linear_ops

_qd = torch.ops.quantized_decomposed
# Layers one linear_dynamic_int8_packed_split may hold (its runtime kernel keeps
# the layer table on the stack: kMaxSegments in op_linear_dynamic_int8_packed_split.cpp).
MAX_SPLIT_LAYERS = 16


def _constant(gm: torch.fx.GraphModule, node: Any) -> Optional[torch.Tensor]:
    """The tensor a get_attr node reads, or None."""
    if not isinstance(node, torch.fx.Node) or node.op != "get_attr":
        return None
    value: Any = gm
    for part in node.target.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value if isinstance(value, torch.Tensor) else None


def _args_are(node: torch.fx.Node, target: Any, tail: tuple, arity: int) -> bool:
    """node calls `target` with `arity` positional args ending in `tail` and no
    kwargs but a float32/None out_dtype."""
    if node.op != "call_function" or node.target != target or len(node.args) != arity:
        return False
    if any(key != "out_dtype" or value not in (None, torch.float32)
           for key, value in node.kwargs.items()):
        return False
    return tuple(node.args[arity - len(tail):]) == tail


def _activation_source(xdq: Any) -> Optional[torch.fx.Node]:
    """x if `xdq` is the dynamic per-tensor quantize/dequantize of x, else None."""
    int8_range = (-128, 127, torch.int8)
    if not isinstance(xdq, torch.fx.Node) or not _args_are(
            xdq, _qd.dequantize_per_tensor.tensor, int8_range, 6):
        return None
    xq, scale, zp = xdq.args[:3]
    if not isinstance(xq, torch.fx.Node) or not _args_are(
            xq, _qd.quantize_per_tensor.tensor, int8_range, 6):
        return None
    if xq.args[1] is not scale or xq.args[2] is not zp:
        return None
    for node, index in ((scale, 0), (zp, 1)):
        if not (isinstance(node, torch.fx.Node) and node.op == "call_function"
                and node.target == operator.getitem and node.args[1] == index):
            return None
    choose = scale.args[0]
    if choose is not zp.args[0] or not _args_are(
            choose, _qd.choose_qparams.tensor,
            (-128, 127, int8_linear_ops.FLOAT32_EPS, torch.int8), 5):
        return None
    x = choose.args[0]
    if xq.args[0] is not x or not isinstance(x, torch.fx.Node):
        return None
    val = x.meta.get("val")
    if val is not None and getattr(val, "dtype", None) != torch.float32:
        return None
    return x


def symmetric_int8_weight(gm: torch.fx.GraphModule, wdq: Any, rank: int = 2) -> Optional[tuple]:
    """(W node, S node, W) if `wdq` dequantizes a constant symmetric per-channel
    int8 weight of `rank` dimensions (conv: [Cout, Cin_g, KH, KW], linear: [N, K])."""
    if not isinstance(wdq, torch.fx.Node) or wdq.op != "call_function" \
            or wdq.target != _qd.dequantize_per_channel.default or len(wdq.args) != 7:
        return None
    if any(key != "out_dtype" or value not in (None, torch.float32)
           for key, value in wdq.kwargs.items()):
        return None
    w_node, s_node, z_node, axis, _, _, dtype = wdq.args
    w, s = _constant(gm, w_node), _constant(gm, s_node)
    if axis != 0 or dtype != torch.int8 or w is None or s is None:
        return None
    if w.dtype != torch.int8 or w.dim() != rank or s.dtype != torch.float32 \
            or list(s.shape) != [w.shape[0]]:
        return None
    if z_node is not None:
        z = _constant(gm, z_node)
        if z is None or z.numel() != w.shape[0] or bool(z.any()):
            return None
    return w_node, s_node, w


def fuse_dynamic_linear(gm: torch.fx.GraphModule) -> int:
    """Rewrites every matching dynamic int8 linear of `gm` (in place; see the
    module docstring) and removes the quantize/dequantize nodes left unused.

    Afterwards no aten.linear of the matched form remains; each fused layer
    is one torchedge::linear_dynamic_int8 call reading the same int8 weight
    and scales constants. Returns the number of layers fused.
    """
    fused = 0
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target != torch.ops.aten.linear.default:
            continue
        if node.kwargs or len(node.args) not in (2, 3):
            continue
        xdq, wdq = node.args[0], node.args[1]
        bias = node.args[2] if len(node.args) == 3 else None
        x = _activation_source(xdq)
        weight = symmetric_int8_weight(gm, wdq)
        if x is None or weight is None:
            continue
        if bias is not None:
            b = _constant(gm, bias) if isinstance(bias, torch.fx.Node) else None
            b = b if b is not None else getattr(bias, "meta", {}).get("val")
            if getattr(b, "dtype", None) != torch.float32:
                continue
        with gm.graph.inserting_before(node):
            new = gm.graph.call_function(torch.ops.torchedge.linear_dynamic_int8.default,
                                         (x, weight[0], weight[1], bias))
        new.meta = dict(node.meta)
        node.replace_all_uses_with(new)
        gm.graph.erase_node(node)
        _erase_if_unused([xdq, xdq.args[0], xdq.args[1], xdq.args[2], xdq.args[1].args[0],
                          wdq, wdq.args[2]], gm.graph)
        fused += 1
    if fused:
        gm.graph.lint()
        gm.recompile()
    return fused


def _erase_if_unused(nodes: list, graph: torch.fx.Graph) -> None:
    """Erases the nodes (in order) that nothing reads any more."""
    for node in nodes:
        if isinstance(node, torch.fx.Node) and not node.users and node.graph is graph:
            graph.erase_node(node)


def fuse_sibling_linears(gm: torch.fx.GraphModule) -> int:
    """Merges torchedge::linear_dynamic_int8 calls sharing an input (in place).

    Siblings must have constant weights/scales and either all constant
    float32 biases or none (calls with and without a bias form separate
    groups). The merged call reads new constants
    (`_torchedge_sibling_weight_<i>`, `..._scales_<i>`, `..._bias_<i>`: the
    siblings' tensors concatenated in graph order) and is followed by
    aten.split_with_sizes along the last dimension, whose pieces replace the
    siblings' results. Constants nothing reads any more are removed from
    `gm`. Returns the number of calls removed (siblings minus merged calls).
    """
    op = torch.ops.torchedge.linear_dynamic_int8.default
    groups: dict = {}
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target == op and not node.kwargs \
                and len(node.args) == 4:
            # Calls with and without a bias merge separately (no zero bias invented).
            groups.setdefault((node.args[0], node.args[3] is None), []).append(node)
    removed = 0
    for index, siblings in enumerate(g for g in groups.values() if len(g) > 1):
        tensors = _sibling_constants(gm, siblings)
        if tensors is None:
            continue
        weights, scales, biases = tensors
        names = [_new_constant(gm, f"_torchedge_sibling_{kind}_{index}", torch.cat(parts))
                 for kind, parts in (("weight", weights), ("scales", scales), ("bias", biases))
                 if parts is not None]
        first = siblings[0]
        with gm.graph.inserting_before(first):
            attrs = [gm.graph.get_attr(name) for name in names]
            fused = gm.graph.call_function(
                op, (first.args[0], attrs[0], attrs[1], attrs[2] if biases else None))
            sizes = [int(w.shape[0]) for w in weights]
            split = gm.graph.call_function(torch.ops.aten.split_with_sizes.default,
                                           (fused, sizes, -1))
            pieces = [gm.graph.call_function(operator.getitem, (split, i))
                      for i in range(len(siblings))]
        _set_meta(first, fused, split, pieces, siblings)
        old_constants = []
        for sibling, piece in zip(siblings, pieces):
            sibling.replace_all_uses_with(piece)
            old_constants += [a for a in sibling.args[1:] if isinstance(a, torch.fx.Node)]
            gm.graph.erase_node(sibling)
        for node in old_constants:
            if node.graph is gm.graph and not node.users:
                target = node.target
                gm.graph.erase_node(node)
                if not any(n.op == "get_attr" and n.target == target for n in gm.graph.nodes):
                    _delete_attr(gm, target)
        removed += len(siblings) - 1
    if removed:
        gm.graph.lint()
        gm.recompile()
    return removed


def _sibling_constants(gm: torch.fx.GraphModule, siblings: list) -> Optional[tuple]:
    """([W], [S], [B] or None) of the siblings, or None when they cannot merge."""
    weights, scales, biases = [], [], []
    for node in siblings:
        w, s = _constant(gm, node.args[1]), _constant(gm, node.args[2])
        if w is None or s is None or w.dtype != torch.int8 or w.dim() != 2 \
                or s.dtype != torch.float32 or list(s.shape) != [w.shape[0]]:
            return None
        bias = node.args[3]
        b = _constant(gm, bias) if bias is not None else None
        if bias is not None and (b is None or b.dtype != torch.float32
                                 or list(b.shape) != [w.shape[0]]):
            return None
        weights.append(w)
        scales.append(s)
        biases.append(b)
    if len({w.shape[1] for w in weights}) != 1:
        return None
    with_bias = [b is not None for b in biases]
    if any(with_bias) != all(with_bias):
        return None
    return weights, scales, biases if all(with_bias) else None


def _new_constant(gm: torch.fx.GraphModule, base: str, value: torch.Tensor) -> str:
    name, suffix = base, 0
    while hasattr(gm, name):
        suffix += 1
        name = f"{base}_{suffix}"
    gm.register_buffer(name, value.contiguous())
    return name


def _delete_attr(gm: torch.fx.GraphModule, target: str) -> None:
    *path, leaf = target.split(".")
    owner: Any = gm
    for part in path:
        owner = getattr(owner, part, None)
        if owner is None:
            return
    if hasattr(owner, leaf):
        delattr(owner, leaf)


def _set_meta(first: torch.fx.Node, fused: torch.fx.Node, split: torch.fx.Node,
              pieces: list, siblings: list) -> None:
    """Stack traces and module paths for the new nodes (convert re-exports the
    graph, which recomputes every value's metadata)."""
    for new in (fused, split):
        new.meta = {k: v for k, v in first.meta.items() if k != "val"}
    for piece, sibling in zip(pieces, siblings):
        piece.meta = dict(sibling.meta)


def pack_dynamic_linear_weights(gm: torch.fx.GraphModule) -> int:
    """Stores the constant weights of torchedge::linear_dynamic_int8 calls in
    the runtime GEMM's strip layout (in place): a call becomes
    torchedge::linear_dynamic_int8_packed reading a new constant
    (`_torchedge_packed_weight_<i>`, pack_int8_strips of the weight); a
    merged call whose only user is fuse_sibling_linears' split becomes one
    torchedge::linear_dynamic_int8_packed_split (each layer packed on its own,
    one output per layer: no concatenated output to copy apart). Weights
    nothing reads any more are removed. Returns the number of calls rewritten."""
    op = torch.ops.torchedge.linear_dynamic_int8.default
    count = 0
    for node in list(gm.graph.nodes):
        if node.op != "call_function" or node.target != op or node.kwargs \
                or len(node.args) != 4:
            continue
        w_node = node.args[1]
        w = _constant(gm, w_node)
        if w is None or w.dtype != torch.int8 or w.dim() != 2:
            continue
        sizes = _split_sizes(node, int(w.shape[0]))
        parts = torch.split(w, sizes) if sizes else [w]
        packed = torch.cat([int8_linear_ops.pack_int8_strips(p) for p in parts])
        name = _new_constant(gm, f"_torchedge_packed_weight_{count}", packed)
        with gm.graph.inserting_before(node):
            attr = gm.graph.get_attr(name)
            if sizes:
                new = gm.graph.call_function(
                    torch.ops.torchedge.linear_dynamic_int8_packed_split.default,
                    (node.args[0], attr, node.args[2], node.args[3], sizes))
            else:
                new = gm.graph.call_function(
                    torch.ops.torchedge.linear_dynamic_int8_packed.default,
                    (node.args[0], attr, *node.args[2:]))
        new.meta = {k: v for k, v in node.meta.items() if k != "val"}
        if sizes:
            split = next(iter(node.users))
            split.replace_all_uses_with(new)
            gm.graph.erase_node(split)
        else:
            new.meta = dict(node.meta)
            node.replace_all_uses_with(new)
        gm.graph.erase_node(node)
        if not w_node.users:
            target = w_node.target
            gm.graph.erase_node(w_node)
            if not any(n.op == "get_attr" and n.target == target for n in gm.graph.nodes):
                _delete_attr(gm, target)
        count += 1
    if count:
        gm.graph.lint()
        gm.recompile()
    return count


def _split_sizes(node: torch.fx.Node, n: int) -> Optional[list]:
    """The sizes when `node`'s only user is aten.split_with_sizes of its last
    dimension into at most MAX_SPLIT_LAYERS pieces read only through getitem,
    else None (the call is then packed on its own and the split stays)."""
    if len(node.users) != 1:
        return None
    split = next(iter(node.users))
    if split.op != "call_function" or split.target != torch.ops.aten.split_with_sizes.default \
            or split.kwargs or len(split.args) != 3 or split.args[0] is not node:
        return None
    sizes, dim = split.args[1], split.args[2]
    val = node.meta.get("val")
    rank = val.dim() if isinstance(val, torch.Tensor) else None
    if not (dim == -1 or (rank is not None and dim == rank - 1)):
        return None
    if not all(isinstance(s, int) for s in sizes) or sum(sizes) != n \
            or len(sizes) > MAX_SPLIT_LAYERS:
        return None
    if any(u.op != "call_function" or u.target != operator.getitem for u in split.users):
        return None
    return list(sizes)
