"""Op table, shape group (kernels/portable/shape_kernels.inc): views as
copies, concatenation, splitting, indexing, and the upstream-named ops that
ExecuTorch programs call (dim_order_ops::*, executorch_prim::et_view)."""

from __future__ import annotations

from typing import Callable

import torch

from harness import OpSpec, Sample, replace_calls
from samples import make, other_dtype

aten = torch.ops.aten

# -- the upstream ExecuTorch operators, declared so the edge graph can call them ----
# Schemas as upstream ExecuTorch defines them; only the edge graph refers to
# them (no eager kernel is needed: the harness compares with the original op).
_UPSTREAM_SCHEMAS = {
    "dim_order_ops": [
        "_clone_dim_order(Tensor self, *, bool non_blocking=False, int[]? dim_order=None) -> Tensor",
        "_clone_dim_order.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, "
        "Tensor(a!) out) -> Tensor(a!)",
        "_to_dim_order_copy(Tensor self, *, ScalarType? dtype=None, bool non_blocking=False, "
        "int[]? dim_order=None) -> Tensor",
        "_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None, "
        "Tensor(a!) out) -> Tensor(a!)",
    ],
    "executorch_prim": [
        "et_view(Tensor self, int[] size) -> Tensor",
        "et_view.out(Tensor self, int[] size, *, Tensor(a!) out) -> Tensor(a!)",
    ],
}
_LIBRARIES = []


def _declare_upstream_ops() -> None:
    for namespace, schemas in _UPSTREAM_SCHEMAS.items():
        first = schemas[0].split("(")[0]
        if hasattr(getattr(torch.ops, namespace), first):
            continue  # already declared (e.g. upstream's own package is loaded)
        library = torch.library.Library(namespace, "FRAGMENT")
        for schema in schemas:
            library.define(schema)
        _LIBRARIES.append(library)


_declare_upstream_ops()
dim_order_ops = torch.ops.dim_order_ops
executorch_prim = torch.ops.executorch_prim

_MEMORY_FORMAT_DIM_ORDER = {torch.channels_last: [0, 2, 3, 1], torch.contiguous_format: None}


def _dim_order_arguments(args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """clone/_to_copy (self, *, dtype?, memory_format?) -> the dim-order form."""
    fmt = kwargs.pop("memory_format", None)
    new = {k: v for k, v in kwargs.items() if k == "dtype"}
    order = _MEMORY_FORMAT_DIM_ORDER.get(fmt)
    if fmt == torch.contiguous_format:
        order = list(range(args[0].meta["val"].dim()))
    if order is not None:
        new["dim_order"] = order
    return args[:1], new


# -- samples ------------------------------------------------------------------------


def _cases(*cases: tuple[str, tuple, Callable, tuple]) -> Callable[[torch.dtype], list[Sample]]:
    """Samples from (case, input shapes, fn, channels_last input indices) rows."""

    def samples(dtype: torch.dtype) -> list[Sample]:
        return [Sample(case, tuple(make(s, dtype) for s in shapes), fn, cl)
                for case, shapes, fn, cl in cases]

    return samples


CL = (0,)  # the first input channels-last
NCHW = (2, 3, 4, 5)


def _cat(dtype: torch.dtype) -> list[Sample]:
    m = lambda *s: make(s, dtype)  # noqa: E731
    return [
        Sample("regular", (m(2, 3), m(4, 3)), lambda a, b: torch.cat([a, b])),
        Sample("dim1", (m(2, 3), m(2, 1), m(2, 2)), lambda a, b, c: torch.cat([a, b, c], 1)),
        Sample("negative_dim", (m(2, 3, 2), m(2, 3, 1)), lambda a, b: torch.cat([a, b], -1)),
        Sample("empty_part", (m(2, 3), m(0, 3)), lambda a, b: torch.cat([a, b])),
        Sample("legacy_empty", (m(2, 3), m(0)), lambda a, b: torch.cat([a, b])),
        Sample("channels_last", (m(*NCHW), m(*NCHW)), lambda a, b: torch.cat([a, b], 1), (0, 1)),
        Sample("promote", (m(2, 3), make((1, 3), other_dtype(dtype))), lambda a, b: torch.cat([a, b])),
    ]


def _index_samples(dtype: torch.dtype) -> list[Sample]:
    m = lambda *s: make(s, dtype)  # noqa: E731
    i = lambda *values: torch.tensor(values)  # noqa: E731
    return [
        Sample("regular", (m(4, 3), i(0, 3, -1)), lambda x, j: x[j]),
        Sample("second_dim", (m(2, 4, 3), i(2, 0)), lambda x, j: x[:, j]),
        Sample("broadcast_indices", (m(4, 5), i(0, 3), i(1, 4, 2).reshape(3, 1)), lambda x, j, k: x[j, k]),
        Sample("apart", (m(3, 4, 5), i(0, 2), i(1, 3)), lambda x, j, k: x[j, :, k]),
        Sample("index_2d", (m(5, 2), i(0, 1, 4, 3).reshape(2, 2)), lambda x, j: x[j]),
        Sample("int32_index", (m(4, 3), torch.tensor([3, 1], dtype=torch.int32)), lambda x, j: x[j]),
        # x[tensor(2)] exports as item(); the op itself takes a 0-dim index tensor.
        Sample("rank0_index", (m(4, 3), torch.tensor(2)), lambda x, j: aten.index.Tensor(x, [j])),
        Sample("empty_index", (m(4, 3), torch.zeros(0, dtype=torch.int64)), lambda x, j: x[j]),
        Sample("channels_last", (m(*NCHW), i(1, 0)), lambda x, j: x[:, :, j], CL),
    ]


def _gather(dtype: torch.dtype) -> list[Sample]:
    m = lambda *s: make(s, dtype)  # noqa: E731
    idx = lambda high, *s: torch.randint(0, high, s)  # noqa: E731
    return [
        Sample("regular", (m(3, 4), idx(3, 2, 4)), lambda x, j: torch.gather(x, 0, j)),
        Sample("dim1", (m(3, 4), idx(4, 3, 6)), lambda x, j: torch.gather(x, 1, j)),
        Sample("negative_dim", (m(2, 3, 4), idx(4, 2, 2, 2)), lambda x, j: torch.gather(x, -1, j)),
        Sample("rank0", (m(), torch.tensor(0)), lambda x, j: torch.gather(x, 0, j)),
        Sample("empty", (m(3, 4), idx(3, 0, 4)), lambda x, j: torch.gather(x, 0, j)),
        Sample("channels_last", (m(*NCHW), idx(3, 2, 3, 4, 5)), lambda x, j: torch.gather(x, 1, j), CL),
    ]


def _index_select(dtype: torch.dtype) -> list[Sample]:
    m = lambda *s: make(s, dtype)  # noqa: E731
    return [
        Sample("regular", (m(4, 3), torch.tensor([3, 0, 3])), lambda x, j: x.index_select(0, j)),
        Sample("dim1", (m(2, 4), torch.tensor([1, 2], dtype=torch.int32)), lambda x, j: x.index_select(1, j)),
        Sample("rank0_index", (m(4, 3), torch.tensor(1)), lambda x, j: x.index_select(-1, j)),
        Sample("rank0_self", (m(), torch.tensor([0, 0])), lambda x, j: x.index_select(0, j)),
        Sample("empty", (m(4, 3), torch.zeros(0, dtype=torch.int64)), lambda x, j: x.index_select(0, j)),
        Sample("channels_last", (m(*NCHW), torch.tensor([2, 0])), lambda x, j: x.index_select(1, j), CL),
    ]


def _index_put(dtype: torch.dtype) -> list[Sample]:
    m = lambda *s: make(s, dtype)  # noqa: E731
    i = lambda *values: torch.tensor(values)  # noqa: E731
    put = lambda x, j, v: torch.index_put(x, (j,), v)  # noqa: E731
    add = lambda x, j, v: torch.index_put(x, (j,), v, accumulate=True)  # noqa: E731
    return [
        Sample("regular", (m(4, 3), i(2, 0), m(2, 3)), put),
        Sample("accumulate_repeated", (m(4, 3), i(1, 3, 1), m(3, 3)), add),
        Sample("broadcast_values", (m(4, 3), i(3, -4), m(3)), put),
        Sample("rank0_values", (m(5,), i(0, 4), m()), put),
        Sample("two_indices", (m(3, 4), i(0, 2), i(3, 1), m(2)), lambda x, j, k, v: torch.index_put(x, (j, k), v)),
        Sample("second_dim", (m(2, 4, 3), i(1, 2), m(2, 2, 3)), lambda x, j, v: aten.index_put(x, [None, j], v)),
        Sample("int32_index", (m(4, 3), torch.tensor([3], dtype=torch.int32), m(1, 3)), put),
        Sample("empty_index", (m(4, 3), torch.zeros(0, dtype=torch.int64), m(0, 3)), put),
        Sample("channels_last", (m(*NCHW), i(1, 0), m(2, 3, 4, 5)), put, CL),
    ]


def _split_with_sizes(dtype: torch.dtype) -> list[Sample]:
    return _cases(
        ("regular", [(5, 3)], lambda x: x.split([2, 3]), ()),
        ("chunk", [(2, 7)], lambda x: x.chunk(3, 1), ()),
        ("split_size", [(7, 2)], lambda x: x.split(3), ()),
        ("empty_piece", [(4, 2)], lambda x: x.split([0, 4]), ()),
        ("channels_last", [NCHW], lambda x: x.split([1, 2], 1), CL),
    )(dtype)


MOVEMENT = [
    OpSpec("aten::view_copy.out", lambda x: x.view(-1), _cases(
        ("regular", [(3, 4)], lambda x: x.view(2, 6), ()),
        ("infer", [(2, 3, 4)], lambda x: x.view(-1, 4), ()),
        ("rank0_to_1", [()], lambda x: x.view(1), ()),
        ("to_rank0", [(1, 1)], lambda x: x.view(()), ()),
        ("empty", [(0, 3)], lambda x: x.view(3, 0), ()),
        ("channels_last", [NCHW], lambda x: x.reshape(2, 60), CL),
    )),
    OpSpec("aten::_unsafe_view.out", lambda x: x.view(-1), _cases(
        ("regular", [(3, 4)], lambda x: x.view(2, 6), ()),
        ("rank0_to_1", [()], lambda x: x.view(1), ()),
        ("empty", [(0, 3)], lambda x: x.view(3, 0), ()),
    ), rewrite=replace_calls(aten.view_copy.default, aten._unsafe_view.default)),
    OpSpec("aten::permute_copy.out", lambda x: x.permute(1, 0), _cases(
        ("regular", [(3, 4)], lambda x: x.permute(1, 0), ()),
        ("rank3", [(2, 3, 4)], lambda x: x.permute(2, 0, 1), ()),
        ("negative_dims", [(2, 3, 4)], lambda x: x.permute(-1, -3, -2), ()),
        ("empty", [(0, 3)], lambda x: x.permute(1, 0), ()),
        ("channels_last", [NCHW], lambda x: x.permute(0, 2, 3, 1), CL),
    )),
    OpSpec("aten::expand_copy.out", lambda x: x.expand(3, 4), _cases(
        ("regular", [(3, 1)], lambda x: x.expand(3, 4), ()),
        ("new_dims", [(1, 4)], lambda x: x.expand(2, 3, 4), ()),
        ("keep_minus_one", [(3, 1)], lambda x: x.expand(2, -1, 5), ()),
        ("rank0", [()], lambda x: x.expand(2, 3), ()),
        ("empty", [(0, 1)], lambda x: x.expand(0, 4), ()),
        ("channels_last", [(2, 3, 1, 5)], lambda x: x.expand(2, 3, 4, 5), CL),
    )),
    OpSpec("aten::clone.out", torch.clone, _cases(
        ("regular", [(3, 4)], torch.clone, ()),
        ("to_channels_last", [NCHW], lambda x: x.clone(memory_format=torch.channels_last), ()),
        ("from_channels_last", [NCHW], lambda x: x.contiguous(), CL),
        ("rank0", [()], torch.clone, ()),
        ("empty", [(0, 3)], torch.clone, ()),
    ), keep_copies=True),
    OpSpec("aten::alias_copy.out", torch.clone, _cases(
        ("regular", [(3, 4)], torch.clone, ()),
        ("rank0", [()], torch.clone, ()),
        ("empty", [(0, 3)], torch.clone, ()),
    ), rewrite=replace_calls(aten.clone.default, aten.alias_copy.default), keep_copies=True,
        notes="upstream programs call it; torch.export never emits it"),
    OpSpec("aten::cat.out", torch.cat, _cat),
    OpSpec("aten::stack.out", torch.stack, _cases(
        ("regular", [(2, 3), (2, 3)], lambda a, b: torch.stack([a, b]), ()),
        ("last_dim", [(2, 3), (2, 3), (2, 3)], lambda a, b, c: torch.stack([a, b, c], -1), ()),
        ("rank0", [(), ()], lambda a, b: torch.stack([a, b]), ()),
        ("empty", [(0, 3), (0, 3)], lambda a, b: torch.stack([a, b], 1), ()),
        ("channels_last", [NCHW, NCHW], lambda a, b: torch.stack([a, b], 2), (0, 1)),
    ), keep=(aten.stack.default,)),
    OpSpec("aten::slice_copy.Tensor_out", lambda x: x[1:3], _cases(
        ("regular", [(5, 3)], lambda x: x[1:3], ()),
        ("step", [(3, 7)], lambda x: x[:, 1::2], ()),
        ("negative", [(6, 2)], lambda x: x[-4:-1], ()),
        ("clamped_empty", [(3, 2)], lambda x: x[5:9], ()),
        ("empty", [(0, 3)], lambda x: x[:, 1:], ()),
        ("channels_last", [NCHW], lambda x: x[:, 1:, ::2], CL),
    )),
    OpSpec("aten::narrow_copy.out", lambda x: torch.narrow_copy(x, 0, 1, 2), _cases(
        ("regular", [(5, 3)], lambda x: torch.narrow_copy(x, 0, 1, 2), ()),
        ("negative_start", [(3, 6)], lambda x: torch.narrow_copy(x, 1, -4, 3), ()),
        ("zero_length", [(3, 2)], lambda x: torch.narrow_copy(x, 0, 3, 0), ()),
        ("channels_last", [NCHW], lambda x: torch.narrow_copy(x, 1, 1, 2), CL),
    )),
    OpSpec("aten::select_copy.int_out", lambda x: x[1], _cases(
        ("regular", [(4, 3)], lambda x: x[1], ()),
        ("negative", [(2, 3, 4)], lambda x: x[:, -1], ()),
        ("to_rank0", [(5,)], lambda x: x[3], ()),
        ("empty", [(2, 0)], lambda x: x[1], ()),
        ("channels_last", [NCHW], lambda x: x[:, 2], CL),
    )),
    OpSpec("aten::unsqueeze_copy.out", lambda x: x.unsqueeze(0), _cases(
        ("regular", [(3, 4)], lambda x: x.unsqueeze(0), ()),
        ("last", [(3, 4)], lambda x: x.unsqueeze(-1), ()),
        ("rank0", [()], lambda x: x.unsqueeze(0), ()),
        ("empty", [(0, 3)], lambda x: x.unsqueeze(1), ()),
        ("channels_last", [NCHW], lambda x: x.unsqueeze(2), CL),
    )),
    OpSpec("aten::squeeze_copy.out", torch.squeeze_copy, _cases(
        ("regular", [(1, 3, 1, 4)], torch.squeeze_copy, ()),
        ("rank0", [()], torch.squeeze_copy, ()),
        ("all_ones", [(1, 1)], torch.squeeze_copy, ()),
        ("empty", [(0, 1, 3)], torch.squeeze_copy, ()),
    ), keep=(aten.squeeze_copy.default,)),
    OpSpec("aten::squeeze_copy.dim_out", lambda x: torch.squeeze_copy(x, 0), _cases(
        ("regular", [(1, 3, 4)], lambda x: torch.squeeze_copy(x, 0), ()),
        ("negative", [(3, 4, 1)], lambda x: torch.squeeze_copy(x, -1), ()),
        ("not_one", [(3, 4)], lambda x: torch.squeeze_copy(x, 1), ()),
        ("rank0", [()], lambda x: torch.squeeze_copy(x, 0), ()),
        ("channels_last", [(2, 3, 1, 5)], lambda x: torch.squeeze_copy(x, 2), CL),
    ), keep=(aten.squeeze_copy.dim,)),
    OpSpec("aten::squeeze_copy.dims_out", lambda x: x.squeeze((0, 2)), _cases(
        ("regular", [(1, 3, 1, 4)], lambda x: x.squeeze((0, 2)), ()),
        ("single", [(3, 1)], lambda x: x.squeeze(-1), ()),
        ("all", [(1, 3, 1)], lambda x: x.squeeze(), ()),
        ("empty", [(0, 1)], lambda x: x.squeeze(1), ()),
        ("channels_last", [(2, 1, 4, 5)], lambda x: x.squeeze(1), CL),
    )),
    OpSpec("aten::transpose_copy.int_out", lambda x: x.transpose(0, 1), _cases(
        ("regular", [(3, 4)], lambda x: x.transpose(0, 1), ()),
        ("negative", [(2, 3, 4)], lambda x: x.transpose(-1, 0), ()),
        ("empty", [(0, 3)], lambda x: x.transpose(0, 1), ()),
        ("channels_last", [NCHW], lambda x: x.transpose(1, 3), CL),
    ), keep=(aten.transpose.int,)),
    OpSpec("aten::t_copy.out", torch.t, _cases(
        ("regular", [(3, 4)], torch.t, ()),
        ("rank1", [(5,)], torch.t, ()),
        ("rank0", [()], torch.t, ()),
        ("empty", [(0, 3)], torch.t, ()),
    ), keep=(aten.t.default,)),
    OpSpec("aten::split_with_sizes_copy.out", lambda x: x.split([2, 3]), _split_with_sizes),
    OpSpec("aten::split_copy.Tensor_out", lambda x: torch.split_copy(x, 2), _cases(
        ("regular", [(5, 3)], lambda x: torch.split_copy(x, 2), ()),
        ("dim1", [(2, 6)], lambda x: torch.split_copy(x, 3, 1), ()),
        ("bigger_than_dim", [(2, 3)], lambda x: torch.split_copy(x, 4), ()),
        ("channels_last", [NCHW], lambda x: torch.split_copy(x, 2, 1), CL),
    ), keep=(aten.split_copy.Tensor,)),
    OpSpec("aten::unbind_copy.int_out", lambda x: torch.unbind_copy(x), _cases(
        ("regular", [(3, 4)], lambda x: torch.unbind_copy(x), ()),
        ("dim1", [(2, 3, 2)], lambda x: torch.unbind_copy(x, 1), ()),
        ("to_rank0", [(3,)], lambda x: torch.unbind_copy(x), ()),
        ("channels_last", [NCHW], lambda x: torch.unbind_copy(x, 1), CL),
    ), keep=(aten.unbind_copy.int,)),
    OpSpec("aten::index_select.out", torch.index_select, _index_select),
    OpSpec("aten::index.Tensor_out", lambda x, j: x[j], _index_samples),
    OpSpec("aten::index_put.out", torch.index_put, _index_put),
    OpSpec("aten::gather.out", torch.gather, _gather),
    OpSpec("aten::repeat.out", lambda x: x.repeat(2, 1), _cases(
        ("regular", [(2, 3)], lambda x: x.repeat(2, 1), ()),
        ("new_dims", [(2, 3)], lambda x: x.repeat(2, 1, 3), ()),
        ("rank0", [()], lambda x: x.repeat(3), ()),
        ("zero", [(2, 3)], lambda x: x.repeat(0, 2), ()),
        ("channels_last", [NCHW], lambda x: x.repeat(1, 2, 1, 1), CL),
    )),
    OpSpec("aten::flip.out", lambda x: x.flip(0), _cases(
        ("regular", [(3, 4)], lambda x: x.flip(0), ()),
        ("several", [(2, 3, 4)], lambda x: x.flip(0, -1), ()),
        ("empty", [(0, 3)], lambda x: x.flip(1), ()),
        ("channels_last", [NCHW], lambda x: x.flip(1, 3), CL),
    )),
    OpSpec("aten::roll.out", lambda x: x.roll(1, 0), _cases(
        ("regular", [(4, 3)], lambda x: x.roll(1, 0), ()),
        ("several", [(3, 5)], lambda x: x.roll((-2, 7), (0, 1)), ()),
        ("flattened", [(2, 3)], lambda x: x.roll(4), ()),
        ("empty", [(0, 3)], lambda x: x.roll(1, 1), ()),
        ("channels_last", [NCHW], lambda x: x.roll(2, 1), CL),
    ), keep=(aten.roll.default,)),
]

# -- operators upstream ExecuTorch programs call -------------------------------------

_CLONE_CASES = _cases(
    ("regular", [(3, 4)], torch.clone, ()),
    ("to_channels_last", [NCHW], lambda x: x.clone(memory_format=torch.channels_last), ()),
    ("from_channels_last", [NCHW], lambda x: x.contiguous(), CL),
    ("rank0", [()], torch.clone, ()),
    ("empty", [(0, 3)], torch.clone, ()),
)
_CLONE_TO_DIM_ORDER = replace_calls(aten.clone.default, dim_order_ops._clone_dim_order.default,
                                    _dim_order_arguments)


def _to_dim_order_copy(dtype: torch.dtype) -> list[Sample]:
    other = other_dtype(dtype)
    return [
        Sample("regular", (make((3, 4), dtype, low=0),), lambda x: x.to(other)),
        Sample("to_bool", (make((3, 4), dtype),), lambda x: x.to(torch.bool if dtype != torch.bool else torch.int8)),
        Sample("to_channels_last", (make(NCHW, dtype),), lambda x: x.to(other, memory_format=torch.channels_last)),
        Sample("from_channels_last", (make(NCHW, dtype),), lambda x: x.to(other), CL),
        Sample("rank0", (make((), dtype),), lambda x: x.to(other)),
        Sample("empty", (make((0, 3), dtype),), lambda x: x.to(other)),
    ]


UPSTREAM = [
    OpSpec("dim_order_ops::_clone_dim_order.out", torch.clone, _CLONE_CASES,
           rewrite=_CLONE_TO_DIM_ORDER, keep_copies=True, notes="upstream ExecuTorch's dim-order clone"),
    OpSpec("aten::_clone_dim_order.out", torch.clone, _CLONE_CASES, rewrite=_CLONE_TO_DIM_ORDER,
           keep_copies=True,
           rename={"dim_order_ops::_clone_dim_order.out": "aten::_clone_dim_order.out"},
           notes="the same kernel under the aten namespace some upstream versions use"),
    OpSpec("dim_order_ops::_to_dim_order_copy.out", lambda x: x.to(torch.float64), _to_dim_order_copy,
           rewrite=replace_calls(aten._to_copy.default, dim_order_ops._to_dim_order_copy.default,
                                 _dim_order_arguments),
           notes="upstream ExecuTorch's dim-order Tensor.to(dtype)"),
    OpSpec("executorch_prim::et_view.default", lambda x: x.view(-1), _cases(
        ("regular", [(3, 4)], lambda x: x.view(2, 6), ()),
        ("infer", [(2, 3, 4)], lambda x: x.view(-1, 4), ()),
        ("rank0_to_1", [()], lambda x: x.view(1), ()),
        ("empty", [(0, 3)], lambda x: x.view(3, 0), ()),
    ), rewrite=replace_calls(aten.view_copy.default, executorch_prim.et_view.default),
        rename={"executorch_prim::et_view.out": "executorch_prim::et_view.default"},
        notes="upstream's memory-sharing view: out aliases self (no copy)"),
]

SPECS = MOVEMENT + UPSTREAM
