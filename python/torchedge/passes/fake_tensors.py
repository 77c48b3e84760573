"""Recompute every node's meta["val"] (fake tensor / SymInt) after rewrites."""

from __future__ import annotations

from typing import Any

import torch
import torch.fx
from torch._guards import detect_fake_mode
from torch._ops import OpOverload
from torch.fx.passes.fake_tensor_prop import FakeTensorProp
from torch.utils import _pytree as pytree

from torchedge.passes.view_copies import view_of_copy


COND = torch.ops.higher_order.cond


class _CopyAwareFakeTensorProp(FakeTensorProp):
    """Runs `*_copy` nodes as their view followed by a contiguous clone.

    Same result as the copy op, but some copy ops' fake kernels guard on (and
    so specialize) symbolic sizes that their view forms handle symbolically.
    """

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
                _CopyAwareFakeTensorProp(branch, self._mode).propagate_dont_convert_inputs(*operands)


def graph_fake_mode(graph: torch.fx.Graph) -> Any:
    """The fake mode of `graph`'s placeholders' meta["val"] (None when none
    carries a fake value): the mode new constants' fake values are made in."""
    return detect_fake_mode([n.meta.get("val") for n in graph.nodes if n.op == "placeholder"])


def refresh_fake_tensors(gm: torch.fx.GraphModule) -> None:
    """Re-propagates fake values from the placeholders' meta["val"].

    Afterwards every node's meta["val"] has the sizes, dtype and strides
    (hence dim order) the rewritten graph really produces, in the same fake
    mode and ShapeEnv as the exported program (symbolic sizes stay symbolic);
    so do the nodes of torch.cond branch graphs.
    """
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    inputs = [n.meta.get("val") for n in placeholders]
    mode = detect_fake_mode(inputs)
    if mode is None:
        if not any(n.op == "call_function" for n in gm.graph.nodes):
            return  # nothing computed (a method returning constants): nothing to refresh
        raise ValueError("graph placeholders carry no fake tensors in meta['val']")
    _CopyAwareFakeTensorProp(gm, mode).propagate_dont_convert_inputs(*inputs)
