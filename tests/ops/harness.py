"""The op-test harness: every portable kernel against eager PyTorch.

An `OpSpec` (see op_table.py) names a kernel ("aten::add.out"), a small
callable that reaches it from torch (`lambda x, y: torch.add(x, y, alpha=2)`)
and, per dtype, `Sample`s: the inputs of one shape case ("regular",
"broadcast", "rank0", "empty", "channels_last", ...). The harness puts every
sample of every requested dtype of one operator into ONE module (each sample
a child module, its results flattened into the outputs), lowers it with
torchedge (export -> to_edge -> to_pte), runs it in the C++ runtime and
compares each output with the same module run eagerly. One export per
operator keeps the whole table in a few minutes; when a batched program
fails to lower or run, the harness retries per dtype and then per sample,
so every failure names its (dtype, case).

Sample selection: float32 and int64 run every sample; the other dtypes
run the regular sample, their edge values and a rotating third of the
other shape cases (see `selected`), which keeps the whole table to a few
minutes. TORCHEDGE_OPS_EXHAUSTIVE=1 (or run_op(exhaustive=True), as
discover_dtypes.py does) runs every sample of every dtype.

It also checks that each sample really calls the kernel under test with
the dtype under test: some node of the sample's child module must lower to
that kernel and have a tensor of that dtype among its operands or results,
otherwise the sample proves nothing (the exporter may decompose an op into
others, or convert its inputs first).

Tolerance table (runtime vs eager, |actual - expected| <= atol + rtol * |expected|,
NaN must match NaN, shapes and dtypes must be equal):

    dtype               elementwise              reduction / matmul / conv / norm
    float32, float64    rtol 1e-5, atol 1e-6     rtol 1e-4, atol 1e-5
    float16             rtol 1e-3, atol 1e-3     rtol 1e-3, atol 1e-3
    bfloat16            rtol 1e-2, atol 1e-2     rtol 1e-2, atol 1e-2
    integers, bool      exact                    exact

The tolerance is chosen by the dtype of each output (an integer argmax of a
float input is exact).

Kernels the exporter never emits on its own are reached in four declared
ways (OpSpec fields): `keep` leaves torch ops out of the decomposition table
(such programs skip the core-ATen verifier, since kept ops are not core),
`keep_copies` keeps the same-layout clones to_edge would drop, `rewrite`
edits the edge graph (e.g. view_copy -> _unsafe_view) and `rename` renames a
kernel in the finished file (upstream's executorch_prim names).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import os
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Optional, Sequence

import torch
import torch.fx
from torch._ops import OpOverload
from torch.utils import _pytree as pytree

import torchedge
import torchedge.edge.program as edge_program_module
from torchedge import runtime
from torchedge.aten.out_variants import kernel_name, out_variant

ALL_DTYPES = (
    torch.float32, torch.float64, torch.float16, torch.bfloat16,
    torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool,
)
FLOAT_DTYPES = ALL_DTYPES[:4]
INT_DTYPES = ALL_DTYPES[4:9]
REAL_DTYPES = ALL_DTYPES[:9]  # everything but bool


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def dtype_from_name(name: str) -> torch.dtype:
    return getattr(torch, name)


class Kind(enum.Enum):
    ELEMENTWISE = "elementwise"
    REDUCTION = "reduction"  # reductions, matmul, conv, normalization, pooling


def tolerance(dtype: torch.dtype, kind: Kind) -> tuple[float, float]:
    """(rtol, atol) of the table in this file's docstring."""
    if dtype in (torch.float32, torch.float64):
        return (1e-5, 1e-6) if kind is Kind.ELEMENTWISE else (1e-4, 1e-5)
    if dtype == torch.float16:
        return 1e-3, 1e-3
    if dtype == torch.bfloat16:
        return 1e-2, 1e-2
    return 0.0, 0.0


@dataclass(frozen=True)
class Sample:
    """One shape case of one dtype: `fn(*inputs)` (fn defaults to the OpSpec's).

    Inputs listed in `channels_last` are converted to channels-last inside
    the lowered graph (the runtime's Python inputs are contiguous), so the
    kernel sees a channels-last dim order.
    """

    case: str
    inputs: tuple[torch.Tensor, ...]
    fn: Optional[Callable[..., Any]] = None
    channels_last: tuple[int, ...] = ()


@dataclass(frozen=True)
class OpSpec:
    """How the harness reaches and checks one kernel (an OpInfo-lite entry)."""

    name: str                                          # kernel name, "aten::add.out"
    fn: Callable[..., Any]                             # builds the op from torch
    samples: Callable[[torch.dtype], list[Sample]]     # shape cases per dtype
    dtypes: tuple[torch.dtype, ...] = ALL_DTYPES       # dtypes worth trying
    kind: Kind = Kind.ELEMENTWISE
    keep: tuple[OpOverload, ...] = ()                  # ops kept out of decomposition
    rewrite: Optional[Callable[[torch.fx.GraphModule], None]] = None
    rename: Mapping[str, str] = field(default_factory=dict)  # emitted name -> kernel name
    keep_copies: bool = False   # keep same-layout clones (to_edge drops them otherwise)
    notes: str = ""


@dataclass
class Outcome:
    """The result of one (dtype, case): ok, or why not."""

    dtype: torch.dtype
    index: int           # the sample's position in spec.samples(dtype)
    case: str
    status: str          # "ok", "eager-rejects", "fails"
    detail: str = ""


@dataclass
class OpReport:
    name: str
    outcomes: list[Outcome]
    exports: int = 0     # programs lowered (1 when the batched program passes)

    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status == "fails"]

    def passing_dtypes(self) -> list[torch.dtype]:
        """Dtypes proven: the first ("regular") sample is ok and no sample fails.
        Samples eager itself rejects (a bound uint8 cannot hold, ...) are skipped."""
        by_dtype: dict[torch.dtype, list[Outcome]] = {}
        for o in sorted(self.outcomes, key=lambda o: o.index):
            by_dtype.setdefault(o.dtype, []).append(o)
        return [d for d, os in by_dtype.items()
                if os[0].index == 0 and os[0].status == "ok" and all(o.status != "fails" for o in os)]

    def describe(self) -> str:
        lines = [f"{self.name}:"]
        for o in self.outcomes:
            if o.status != "ok":
                lines.append(f"  {dtype_name(o.dtype)}/{o.case}: {o.status}: {o.detail}")
        return "\n".join(lines)


class HarnessError(Exception):
    """Samples (by index in the batch) that do not call the kernel under test."""

    def __init__(self, message: str, missing: Sequence[int]) -> None:
        super().__init__(message)
        self.missing = list(missing)


# -- building the batched module ----------------------------------------------


class _SampleModule(torch.nn.Module):
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


class _BatchModule(torch.nn.Module):
    """All samples side by side; returns every sample's outputs, flattened."""

    def __init__(self, spec: OpSpec, samples: Sequence[Sample]) -> None:
        super().__init__()
        self.samples = torch.nn.ModuleList(
            _SampleModule(s.fn or spec.fn, s.channels_last) for s in samples
        )
        self.arity = [len(s.inputs) for s in samples]

    def forward(self, *flat: torch.Tensor) -> tuple:
        outputs, start = [], 0
        for module, n in zip(self.samples, self.arity):
            outputs.extend(pytree.tree_leaves(module(*flat[start:start + n])))
            start += n
        return tuple(outputs)


def _flat_inputs(samples: Sequence[Sample]) -> tuple[torch.Tensor, ...]:
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
    module = _BatchModule(spec, samples).eval()
    with _lowering_for(spec):
        ep = torch.export.export(module, _flat_inputs(samples))
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


# -- comparing ------------------------------------------------------------------


def compare(expected: torch.Tensor, actual: Any, kind: Kind) -> Optional[str]:
    """None when `actual` matches `expected` within the tolerance table, else why not."""
    if not isinstance(actual, torch.Tensor):
        return f"expected a tensor, got {type(actual).__name__}"
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype}, expected {expected.dtype}"
    if actual.shape != expected.shape:
        return f"shape {tuple(actual.shape)}, expected {tuple(expected.shape)}"
    rtol, atol = tolerance(expected.dtype, kind)
    try:
        torch.testing.assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError as error:
        return " ".join(str(error).split())[:400]
    return None


# -- running ----------------------------------------------------------------------


def _eager(spec: OpSpec, sample: Sample) -> Optional[str]:
    """None when eager PyTorch accepts the sample, else its error."""
    try:
        with torch.no_grad():
            _SampleModule(sample.fn or spec.fn, sample.channels_last)(*sample.inputs)
    except Exception as error:  # eager's own dtype/shape checks
        return f"{type(error).__name__}: {str(error).splitlines()[0][:200]}"
    return None


Batch = list[tuple[torch.dtype, int, Sample]]  # (dtype, index in spec.samples(dtype), sample)


def _run_batch(spec: OpSpec, batch: Batch, report: OpReport) -> Optional[str]:
    """Runs `batch` as one program. Records outcomes and returns None, or
    returns the program-level error (lowering or runtime) without recording."""
    samples = [s for _, _, s in batch]
    try:
        report.exports += 1
        module, buffer = lower_samples(spec, samples, [d for d, _, _ in batch])
        program = runtime.load(buffer)
        actual = pytree.tree_leaves(program.forward(*_flat_inputs(samples)))
    except HarnessError as error:  # a spec bug: fail those samples, run the others
        for i in error.missing:
            dtype, index, sample = batch[i]
            report.outcomes.append(Outcome(dtype, index, sample.case, "fails",
                                           f"the sample does not call {spec.name} with "
                                           f"{dtype_name(dtype)} tensors; {error}"))
        rest = [b for i, b in enumerate(batch) if i not in error.missing]
        if rest:
            _run_isolating(spec, rest, report)
        return None
    except Exception as error:  # lowering or runtime failure of the whole program
        return f"{type(error).__name__}: {' '.join(str(error).split())[:600]}"
    with torch.no_grad():
        expected = [pytree.tree_leaves(sub(*s.inputs)) for sub, s in zip(module.samples, samples)]
    if len(actual) != sum(map(len, expected)):
        return f"{len(actual)} outputs, expected {sum(map(len, expected))}"
    index = 0
    for (dtype, index_in_dtype, sample), outputs in zip(batch, expected):
        problems = []
        for k, reference in enumerate(outputs):
            problem = compare(reference, actual[index + k], spec.kind)
            if problem:
                problems.append(f"output {k}: {problem}")
        index += len(outputs)
        report.outcomes.append(Outcome(dtype, index_in_dtype, sample.case,
                                       "fails" if problems else "ok", "; ".join(problems)))
    return None


def _run_isolating(spec: OpSpec, batch: Batch, report: OpReport) -> None:
    """Runs `batch`; on a program-level failure, splits it by dtype, then by sample."""
    error = _run_batch(spec, batch, report)
    if error is None:
        return
    dtypes = list(dict.fromkeys(d for d, _, _ in batch))
    if len(dtypes) > 1:
        for dtype in dtypes:
            _run_isolating(spec, [b for b in batch if b[0] == dtype], report)
    elif len(batch) > 1:
        for item in batch:
            _run_isolating(spec, [item], report)
    else:
        dtype, index, sample = batch[0]
        report.outcomes.append(Outcome(dtype, index, sample.case, "fails", error))


def make_samples(spec: OpSpec, dtype: torch.dtype) -> list[Sample]:
    """spec.samples(dtype) under a seed fixed by (operator, dtype)."""
    torch.manual_seed(zlib.crc32(f"{spec.name}/{dtype}".encode()))
    return spec.samples(dtype)


# Dtypes that run every sample; the others run a rotating third (see select).
FULL_CASE_DTYPES = (torch.float32, torch.int64)
EDGE_CASES = ("special", "extremes")


def selected(samples: Sequence[Sample], dtype: torch.dtype, exhaustive: bool) -> list[int]:
    """Indices of the samples to run for `dtype`.

    Exhaustive: all. Otherwise float32 and int64 run all; every other dtype
    runs the regular sample (index 0), its edge values ("special",
    "extremes") and every third of the remaining shape cases, rotated by the
    dtype's position, so each case still runs in about a third of those
    dtypes and the table runs in a few minutes (TORCHEDGE_OPS_EXHAUSTIVE=1
    runs everything).
    """
    if exhaustive or dtype in FULL_CASE_DTYPES or len(samples) <= 3:
        return list(range(len(samples)))
    shift = ALL_DTYPES.index(dtype) if dtype in ALL_DTYPES else 0
    return [i for i, sample in enumerate(samples)
            if i == 0 or sample.case in EDGE_CASES or (i + shift) % 3 == 0]


def exhaustive_by_default() -> bool:
    return os.environ.get("TORCHEDGE_OPS_EXHAUSTIVE", "") not in ("", "0")


def run_op(spec: OpSpec, dtypes: Optional[Sequence[torch.dtype]] = None,
           exhaustive: Optional[bool] = None) -> OpReport:
    """Runs the samples of `dtypes` (default: spec.dtypes) and reports each;
    all of them when `exhaustive`, else the selection of `selected`."""
    if exhaustive is None:
        exhaustive = exhaustive_by_default()
    report = OpReport(spec.name, [])
    batch: Batch = []
    for dtype in dtypes if dtypes is not None else spec.dtypes:
        regular_rejected = None
        samples = make_samples(spec, dtype)
        for index in selected(samples, dtype, exhaustive):
            sample = samples[index]
            # When eager rejects the first ("regular") sample the op does not
            # take this dtype; eager may still accept an empty case without
            # dispatching on the dtype, which proves nothing either.
            rejected = regular_rejected or _eager(spec, sample)
            if rejected and index == 0:
                regular_rejected = rejected
            if rejected:
                report.outcomes.append(Outcome(dtype, index, sample.case, "eager-rejects", rejected))
            else:
                batch.append((dtype, index, sample))
    if batch:
        _run_isolating(spec, batch, report)
    return report


def replace_calls(
    source: OpOverload,
    target: OpOverload,
    arguments: Callable[[tuple, dict], tuple[tuple, dict]] = lambda a, k: (a, k),
) -> Callable[[torch.fx.GraphModule], None]:
    """A `rewrite` that calls `target` where the edge graph calls `source`
    (same results; `arguments` maps source's (args, kwargs) to target's)."""

    def rewrite(gm: torch.fx.GraphModule) -> None:
        for node in gm.graph.nodes:
            if node.op == "call_function" and node.target == source:
                node.target = target
                node.args, node.kwargs = arguments(tuple(node.args), dict(node.kwargs))

    return rewrite


def with_dtypes(spec: OpSpec, **changes: Any) -> OpSpec:
    return dataclasses.replace(spec, **changes)
