"""VulkanPartitioner: which nodes go to the Vulkan delegate, and why not.

Per node, op_support.check_node looks at dtypes, shapes and attributes. On
top of that: the safe-softmax pattern (patterns.py) is delegated exactly
when its softmax is; `where` needs a constant condition (a mask computed at
run time would be a bool tensor, which the delegate does not hold); and a
partition made only of reshapes (no dispatch worth a submit) stays on the
CPU.
"""

from __future__ import annotations

import operator
from typing import Optional

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind

from torchedge.backends.backend_details import CompileSpec
from torchedge.backends.partitioner import NodeDecision, Partitioner
from torchedge.backends.vulkan.lowering import ALIASES
from torchedge.backends.vulkan.op_support import FLOAT16_PROGRAM, check_node
from torchedge.backends.vulkan.patterns import ROLE_KEY, mark_patterns
from torchedge.backends.vulkan.preprocess import FORCE_FP16_KEY, VulkanBackend

aten = torch.ops.aten


def _constant_placeholders(ep: ExportedProgram) -> set[str]:
    mutated = set(ep.graph_signature.buffers_to_mutate.values())
    names = set()
    for spec in ep.graph_signature.input_specs:
        if spec.kind in (InputKind.PARAMETER, InputKind.CONSTANT_TENSOR) or (
                spec.kind == InputKind.BUFFER and spec.target not in mutated):
            names.add(spec.arg.name)
    return names


class VulkanPartitioner(Partitioner):
    """Delegates float32 and float16 operators with a Vulkan shader (op_support.RULES).

    A float16 model (`model.half()`, float16 inputs) delegates as float16:
    float16 tensors in the blob and on the device, which needs the device's
    shaderFloat16 and storageBuffer16BitAccess; on a device without them the
    program's init fails naming the missing feature (the partitioner cannot
    know the device: lower the float32 model, or use force_fp16, for such
    devices). `force_fp16=True` computes float32 partitions in float16 on
    devices that can (float32 inputs/outputs at the delegate boundary, about
    3 decimal digits inside; docs/vulkan.md has the measured errors) and in
    float32 on the others.
    """

    backend = VulkanBackend

    def __init__(self, compile_specs=None, force_fp16: bool = False) -> None:
        specs = list(compile_specs or [])
        if force_fp16:
            specs.append(CompileSpec(FORCE_FP16_KEY, b"\x01"))
        super().__init__(specs)
        self._reasons: dict[torch.fx.Node, Optional[str]] = {}

    def decide(self, program: ExportedProgram) -> list[NodeDecision]:
        self._reasons = self._decide_all(program)
        return super().decide(program)

    def check(self, node: torch.fx.Node, program: ExportedProgram) -> Optional[str]:
        if node not in self._reasons:
            self._reasons = self._decide_all(program)
        return self._reasons.get(node, "not an operator node")

    def reject_partition(self, nodes: list[torch.fx.Node]) -> Optional[str]:
        work = [n for n in nodes if n.target not in ALIASES and n.target is not operator.getitem]
        if not work:
            return (f"a group of {len(nodes)} reshapes only: a delegate call would cost more "
                    "than it saves")
        return None

    @staticmethod
    def _decide_all(program: ExportedProgram) -> dict[torch.fx.Node, Optional[str]]:
        graph = program.graph
        mark_patterns(graph)
        constants = _constant_placeholders(program)
        placeholders = {n.meta["val"].dtype for n in graph.nodes if n.op == "placeholder" and
                        isinstance(n.meta.get("val"), torch.Tensor) and
                        n.meta["val"].dtype.is_floating_point}
        float16_program = placeholders == {torch.float16}
        reasons: dict[torch.fx.Node, Optional[str]] = {}
        for node in graph.nodes:
            if node.op != "call_function":
                continue
            if node.target is aten.where.self:
                cond = node.args[0]
                node.meta["vulkan_constant_condition"] = (
                    isinstance(cond, torch.fx.Node) and cond.op == "placeholder" and
                    cond.name in constants)
            if node.target is aten._to_copy.default:
                node.meta[FLOAT16_PROGRAM] = float16_program
            reasons[node] = check_node(node)
        # A pattern goes with its softmax; a getitem with its producer.
        for node in graph.nodes:
            if node.meta.get(ROLE_KEY) == "softmax_result":
                soft = node.args[2]
                if reasons.get(soft) is not None:
                    for n in [node, *node.args[0:2]] + _absorbed_chain(node):
                        reasons[n] = f"its softmax ({soft.name}) stays on the CPU kernels"
            if node.op == "call_function" and node.target is operator.getitem:
                producer = node.args[0]
                if reasons.get(producer) is not None:
                    reasons[node] = reasons[producer]
        return reasons


def _absorbed_chain(where: torch.fx.Node) -> list[torch.fx.Node]:
    cond = where.args[0]
    any_node = cond.args[0]
    inner = any_node.args[0]
    return [any_node, inner, inner.args[0]]
