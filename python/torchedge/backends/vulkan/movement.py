"""Data-movement operators as strided copies (shaders/copy.comp).

permute/transpose/t, expand, slice, select, cat (one copy per input into
its slice of the output) and split (one copy per used piece). Each emitter
takes the Lowering, the node and its arguments by schema name, and returns
the tensor id(s) of its result.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import torch

from torchedge.backends.vulkan.shapes import broadcast_strides, contiguous_strides, shape_of

aten = torch.ops.aten


def _permute(low, node, args) -> int:
    src = low.tensor(args["self"])
    shape = shape_of(args["self"])
    strides = contiguous_strides(shape)
    perm = [d % len(shape) for d in args["dims"]]
    out_shape = shape_of(node)
    out = low.result(node)
    low.copy(out, src, out_shape, [strides[p] for p in perm], 0, contiguous_strides(out_shape), 0)
    return out


def _transpose(low, node, args) -> int:
    rank = len(shape_of(args["self"]))
    perm = list(range(rank))
    if rank >= 2:
        d0 = args.get("dim0", 0) % rank
        d1 = args.get("dim1", 1) % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return _permute(low, node, {"self": args["self"], "dims": perm})


def _expand(low, node, args) -> int:
    out_shape = shape_of(node)
    out = low.result(node)
    low.copy(out, low.tensor(args["self"]), out_shape,
             broadcast_strides(shape_of(args["self"]), out_shape), 0, contiguous_strides(out_shape), 0)
    return out


def _slice_start(start: Optional[int], size: int) -> int:
    start = 0 if start is None else int(start)
    start = start + size if start < 0 else start
    return min(max(start, 0), size)


def _slice_into(low, src: int, shape, dim: int, start: int, step: int, out_shape,
                out: int) -> None:
    strides = contiguous_strides(shape)
    in_strides = list(strides)
    in_strides[dim] *= step
    low.copy(out, src, out_shape, in_strides, start * strides[dim], contiguous_strides(out_shape), 0)


def _slice(low, node, args) -> int:
    shape = shape_of(args["self"])
    dim = args["dim"] % len(shape)
    out = low.result(node)
    _slice_into(low, low.tensor(args["self"]), shape, dim, _slice_start(args["start"], shape[dim]),
                int(args["step"] or 1), shape_of(node), out)
    return out


def _select(low, node, args) -> int:
    shape = shape_of(args["self"])
    dim = args["dim"] % len(shape)
    index = int(args["index"]) % shape[dim]
    strides = contiguous_strides(shape)
    in_strides = strides[:dim] + strides[dim + 1:]
    out_shape = shape_of(node)
    out = low.result(node)
    low.copy(out, low.tensor(args["self"]), out_shape, in_strides, index * strides[dim],
             contiguous_strides(out_shape), 0)
    return out


def _cat(low, node, args) -> int:
    out_shape = shape_of(node)
    dim = args["dim"] % len(out_shape)
    out = low.result(node)
    out_strides = contiguous_strides(out_shape)
    at = 0
    for item in args["tensors"]:
        shape = shape_of(item)
        if math.prod(shape) == 0:
            continue
        low.copy(out, low.tensor(item), shape, contiguous_strides(shape), 0, out_strides,
                 at * out_strides[dim])
        at += shape[dim]
    return out


def _split(low, node, args) -> list:
    shape = shape_of(args["self"])
    dim = args["dim"] % len(shape)
    pieces = [tuple(v.shape) for v in node.meta["val"]]
    by_index = {u.args[1]: u for u in node.users}
    src = low.tensor(args["self"])
    ids, at = [], 0
    for i, piece in enumerate(pieces):
        user = by_index.get(i)
        if user is not None:
            out = low.result(user)
            _slice_into(low, src, shape, dim, at, 1, piece, out)
            ids.append(out)
        else:
            ids.append(None)
        at += piece[dim]
    return ids


MOVEMENT_EMITTERS: dict[Any, Callable] = {
    aten.permute_copy.default: _permute,
    aten.transpose_copy.int: _transpose,
    aten.t_copy.default: _transpose,
    aten.expand_copy.default: _expand,
    aten.slice_copy.Tensor: _slice,
    aten.select_copy.int: _select,
    aten.cat.default: _cat,
    aten.split_with_sizes_copy.default: _split,
    aten.split_copy.Tensor: _split,
}
