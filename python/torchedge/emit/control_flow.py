"""torch.cond as jumps, in upstream ExecuTorch's layout.

    k      JumpFalseCall(pred, -> k+n+2)     pred: a bool tensor or a Bool value
    k+1..  true branch, inlined; MoveCall(result_i -> cond value i) per result
    k+n+1  JumpFalseCall(False, -> end)      unconditional: skip the false branch
    ...    false branch, inlined; MoveCall(result_i -> cond value i)
    end

Branch graphs are emitted inline with their placeholders bound to the cond's
operands, so each branch reads the operands' own values. The cond's result
values receive a MoveCall from whichever branch ran; they own no memory
(torchedge.memory treats MoveCall destinations as aliases).
"""

from __future__ import annotations

from typing import Optional, Protocol, Union

import torch
import torch.fx

from torchedge.emit.value_table import ValueTable
from torchedge.serialize import schema as s

COND = torch.ops.higher_order.cond


class BranchEmitter(Protocol):
    """What emitting a cond needs from the method emitter (MethodEmitter
    provides it; this module does not import it)."""

    values: ValueTable

    @property
    def num_instructions(self) -> int: ...

    def value_of(self, node: torch.fx.Node) -> int: ...

    def results(self, node: torch.fx.Node) -> Union[int, list[int]]: ...

    def append(self, instruction: s.InstructionArguments, node: Optional[torch.fx.Node]) -> int: ...

    def submodule(self, node: object) -> torch.fx.GraphModule: ...

    def emit_subgraph(self, module: torch.fx.GraphModule, inputs: list[int]) -> list[int]: ...

    def is_written(self, index: int) -> bool: ...

    def clone(self, source: int, node: torch.fx.Node) -> int: ...


def emit_cond(emitter: BranchEmitter, node: torch.fx.Node) -> None:
    pred, true_node, false_node, operands = node.args
    if not isinstance(pred, torch.fx.Node):
        raise TypeError(f"torch.cond predicate {pred!r} is a constant; export should have inlined it")
    inputs = [emitter.value_of(o) for o in operands]
    results = emitter.results(node)
    results = results if isinstance(results, list) else [results]

    skip_true = s.JumpFalseCall(emitter.value_of(pred), -1)
    emitter.append(skip_true, node)
    _emit_branch(emitter, emitter.submodule(true_node), inputs, results, node)
    skip_false = s.JumpFalseCall(emitter.values.bool(False), -1)
    emitter.append(skip_false, node)
    skip_true.destination_instruction = emitter.num_instructions
    _emit_branch(emitter, emitter.submodule(false_node), inputs, results, node)
    skip_false.destination_instruction = emitter.num_instructions


def _emit_branch(
    emitter: BranchEmitter,
    branch: torch.fx.GraphModule,
    inputs: list[int],
    results: list[int],
    node: torch.fx.Node,
) -> None:
    outputs = emitter.emit_subgraph(branch, inputs)
    if len(outputs) != len(results):
        raise TypeError(f"torch.cond branch returns {len(outputs)} values, the cond {len(results)}")
    for source, target in zip(outputs, results):
        if not emitter.is_written(source):
            # The branch returns an operand (or a constant) unchanged: move a
            # copy, so the result never aliases memory that others may write.
            source = emitter.clone(source, node)
        emitter.append(s.MoveCall(source, target), node)
