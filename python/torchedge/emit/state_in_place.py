"""State updated in place: results that take a mutable buffer's own value.

An LLM's KV cache is a mutable buffer the model updates every call. After
functionalization the graph computes a *new* cache (an op result) and the
emitter writes it back with `aten::copy_` (method_emitter._write_buffer):
a copy of the whole cache per layer per token, ~90 MB per token for a
small model at a 2048-token context. Ops registered with
register_state_outputs (torchedge/llm/ops.py registers sdpa_kv_cache) take
an input cache and return the updated cache; their kernels accept the
result in the input's bytes (they then write only the rows that change). When it
is safe, the emitter gives such a result the buffer's own value, so no
copy is emitted and the planner keeps the buffer's one allocation.

Safe when, for result `i` of node `n` reading buffer `b` as argument `a`:
  * `b` is a mutable buffer of this method (the argument is its placeholder);
  * `n` is the buffer's only reader (nothing needs the old value afterwards);
  * the value written back to `b` at the end is exactly result `i` of `n`.
Anything else keeps the fresh result and the write-back copy.
"""

from __future__ import annotations

import operator
import torch
import torch.fx
from torch._ops import OpOverload
from torch.export.graph_signature import OutputKind

from torchedge.aten.arguments import bind_arguments


# op -> {result index: name of the input argument it updates}; operator
# libraries register their state-updating ops here (torchedge/llm/ops.py).
_STATE_OUTPUTS: dict[OpOverload, dict[int, str]] = {}


def register_state_outputs(op: OpOverload, updates: dict[int, str]) -> None:
    """Declares that result i of `op` is input argument updates[i] updated,
    and that op's kernel accepts that result in the input's own bytes."""
    _STATE_OUTPUTS[op] = dict(updates)


def written_back(program: torch.export.ExportedProgram) -> dict[str, torch.fx.Node]:
    """Mutated buffer target -> the node whose value is written back to it."""
    output = next(n for n in program.graph.nodes if n.op == "output")
    specs = program.graph_signature.output_specs
    return {spec.target: value for spec, value in zip(specs, output.args[0])
            if spec.kind == OutputKind.BUFFER_MUTATION and isinstance(value, torch.fx.Node)}


def in_place_results(
    node: torch.fx.Node,
    op: OpOverload,
    buffer_targets: dict[torch.fx.Node, str],
    write_backs: dict[str, torch.fx.Node],
) -> dict[int, str]:
    """{result index: buffer target} for the results of `node` that may take
    their buffer's value (see the module docstring). `buffer_targets` maps a
    mutable buffer's placeholder node to its target name."""
    updates = _STATE_OUTPUTS.get(op)
    if not updates:
        return {}
    bound = bind_arguments(op._schema, node.args, node.kwargs)
    getitems = {user.args[1]: user for user in node.users
                if user.op == "call_function" and user.target is operator.getitem}
    found: dict[int, str] = {}
    for index, argument in updates.items():
        source = bound.get(argument)
        target = buffer_targets.get(source) if isinstance(source, torch.fx.Node) else None
        if target is None or len(source.users) != 1:
            continue
        result = getitems.get(index)
        if result is not None and write_backs.get(target) is result:
            found[index] = target
    return found
