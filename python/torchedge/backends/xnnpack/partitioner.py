"""XnnpackPartitioner: which nodes go to the XNNPACK delegate, and why not.

Per node, op_support.check_node looks at dtypes, shapes, attributes and
whether weights are constants. On top of that a whole-program layout plan
(layout.py) rejects operators that would need a transpose between NHWC
convolution activations and an NCHW-only operator, since XNNPACK 2022 has
none; those stay on the portable kernels, and the delegate's boundary
converts layouts instead.

Quantized (PT2E) programs: quantize/dequantize nodes and per-channel
weight dequantizes are delegated too (quantized_patterns.py); a weight's
dequantize goes wherever its consumer goes. For delegated operators that
read dequantized values the report says whether they run in int8 and, if
not, why.
"""

from __future__ import annotations

import operator
from typing import Callable, Optional

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from torchedge.backends.partitioner import Partitioner
from torchedge.backends.xnnpack.layout import plan_layouts
from torchedge.backends.xnnpack.op_support import check_node, node_view
from torchedge.backends.xnnpack.preprocess import XnnpackBackend
from torchedge.backends.xnnpack.quantized_patterns import (
    FoldedConstants, is_fold_candidate, match_int8,
)


def program_constants(ep: ExportedProgram) -> Callable[[torch.fx.Node], Optional[torch.Tensor]]:
    """Placeholder node -> its tensor, for weights, buffers never mutated and lifted constants."""
    mutated = set(ep.graph_signature.buffers_to_mutate.values())
    by_name = {}
    for spec in ep.graph_signature.input_specs:
        if spec.kind == InputKind.PARAMETER or spec.kind == InputKind.CONSTANT_TENSOR or (
                spec.kind == InputKind.BUFFER and spec.target not in mutated):
            source = ep.state_dict if spec.target in ep.state_dict else ep.constants
            by_name[spec.arg.name] = source[spec.target]
    return lambda node: by_name.get(node.name) if node.op == "placeholder" else None


_COMPUTE_HEAVY = {
    torch.ops.aten.convolution.default,
    torch.ops.aten.addmm.default,
    torch.ops.aten.mm.default,
    torch.ops.aten.linear.default,
    torch.ops.aten.bmm.default,
}


class XnnpackPartitioner(Partitioner):
    """Delegates float32 CNN/MLP operators (int8 where quantized) to XNNPACK (see op_support.RULES)."""

    backend = XnnpackBackend

    def __init__(self, compile_specs=None, *, delegate_light_groups: bool = False) -> None:
        """delegate_light_groups: also delegate groups without a convolution or
        matrix product (by default they stay on the CPU kernels)."""
        super().__init__(compile_specs)
        self.delegate_light_groups = delegate_light_groups
        self._reasons: dict[torch.fx.Node, Optional[str]] = {}

    def decide(self, program: ExportedProgram):
        # The layout plan looks at the whole program, so decide all nodes at once.
        self._reasons = self._decide_all(program)
        decisions = super().decide(program)
        _note_int8(decisions, program)
        return decisions

    def reject_partition(self, nodes: list[torch.fx.Node]) -> Optional[str]:
        # A delegate call plus its layout copies costs microseconds; a group of
        # elementwise/view operators saves less than that over the CPU kernels
        # (vit_tiny split into 123 such delegates). Only groups that contain a
        # convolution or matrix product are worth a delegate.
        if self.delegate_light_groups or any(n.target in _COMPUTE_HEAVY for n in nodes):
            return None
        return (f"a group of {len(nodes)} light operators without a convolution or matrix "
                "product: a delegate call would cost more than it saves")

    def check(self, node: torch.fx.Node, program: ExportedProgram) -> Optional[str]:
        if node not in self._reasons:  # check() called on its own
            self._reasons = self._decide_all(program)
        return self._reasons.get(node, "not an operator node")

    @staticmethod
    def _decide_all(program: ExportedProgram) -> dict[torch.fx.Node, Optional[str]]:
        constant = FoldedConstants(program_constants(program))
        nodes = [n for n in program.graph.nodes
                 if n.op == "call_function" and n.target is not operator.getitem]
        reasons = {n: check_node(n, constant) for n in nodes}
        while True:  # dropping a node only relaxes layouts; a few rounds settle it
            plan = plan_layouts(node_view(n, constant) for n in nodes if reasons[n] is None)
            reasons.update(plan.conflicts)
            if not plan.conflicts and not _tie_weights_to_consumers(nodes, reasons):
                return reasons


def _tie_weights_to_consumers(nodes, reasons) -> bool:
    """A folded weight dequantize is delegated exactly when all its readers
    are (it has no value of its own in a delegate). Returns True on a change."""
    changed = False
    for node in reversed(nodes):
        if not is_fold_candidate(node):
            continue
        kept = [u for u in node.users if reasons.get(u, "not an operator") is not None]
        if reasons[node] is None and kept:
            reasons[node] = f"its reader {kept[0].name} stays on the CPU kernels"
            changed = True
        if reasons[node] is not None:
            for user in node.users:
                if reasons.get(user) is None:
                    reasons[user] = f"its weight ({node.name}) stays outside the delegate"
                    changed = True
    return changed


def _note_int8(decisions, program: ExportedProgram) -> None:
    """Says, for each delegated operator reading dequantized values, whether
    it runs in int8 and, if not, why (the report prints these notes)."""
    constant = FoldedConstants(program_constants(program))
    by_name = {n.name: n for n in program.graph.nodes}
    delegated = {d.node for d in decisions if d.delegated}
    for decision in decisions:
        node = by_name.get(decision.node)
        if not decision.delegated or node is None:
            continue
        pattern, why = match_int8(node, constant)
        if pattern is not None and not all(
                n.name in delegated for n in (*pattern.inputs, pattern.output)):
            pattern, why = None, "its dequantize or quantize stays outside the delegate"
        if pattern is not None:
            decision.reason = f"int8 ({pattern.kind}, qs8 in XNNPACK)"
        elif why:
            decision.reason = f"float32 inside the delegate, between converts: {why}"
