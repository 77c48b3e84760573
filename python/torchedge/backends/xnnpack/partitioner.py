"""XnnpackPartitioner: which nodes go to the XNNPACK delegate, and why not.

Per node, op_support.check_node looks at dtypes, shapes, attributes and
whether weights are constants. On top of that a whole-program layout plan
(layout.py) rejects operators that would need a transpose between NHWC
convolution activations and an NCHW-only operator, since XNNPACK 2022 has
none; those stay on the portable kernels, and the delegate's boundary
converts layouts instead.
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
    """Delegates float32 CNN/MLP operators to XNNPACK (see op_support.RULES)."""

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
        return super().decide(program)

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
        constant = program_constants(program)
        nodes = [n for n in program.graph.nodes
                 if n.op == "call_function" and n.target is not operator.getitem]
        reasons = {n: check_node(n, constant) for n in nodes}
        while True:  # dropping a node only relaxes layouts; a few rounds settle it
            plan = plan_layouts(node_view(n, constant) for n in nodes if reasons[n] is None)
            if not plan.conflicts:
                return reasons
            reasons.update(plan.conflicts)
