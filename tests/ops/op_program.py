"""One-op programs: all samples of an operator in one module, lowered with
torchedge, with the check that every sample really calls the kernel under
test with its dtype.

Each sample is a child module (`samples.<i>`), so every node of the edge
graph knows its sample through `nn_module_stack`. A sample proves nothing
when none of its nodes lowers to the kernel, or none of those nodes has a
tensor of the sample's dtype among its operands and results (the exporter
may decompose the op into others, or convert its inputs first):
`lower_samples` raises HarnessError naming those samples.

Kernels the exporter never emits on its own are reached in four declared
ways (OpSpec fields): `keep` leaves torch ops out of the decomposition table
(such programs skip the core-ATen verifier, since kept ops are not core),
`keep_copies` keeps the same-layout clones to_edge would drop, `rewrite`
edits the edge graph (e.g. view_copy -> _unsafe_view) and `rename` renames a
kernel in the finished file (upstream's executorch_prim names).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

import torch
import torch.fx
from torch._ops import OpOverload
from torch.utils import _pytree as pytree

import torchedge
import torchedge.edge.program as edge_program_module
from torchedge.aten.out_variants import kernel_name, out_variant

from op_spec import OpSpec, Sample


class HarnessError(Exception):
    """Samples (by index in the batch) that do not call the kernel under test."""

    def __init__(self, message: str, missing: Sequence[int]) -> None:
        super().__init__(message)
        self.missing = list(missing)


# -- building the batched module ----------------------------------------------


class SampleModule(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any], channels_last: tuple[int, ...]) -> None:
        super().__init__()
        self.fn = fn
        self.channels_last = channels_last

    def forward(self, *inputs: torch.Tensor) -> Any:
        inputs = tuple(
            x.contiguous(memory_format=torch.channels_last) if i in self.channels_last else x
            for i, x in enumerate(inputs)
        )
        return self.fn(*inputs)


class BatchModule(torch.nn.Module):
    """All samples side by side; returns every sample's outputs, flattened."""

    def __init__(self, spec: OpSpec, samples: Sequence[Sample]) -> None:
        super().__init__()
        self.samples = torch.nn.ModuleList(
            SampleModule(s.fn or spec.fn, s.channels_last) for s in samples
        )
        self.arity = [len(s.inputs) for s in samples]

    def forward(self, *flat: torch.Tensor) -> tuple:
        outputs, start = [], 0
        for module, n in zip(self.samples, self.arity):
            outputs.extend(pytree.tree_leaves(module(*flat[start:start + n])))
            start += n
        return tuple(outputs)


def flat_inputs(samples: Sequence[Sample]) -> tuple[torch.Tensor, ...]:
    return tuple(x for s in samples for x in s.inputs)


@contextlib.contextmanager
def _lowering_for(spec: OpSpec) -> Iterator[None]:
    """to_edge as usual, except (for the duration) its decomposition table
    lacks spec.keep and, with spec.keep_copies, same-layout copies stay."""
    original_table = edge_program_module.edge_decompositions
    original_removal = torchedge.passes.remove_redundant_copies

    def table():
        t = original_table()
        for op in spec.keep:
            if op in t:
                del t[op]
        return t

    if spec.keep:
        edge_program_module.edge_decompositions = table
    if spec.keep_copies:
        torchedge.passes.remove_redundant_copies = lambda gm: False
    try:
        yield
    finally:
        edge_program_module.edge_decompositions = original_table
        torchedge.passes.remove_redundant_copies = original_removal


def node_kernel(node: torch.fx.Node) -> Optional[str]:
    """The kernel name an edge-graph call node lowers to, if it is an op call."""
    if node.op != "call_function" or not isinstance(node.target, OpOverload):
        return None
    out = out_variant(node.target)
    if out is None:
        return None
    name, overload = kernel_name(out)
    return f"{name}.{overload}"


def _tensor_dtypes(value: Any) -> set[torch.dtype]:
    leaves = pytree.tree_leaves(value)
    metas = [leaf.meta.get("val") if isinstance(leaf, torch.fx.Node) else leaf for leaf in leaves]
    return {t.dtype for t in pytree.tree_leaves(metas) if isinstance(t, torch.Tensor)}


def _samples_missing_kernel(gm: torch.fx.GraphModule, spec: OpSpec,
                            dtypes: Sequence[Optional[torch.dtype]]) -> list[int]:
    """Indices of samples that do not call spec.name with their dtype: no
    node of the sample lowers to the kernel, or none of those nodes has a
    tensor of the sample's dtype among its operands and results (a
    conversion inserted around the op would test another dtype)."""
    seen: dict[int, set[torch.dtype]] = {}
    for node in gm.graph.nodes:
        kernel = node_kernel(node)
        if kernel is None or spec.rename.get(kernel, kernel) != spec.name:
            continue
        types = _tensor_dtypes((node.args, node.kwargs, node.meta.get("val")))
        for path, _ in (node.meta.get("nn_module_stack") or {}).values():
            if path.startswith("samples."):
                seen.setdefault(int(path.split(".")[1]), set()).update(types)
    return [i for i, dtype in enumerate(dtypes)
            if i not in seen or (dtype is not None and dtype not in seen[i])]


def _rename_kernels(buffer: bytes, rename: Mapping[str, str]) -> bytes:
    from torchedge.serialize import deserialize_pte, serialize_pte
    from torchedge.serialize import schema as s

    pte = deserialize_pte(buffer)
    for plan in pte.program.execution_plan:
        for i, op in enumerate(plan.operators):
            full = rename.get(f"{op.name}.{op.overload}")
            if full is not None:
                name, overload = full.rsplit(".", 1)
                plan.operators[i] = s.Operator(name, overload)
    return serialize_pte(pte.program, pte.segments)


def lower_samples(spec: OpSpec, samples: Sequence[Sample],
                  dtypes: Optional[Sequence[torch.dtype]] = None) -> tuple[torch.nn.Module, bytes]:
    """The batched module and its .pte bytes. HarnessError if a sample does
    not call the kernel (with its entry of `dtypes`, when given)."""
    module = BatchModule(spec, samples).eval()
    with _lowering_for(spec):
        ep = torch.export.export(module, flat_inputs(samples))
        edge = torchedge.to_edge(ep, verify=not spec.keep, fold_constants=False)
    gm = edge.exported_program().graph_module
    if spec.rewrite is not None:
        spec.rewrite(gm)
        gm.graph.lint()
        gm.recompile()
    missing = _samples_missing_kernel(gm, spec, list(dtypes) if dtypes else [None] * len(samples))
    if missing:
        emitted = sorted({k for k in map(node_kernel, gm.graph.nodes) if k})
        raise HarnessError(f"the program calls {emitted}", missing)
    buffer = edge.to_pte().buffer
    if spec.rename:
        buffer = _rename_kernels(buffer, spec.rename)
    return module, buffer
