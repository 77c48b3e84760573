"""Recompute every node's meta["val"] (fake tensor / SymInt) after rewrites.

Symbolic sizes must survive the re-propagation. Operators with a
CompositeImplicitAutograd C++ kernel (upsample_*.vec, the interpolate
entry points) read `input.sizes()` as concrete ints unless the Python
dispatcher routes them to their symbolic Python decompositions, as
torch.export does while tracing; without it each such call guards the
ShapeEnv into `s == hint` and the dynamic dimension silently becomes
static. So propagation runs under the Python dispatcher, and any symbol
that still collapses to a constant is reported with the node that forced it.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.fx
from torch._dispatch.python import enable_python_dispatcher
from torch._guards import detect_fake_mode
from torch._ops import OpOverload
from torch.fx.passes.fake_tensor_prop import FakeTensorProp
from torch.utils import _pytree as pytree

from torchedge.errors import ExportError, Problem
from torchedge.passes.view_copies import view_of_copy
from torchedge.source_location import describe


COND = torch.ops.higher_order.cond


class _SpecializationCheck:
    """Raises ExportError naming the node after which one of the graph's
    symbolic sizes became a constant (a guard `s == hint`)."""

    def __init__(self, mode: Any, inputs: list):
        self._shape_env = getattr(mode, "shape_env", None)
        symbols: set = set()
        for value in pytree.tree_leaves(inputs):
            if isinstance(value, torch.Tensor):
                for size in value.shape:
                    if isinstance(size, torch.SymInt):
                        symbols |= size.node.expr.free_symbols
            elif isinstance(value, torch.SymInt):
                symbols |= value.node.expr.free_symbols
        self._symbols = symbols
        self._replacements = self._count()

    def _count(self) -> int:
        return len(self._shape_env.replacements) if self._shape_env is not None else 0

    def check(self, node: torch.fx.Node) -> None:
        count = self._count()
        if count == self._replacements:
            return
        self._replacements = count
        fixed = sorted(str(s) for s in self._symbols
                       if self._shape_env.replace(s).is_number)
        if fixed:
            raise _Specialized(Problem(
                f"this operator forces the dynamic size{'s' if len(fixed) > 1 else ''} "
                f"{', '.join(fixed)} to a constant while shapes are propagated; the "
                "dimension would become static", operator=str(node.target),
                location=describe(node)))


class _Specialized(Exception):
    def __init__(self, problem: Problem):
        super().__init__(str(problem))
        self.problem = problem


class _CopyAwareFakeTensorProp(FakeTensorProp):
    """Runs `*_copy` nodes as their view followed by a contiguous clone.

    Same result as the copy op, but some copy ops' fake kernels guard on (and
    so specialize) symbolic sizes that their view forms handle symbolically.
    """

    def __init__(self, module: torch.fx.GraphModule, mode: Any,
                 specialized: "_SpecializationCheck"):
        super().__init__(module, mode)
        self._specialized = specialized

    def run_node(self, n: torch.fx.Node) -> Any:
        result = super().run_node(n)
        self._specialized.check(n)
        return result

    def call_function(self, target: Any, args: tuple, kwargs: dict) -> Any:
        if target is COND:
            self._refresh_branches(args)
        view = view_of_copy(target) if isinstance(target, OpOverload) else None
        if view is None:
            return super().call_function(target, args, kwargs)
        result = view(*args, **kwargs)
        return pytree.tree_map_only(
            torch.Tensor, lambda t: t.clone(memory_format=torch.contiguous_format), result
        )


    def _refresh_branches(self, args: tuple) -> None:
        """Propagates the cond's operands through both branch graphs, which
        the cond itself runs opaquely."""
        _, true_branch, false_branch, operands = args
        for branch in (true_branch, false_branch):
            if isinstance(branch, torch.fx.GraphModule):
                prop = _CopyAwareFakeTensorProp(branch, self._mode, self._specialized)
                prop.propagate_dont_convert_inputs(*operands)


def graph_fake_mode(graph: torch.fx.Graph) -> Any:
    """The fake mode of `graph`'s placeholders' meta["val"] (None when none
    carries a fake value; a graph without inputs has it on its computed nodes):
    the mode new constants' fake values are made in."""
    mode = detect_fake_mode([n.meta.get("val") for n in graph.nodes if n.op == "placeholder"])
    return mode or detect_fake_mode([n.meta.get("val") for n in graph.nodes])


def refresh_fake_tensors(gm: torch.fx.GraphModule) -> None:
    """Re-propagates fake values from the placeholders' meta["val"].

    Afterwards every node's meta["val"] has the sizes, dtype and strides
    (hence dim order) the rewritten graph really produces, in the same fake
    mode and ShapeEnv as the exported program (symbolic sizes stay symbolic);
    so do the nodes of torch.cond branch graphs. Raises ExportError naming
    the operator and source line if a node would turn a symbolic size of the
    inputs into a constant.
    """
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    inputs = [n.meta.get("val") for n in placeholders]
    # A program without inputs (factory ops: arange, window functions) has
    # its fake mode on the computed nodes only.
    mode = detect_fake_mode(inputs) or graph_fake_mode(gm.graph)
    if mode is None:
        if not any(n.op == "call_function" for n in gm.graph.nodes):
            return  # nothing computed (a method returning constants): nothing to refresh
        raise ValueError("graph placeholders carry no fake tensors in meta['val']")
    specialized = _SpecializationCheck(mode, inputs)
    try:
        with enable_python_dispatcher():
            _CopyAwareFakeTensorProp(gm, mode, specialized).propagate_dont_convert_inputs(*inputs)
    except _Specialized as e:
        raise ExportError([e.problem]) from None
