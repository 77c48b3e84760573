"""Runs OpInfo samples through torch.export -> to_edge -> to_pte -> the
runtime (and the XNNPACK partitioner) and compares with eager.

Outcomes (`Result.category`):
  pass                     the runtime's outputs match eager
  not counted (no fault of torchedge's; listed so that a change is noticed):
    export-rejected        torch.export itself rejects the sample
    random-output          random or uninitialized output (samples.RANDOM_OR_UNINITIALIZED)
    no-plain-sample        no sample of plain tensors and scalars in this dtype
                           (or eager rejects its own sample)
  failures: to_edge's ExportError reasons (no-decomposition, complex-dtype,
  data-dependent, input-mutation, effect-token, unsupported-dtype,
  no-out-variant, missing-kernel, export-error), to_edge-crash (any other
  exception in to_edge), to_backend-error, to_pte-error, load-error,
  kernel-dtype, run-error, wrong-result.

Tolerances: float32 outputs within 1e-4 of the output's largest finite
magnitude, float16 within 1e-3 and bfloat16 within 1e-2 of it (complex
outputs: their real and imaginary parts as the parts' dtype); integer and
bool outputs exact; NaN and infinities where eager has them; shapes and
dtypes equal.

Programs that are expected to pass are lowered in batches (one exported
module calling several ops on separate inputs, outputs compared per op);
a batch that fails anywhere before the comparison is split in halves until
the failing op runs alone, so every failure is reported from a program of
its own op.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

import torch
from torch.utils import _pytree as pytree

import torchedge
import torchedge.runtime
from torchedge.aten.out_variants import kernel_name, out_variant
from torchedge.errors import ExportError

from opinfo.samples import Case, first_plain_sample, is_random, make_case, op_key

NOT_COUNTED = frozenset({"export-rejected", "random-output", "no-plain-sample"})
XNNPACK = "float32+xnnpack"

# ExportError message fragments -> category, first match wins.
_EXPORT_ERROR_CATEGORIES = (
    ("not a core ATen operator", "no-decomposition"),
    ("no kernel registered", "missing-kernel"),
    ("complex dtype", "complex-dtype"),  # not bare "complex": a source path may hold it
    ("data-dependent", "data-dependent"),
    ("mutates its input", "input-mutation"),
    ("TOKEN", "effect-token"),
    ("dtype", "unsupported-dtype"),
    ("has no out variant", "no-out-variant"),
)
_RELATIVE_TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-4, torch.float16: 1e-3,
                       torch.bfloat16: 1e-2}


@dataclass(frozen=True)
class Result:
    op: str
    dtype: str  # "float32", ..., or XNNPACK
    category: str
    message: str = ""

    @property
    def counted(self) -> bool:
        return self.category not in NOT_COUNTED

    @property
    def passed(self) -> bool:
        return self.category == "pass"


def dtype_label(dtype: torch.dtype) -> str:
    return str(dtype).replace("torch.", "")


def first_line(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}"
    if isinstance(error, ExportError) and error.problems:
        text = str(error.problems[0]).split("\n")[0]
    return re.sub(r"\s+", " ", text).strip()[:160]


def _export_error_category(error: ExportError) -> str:
    text = str(error.problems[0]) if error.problems else str(error)
    for fragment, category in _EXPORT_ERROR_CATEGORIES:
        if fragment in text:
            return category
    return "export-error"


def compare(expected: Any, actual: Any, inputs: Sequence[torch.Tensor] = ()) -> Optional[str]:
    """None when `actual` matches `expected` (see the module's tolerances), else why not.

    Index outputs on ties: eager leaves the order of equal values unspecified
    (sort / argsort / topk / kthvalue), so an int64 index output that differs
    from eager's still matches when it is a valid answer, checked exactly
    against the op's first input x along some dimension d:
      - (values, indices) results (torch.return_types): the values equal
        eager's (to the tolerance), the indices are distinct and in range
        along d, and x gathered at them equals the returned values exactly
        (NaN where NaN);
      - a bare index tensor shaped like x (argsort): it is a permutation of
        0..n-1 along d, and x gathered at it equals x gathered at eager's
        indices exactly.
    Any other difference in an index output is a mismatch. Eigenvectors and
    singular vectors match up to the sign of each vector (_same_up_to_sign)."""
    exp_leaves = pytree.tree_leaves(expected)
    act_leaves = pytree.tree_leaves(list(actual) if isinstance(actual, (tuple, list)) else [actual])
    if len(exp_leaves) != len(act_leaves):
        return f"{len(act_leaves)} outputs, eager has {len(exp_leaves)}"
    for i, (e, a) in enumerate(zip(exp_leaves, act_leaves)):
        e = e if isinstance(e, torch.Tensor) else torch.tensor(e)
        a = a if isinstance(a, torch.Tensor) else torch.tensor(a)
        if e.shape != a.shape:
            return f"output {i}: shape {list(a.shape)}, eager {list(e.shape)}"
        if e.dtype != a.dtype:
            return f"output {i}: dtype {a.dtype}, eager {e.dtype}"
        why = _compare_values(e, a)
        if why and not (_valid_indices_of_values(expected, i, exp_leaves, act_leaves, inputs)
                        or _valid_argsort(e, a, inputs)
                        or _same_up_to_sign(expected, i, exp_leaves, act_leaves)):
            return f"output {i}: {why}"
    return None


# torch.return_types whose vectors are unique only up to sign: the field
# whose signs decide, and each vector field with the dim that runs along a
# vector (-2: vectors are columns, -1: rows).
_SIGN_FREE = {
    "linalg_eigh": ("eigenvectors", {"eigenvectors": -2}),
    "linalg_svd": ("U", {"U": -2, "Vh": -1}),
    "svd": ("U", {"U": -2, "V": -2}),
}


def _same_up_to_sign(expected: Any, failed: int, exp_leaves: list, act_leaves: list) -> bool:
    """Eigenvectors (linalg.eigh) and singular vectors (svd) are unique only
    up to sign: each of eager's vectors is matched to ours times the sign of
    their dot product (U's signs carry over to V's, so the product U S Vh
    is the same), then compared to the tolerance."""
    spec = _SIGN_FREE.get(type(expected).__name__)
    fields = tuple(getattr(type(expected), "__match_args__", ()))
    if spec is None or len(fields) != len(act_leaves):
        return False
    decider, vector_dims = spec
    name = fields[failed]
    if name not in vector_dims:
        return False
    e_ref, a_ref = exp_leaves[fields.index(decider)], act_leaves[fields.index(decider)]
    if e_ref.numel() == 0:
        return False
    signs = torch.sign((e_ref.double() * a_ref.double()).sum(dim=vector_dims[decider], keepdim=True))
    for field, dim in vector_dims.items():  # every vector field under the same signs
        e, a = exp_leaves[fields.index(field)], act_leaves[fields.index(field)]
        field_signs = signs if dim == vector_dims[decider] else signs.transpose(-2, -1)
        try:
            flipped = a.double() * field_signs
        except RuntimeError:  # as many vectors in U as in V only without full_matrices
            return False
        if flipped.shape != a.shape or _compare_values(e, flipped.to(a.dtype)) is not None:
            return False
    return True


def _same_exactly(x: torch.Tensor, y: torch.Tensor) -> bool:
    """Equal element for element, NaN equal to NaN."""
    if x.shape != y.shape:
        return False
    same = x == y
    if x.is_floating_point():
        same = same | (torch.isnan(x) & torch.isnan(y))
    return bool(same.all())


def _distinct_in_range(indices: torch.Tensor, dim: int, size: int) -> bool:
    if not bool(((indices >= 0) & (indices < size)).all()):
        return False
    if indices.shape[dim] < 2:
        return True
    ordered = torch.sort(indices, dim=dim).values
    return bool((ordered.diff(dim=dim) != 0).all())


def _valid_indices_of_values(expected: Any, failed: int, exp_leaves: list, act_leaves: list,
                             inputs: Sequence[torch.Tensor]) -> bool:
    """A (values, indices) result whose indices differ from eager's only in
    which of equal values they pick (see compare)."""
    fields = tuple(getattr(type(expected), "__match_args__", ()))  # torch.return_types
    if "indices" not in fields or fields.index("indices") != failed or "values" not in fields:
        return False
    values, indices = act_leaves[fields.index("values")], act_leaves[failed]
    if not inputs or indices.dtype != torch.int64 or _compare_values(exp_leaves[fields.index("values")], values):
        return False
    x = inputs[0]
    for dim in range(x.dim()):
        idx, vals = indices, values
        if idx.dim() == x.dim() - 1:  # keepdim=False
            idx, vals = idx.unsqueeze(dim), vals.unsqueeze(dim)
        if idx.dim() != x.dim() or any(idx.shape[d] != x.shape[d] for d in range(x.dim()) if d != dim):
            continue
        if _distinct_in_range(idx, dim, x.shape[dim]) and _same_exactly(torch.gather(x, dim, idx), vals):
            return True
    return False


def _valid_argsort(e: torch.Tensor, a: torch.Tensor, inputs: Sequence[torch.Tensor]) -> bool:
    """An index tensor shaped like the first input (argsort) that orders it
    as eager's does, up to the order of equal values (see compare)."""
    if e.dtype != torch.int64 or not inputs or inputs[0].shape != e.shape or e.dim() == 0:
        return False
    x = inputs[0]
    for dim in range(x.dim()):
        if (_distinct_in_range(a, dim, x.shape[dim]) and bool(((e >= 0) & (e < x.shape[dim])).all())
                and _same_exactly(torch.gather(x, dim, e), torch.gather(x, dim, a))):
            return True
    return False


def _compare_values(e: torch.Tensor, a: torch.Tensor) -> Optional[str]:
    if e.numel() == 0:
        return None
    if e.is_complex():  # real and imaginary parts, each as its floating dtype
        e, a = torch.view_as_real(e.resolve_conj()), torch.view_as_real(a.resolve_conj())
    if not e.is_floating_point():
        return None if torch.equal(e, a) else f"{int((e != a).sum())} of {e.numel()} elements differ"
    e64, a64 = e.double(), a.double()
    nan = torch.isnan(e64)
    if not torch.equal(nan, torch.isnan(a64)):
        return "NaN positions differ"
    infinite = torch.isinf(e64)
    if not torch.equal(e64[infinite], a64[infinite]) or bool(torch.isinf(a64[~infinite & ~nan]).any()):
        return "infinities differ"
    finite = ~infinite & ~nan
    if not finite.any():
        return None
    scale = float(e64[finite].abs().max())
    tolerance = _RELATIVE_TOLERANCE[e.dtype] * scale
    error = float((e64[finite] - a64[finite]).abs().max())
    if error <= tolerance:
        return None
    return f"max error {error:.3g} > {tolerance:.3g} (max |eager| {scale:.3g})"


@dataclass
class Prepared:
    """One op's sample in one dtype with its eager value."""

    key: str
    op: Any
    dtype: torch.dtype
    case: Case
    expected: Any


def prepare(op: Any, dtype: torch.dtype) -> Prepared | Result:
    """The sample to lower, or the not-counted Result when there is none."""
    key, label = op_key(op), dtype_label(dtype)
    if is_random(op):
        return Result(key, label, "random-output")
    sample = first_plain_sample(op, dtype)
    if sample is None:
        return Result(key, label, "no-plain-sample")
    case = make_case(op, sample)
    try:
        expected = case.module(*case.fresh_inputs())
    except Exception as e:  # eager rejects its own sample: nothing to compare
        return Result(key, label, "no-plain-sample", f"eager: {first_line(e)}")
    return Prepared(key, op, dtype, case, expected)


class _Combined(torch.nn.Module):
    """Several ops' modules on separate inputs; one flat tuple of outputs."""

    def __init__(self, cases: Sequence[Case]) -> None:
        super().__init__()
        self.ops = torch.nn.ModuleList(c.module for c in cases)
        self._counts = [len(c.inputs) for c in cases]

    def forward(self, *tensors: torch.Tensor) -> tuple[Any, ...]:
        outputs: list[Any] = []
        start = 0
        for module, count in zip(self.ops, self._counts):
            outputs.extend(pytree.tree_leaves(module(*tensors[start:start + count])))
            start += count
        return tuple(outputs)


class _Failed(Exception):
    """A lowering or runtime failure: (category, message)."""

    def __init__(self, category: str, message: str) -> None:
        super().__init__(message)
        self.category, self.message = category, message


def _runtime_category(error: "torchedge.runtime.TorchEdgeRuntimeError", stage: str) -> str:
    if error.code_name == "OperatorMissing":
        return "missing-kernel"
    if "no kernel for dtype" in error.message:
        return "kernel-dtype"
    return stage


def _stage(category: str, call: Callable[[], Any]) -> Any:
    try:
        return call()
    except _Failed:
        raise
    except ExportError as e:
        raise _Failed(_export_error_category(e) if category == "to_edge-crash" else category,
                      first_line(e)) from None
    except torchedge.runtime.TorchEdgeRuntimeError as e:
        raise _Failed(_runtime_category(e, category), first_line(e)) from None
    except Exception as e:
        raise _Failed(category, first_line(e)) from None


def _run(edge: Any, inputs: Sequence[torch.Tensor]) -> Any:
    pte = _stage("to_pte-error", edge.to_pte)
    program = _stage("load-error", lambda: torchedge.runtime.load(pte.buffer))
    return _stage("run-error", lambda: program.forward(*[t.clone() for t in inputs]))


def _node_owner(node: torch.fx.Node, batched: bool) -> Optional[int]:
    """Which op of a batch (the index in _Combined.ops) a node belongs to."""
    if not batched:
        return 0
    for path, _ in (node.meta.get("nn_module_stack") or {}).values():
        match = re.search(r"ops[.\[](\d+)", path)
        if match:
            return int(match.group(1))
    return None


def _kernels_by_op(ep: Any, count: int, batched: bool) -> list[set[str]]:
    kernels: list[set[str]] = [set() for _ in range(count)]
    for node in ep.graph.nodes:
        if node.op != "call_function" or not isinstance(node.target, torch._ops.OpOverload):
            continue
        owner = _node_owner(node, batched)
        variant = out_variant(node.target)
        if owner is not None and variant is not None:
            kernels[owner].add("{}.{}".format(*kernel_name(variant)))
    return kernels


@dataclass
class Lowered:
    """Results of one program (a batch or one op), per op in batch order."""

    results: list[Result]
    kernels: list[set[str]] = field(default_factory=list)


def _lower(preps: Sequence[Prepared], xnnpack: bool) -> Lowered:
    """Lowers and runs `preps` as one program; raises _Failed before any
    comparison, returns the per-op Results after it."""
    batched = len(preps) > 1
    module = _Combined([p.case for p in preps]) if batched else preps[0].case.module
    inputs = [t for p in preps for t in p.case.inputs]
    label = dtype_label(preps[0].dtype)
    try:
        ep = torch.export.export(module, tuple(t.clone() for t in inputs), strict=False)
    except Exception as e:
        raise _Failed("export-rejected", first_line(e)) from None
    edge = _stage("to_edge-crash", lambda: torchedge.to_edge(ep))
    outputs = _run(edge, inputs)
    kernels = _kernels_by_op(edge.exported_program(), len(preps), batched)
    results = _split_and_compare(preps, outputs, batched, label)
    if xnnpack:
        try:
            results += _xnnpack_results(preps, edge, inputs, batched)
        except _Failed as failure:
            if batched:
                raise
            results.append(Result(preps[0].key, XNNPACK, failure.category, failure.message))
    return Lowered(results, kernels)


def _split_and_compare(preps: Sequence[Prepared], outputs: Any, batched: bool,
                       label: str) -> list[Result]:
    if not batched:
        why = compare(preps[0].expected, outputs, preps[0].case.inputs)
        return [Result(preps[0].key, label, "wrong-result", why) if why else
                Result(preps[0].key, label, "pass")]
    flat = list(outputs) if isinstance(outputs, (tuple, list)) else [outputs]
    results, start = [], 0
    for p in preps:
        count = len(pytree.tree_leaves(p.expected))
        why = compare(p.expected, tuple(flat[start:start + count]), p.case.inputs)
        start += count
        results.append(Result(p.key, label, "wrong-result", why) if why else Result(p.key, label, "pass"))
    return results


def _xnnpack_results(preps: Sequence[Prepared], edge: Any, inputs: Sequence[torch.Tensor],
                     batched: bool) -> list[Result]:
    """The program through the XNNPACK partitioner, light groups included
    (elementwise ops alone), so that every op XNNPACK takes is checked: a
    Result for each op that has a delegated node (the others run what was
    already checked)."""
    from torchedge.backends.xnnpack import XnnpackPartitioner

    delegated = _stage("to_backend-error", lambda: edge.to_backend(XnnpackPartitioner(delegate_light_groups=True)))
    names = {d.node for d in delegated.delegation_report.delegated("forward")}
    owners = {_node_owner(n, batched) for n in edge.exported_program().graph.nodes if n.name in names}
    if not owners - {None}:
        return []
    outputs = _run(delegated, inputs)
    results = _split_and_compare(preps, outputs, batched, XNNPACK)
    return [r for i, r in enumerate(results) if i in owners]


def run_programs(preps: Sequence[Prepared], xnnpack: bool) -> Lowered:
    """Every op's Results (and kernels, on a pass) for `preps`, all in one
    dtype: lowered together, or in halves (down to single ops) when the
    program fails."""
    if not preps:
        return Lowered([])
    try:
        return _lower(preps, xnnpack)
    except _Failed as failure:
        if len(preps) == 1:
            p = preps[0]
            return Lowered([Result(p.key, dtype_label(p.dtype), failure.category, failure.message)],
                           [set()])
    half = len(preps) // 2
    left, right = run_programs(preps[:half], xnnpack), run_programs(preps[half:], xnnpack)
    return Lowered(left.results + right.results, left.kernels + right.kernels)


def batches(items: Sequence[Any], size: int) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start:start + size]
