"""Operators on symbolic sizes (SymInt) and their runtime operator names.

With dynamic shapes, export computes sizes in the graph: `aten.sym_size.int`
reads a dimension of a tensor at run time, Python operators combine sizes.
The runtime names are upstream ExecuTorch's primitive operators (its
`executorch_prim` library; kernels in torchedge's kernels/prim), all with
the call convention [operands..., out].
"""

from __future__ import annotations

import builtins
import math
import operator
from typing import Any, Callable

import torch

aten = torch.ops.aten

# graph target -> (Operator.name, Operator.overload); args (operands..., out).
SYMBOLIC_OPERATORS: dict[Callable[..., Any], tuple[str, str]] = {
    operator.add: ("executorch_prim::add", "Scalar"),
    operator.sub: ("executorch_prim::sub", "Scalar"),
    operator.mul: ("executorch_prim::mul", "Scalar"),
    operator.floordiv: ("executorch_prim::floordiv", "Scalar"),
    operator.truediv: ("executorch_prim::truediv", "Scalar"),
    operator.mod: ("executorch_prim::mod", "Scalar"),
    operator.neg: ("executorch_prim::neg", "Scalar"),
    operator.eq: ("executorch_prim::eq", "Scalar"),
    operator.gt: ("executorch_prim::gt", "Scalar"),
    operator.lt: ("executorch_prim::lt", "Scalar"),
    operator.ge: ("executorch_prim::ge", "Scalar"),
    operator.le: ("executorch_prim::le", "Scalar"),
    math.ceil: ("executorch_prim::ceil", "Scalar"),
    math.trunc: ("executorch_prim::trunc", "Scalar"),
    builtins.round: ("executorch_prim::round", "Scalar"),
    torch.sym_float: ("executorch_prim::sym_float", "Scalar"),
    torch.sym_int: ("executorch_prim::sym_int", "Scalar"),
    torch.sym_max: ("executorch_prim::sym_max", "Scalar"),
    torch.sym_min: ("executorch_prim::sym_min", "Scalar"),
    torch.sym_not: ("executorch_prim::sym_not", "Scalar"),
    torch.sym_ite: ("executorch_prim::sym_ite", "Scalar"),
}

# Comparisons upstream has no primitive for, emitted as the negation of one
# it has: a != b is sym_not(a == b).
NEGATED_COMPARISONS: dict[Callable[..., Any], Callable[..., Any]] = {
    operator.ne: operator.eq,
}

# ATen operators returning a SymInt; args (self, dim?, out).
SIZE_OPERATORS: dict[Any, tuple[str, str]] = {
    aten.sym_size.int: ("aten::sym_size", "int"),
    aten.sym_numel.default: ("aten::sym_numel", ""),
}
