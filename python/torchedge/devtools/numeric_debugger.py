"""The numeric debugger: every runtime intermediate against its eager value.

    result = compare_intermediates(model, "model.pte", (x,), etrecord="model.etrecord")
    print(result)                          # one row per instruction
    result.first_divergence                # the first row below threshold_db, or None
    result.to_dataframe()                  # pandas, when installed

The program runs once in the C++ runtime with intermediate capture
(`torchedge.runtime.load(..., etdump=True, debug_buffer_size=N)`): every
instruction's output is copied into the ETDump. The ETRecord maps each
instruction (its debug handle) to the FX node it was emitted from. The
reference graph runs on the same inputs in torch.fx.Interpreter, which
records every node's eager value (graph_values.py); each captured output is
compared with its node's value:

- the reference is the edge program given to to_pte (saved in the ETRecord,
  or `reference=`: the EdgeProgram / ExportedProgram you lowered). For a
  PT2E-quantized program that is the quantized reference convert produced
  (quantize / dequantize and torchedge int8 ops, run in eager PyTorch), so
  errors against it are the runtime's own, not quantization's;
- `model`, when it is an nn.Module and the reference is quantized, is also
  exported and run as the float reference; each instruction's node is
  traced to the exported model's node it came from (the ETRecord's
  `provenance`, torch.fx's from_node chain through to_edge, PT2E convert
  and fusions) and `float_sqnr_db` says how much signal quantization and
  the runtime together lost there. A convolution whose batch norm was
  folded into it is compared with the batch norm's output. Without a saved
  edge program (delegated programs cannot be saved) and without
  `reference=`, the float model is the reference.

Integer outputs with known quantization parameters are compared
dequantized. Layouts to_pte changed (blocked NCHW16c activations) are
undone before comparing (tensor_alignment.py); what cannot be matched
honestly is not compared and its row says why (`skipped`). A delegate call
is compared at its granularity: the captured value is the call's last
argument (its last output), compared with the delegated subgraph's last
output in the reference.

Errors propagate: an int8 value one rounding step off changes every layer
after it. So each row also has a *local* error: the reference node's op
applied to the runtime's own values of its inputs (the captured outputs of
earlier instructions, layouts undone; a fused chain is recomputed from its
nearest captured inputs), against the runtime's output. A wrong kernel
shows a low local SQNR at its own instruction only; the instructions after
it compute correctly from wrong inputs.

Guarantees: a row's errors compare the same elements in the same order;
`first_divergence` is the lowest debug handle whose local SQNR (its SQNR
against the reference when no local figure exists) is below
`threshold_db`, or whose values are non-finite where the reference's are
not.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Any, Optional, Sequence, Union

import torch

from torchedge.devtools.error_metrics import ErrorMetrics, error_metrics
from torchedge.devtools.etdump import parse_etdump
from torchedge.devtools.etrecord import ETRecord, load_etrecord
from torchedge.devtools.graph_values import GraphValues, record_node_values
from torchedge.devtools.tensor_alignment import align, as_real

# Nodes to_pte adds that only move a value into or out of a layout (their
# eager counterpart is their input's value).
_LAYOUT_ONLY = ("to_blocked", "from_blocked", "constant_pad_nd", "slice_copy")
# ...and, for the float model, nodes that only change a value's representation.
_REPRESENTATION_ONLY = _LAYOUT_ONLY + ("quantize_per_tensor", "dequantize_per_tensor")
DEFAULT_THRESHOLD_DB = 35.0


@dataclass
class IntermediateRow:
    method: str
    debug_handle: int               # instruction index (ETDump instruction_id)
    kind: str                       # kernel, delegate, move, jump, free
    operator: str                   # aten::add.out, torchedge::conv2d_int8.out, a backend id
    module_path: Optional[str]
    source: Optional[str]           # "file:line" of the user's code
    node: str                       # the FX node the instruction was emitted from
    eager_node: Optional[str]       # the reference node its output was compared with
    shape: Optional[list[int]]      # the runtime tensor's shape (as captured)
    layout: str                     # "" or the transform undone ("NCHW16c", ...)
    max_abs_error: Optional[float]  # against the reference, dequantized units
    relative_error: Optional[float]
    sqnr_db: Optional[float]
    # Against the reference op applied to the runtime's own inputs (the
    # runtime's captured values of the node's inputs): this instruction's
    # error alone, without what earlier instructions passed on.
    local_max_abs_error: Optional[float]
    local_sqnr_db: Optional[float]
    float_sqnr_db: Optional[float]  # against the float model (quantized references only)
    # How much float SQNR this instruction lost: the lowest float_sqnr_db of
    # the instructions it reads minus its own (None when none of them has one)
    float_sqnr_drop_db: Optional[float]
    skipped: str                    # why the row was not compared ("" when compared)
    diverges: bool                  # local_sqnr_db (else sqnr_db) below the threshold

    def where(self) -> str:
        """Operator, module path and source line in one line."""
        parts = [self.operator, self.module_path or "", _short(self.source) if self.source else ""]
        return " ".join(p for p in parts if p)


class IntermediateComparison:
    """The rows of one compare_intermediates call, in instruction order."""

    def __init__(self, rows: list[IntermediateRow], threshold_db: float, reference: str,
                 has_float: bool) -> None:
        self.rows = rows
        self.threshold_db = threshold_db
        self.reference = reference      # what the rows were compared against
        self.has_float = has_float      # whether float_sqnr_db was computed

    @property
    def first_divergence(self) -> Optional[IntermediateRow]:
        """The first instruction whose output is further from the reference
        than the threshold allows (None when every compared one is within)."""
        return next((r for r in self.rows if r.diverges), None)

    @property
    def compared(self) -> list[IntermediateRow]:
        return [r for r in self.rows if not r.skipped]

    def worst(self, n: int = 10, by: str = "sqnr_db") -> list[IntermediateRow]:
        """The `n` worst compared rows: lowest `by` ("sqnr_db", "local_sqnr_db",
        "float_sqnr_db"), or highest "float_sqnr_drop_db"."""
        rows = [r for r in self.compared if getattr(r, by) is not None]
        sign = -1.0 if by.endswith("drop_db") else 1.0
        return sorted(rows, key=lambda r: sign * getattr(r, by))[:n]

    def to_dataframe(self):
        """The rows as a pandas DataFrame (ImportError without pandas)."""
        import pandas

        return pandas.DataFrame([asdict(r) for r in self.rows])

    def table(self, rows: Optional[Sequence[IntermediateRow]] = None) -> str:
        """A fixed-width text table of `rows` (default: all), then the verdict."""
        rows = self.rows if rows is None else rows
        header = (f"{'#':>4} {'operator':36} {'max abs err':>11} {'rel err':>9} {'SQNR dB':>8} "
                  f"{'local dB':>8}")
        if self.has_float:
            header += f" {'vs float':>8} {'lost':>6}"
        lines = [f"compared against {self.reference}; threshold {self.threshold_db:g} dB",
                 header + "  module / source / note"]
        for r in rows:
            line = f"{r.debug_handle:>4} {r.operator[:36]:36} "
            if r.skipped:
                line += f"{'-':>11} {'-':>9} {'-':>8} {'-':>8}" + (f" {'-':>8} {'-':>6}" if self.has_float else "")
            else:
                line += (f"{r.max_abs_error:>11.3g} {r.relative_error:>9.2g} {_db(r.sqnr_db):>8} "
                         f"{_db(r.local_sqnr_db):>8}")
                if self.has_float:
                    line += f" {_db(r.float_sqnr_db):>8} {_db(r.float_sqnr_drop_db):>6}"
            notes = [r.module_path or "", _short(r.source) if r.source else ""]
            if r.skipped:
                notes.append(f"[skipped: {r.skipped}]")
            elif r.layout:
                notes.append(f"[{r.layout}]")
            if r.diverges:
                notes.append("<-- DIVERGES")
            lines.append(line + "  " + " ".join(n for n in notes if n))
        first = self.first_divergence
        compared = len(self.compared)
        lines.append(f"{compared} of {len(self.rows)} instructions compared; " + (
            f"first divergence: instruction {first.debug_handle} {first.where()}"
            if first else f"none below {self.threshold_db:g} dB"))
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def __repr__(self) -> str:
        first = self.first_divergence
        return (f"IntermediateComparison({len(self.rows)} rows, first_divergence="
                f"{first.debug_handle if first else None})")


def _db(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return "inf" if value == math.inf else f"{value:.1f}"


def _short(source: str) -> str:
    path, _, line = source.rpartition(":")
    return f"{os.path.basename(path)}:{line}"


def _as_program(value: Any) -> Any:
    """An EdgeProgram's method program, or `value` itself."""
    programs = getattr(value, "_programs", None)
    if isinstance(programs, dict):
        return programs
    return value


def _reference_for(reference: Any, method: str) -> Any:
    programs = _as_program(reference)
    if isinstance(programs, dict):
        if method not in programs:
            raise KeyError(f"the reference has no method '{method}' (it has {sorted(programs)})")
        return programs[method]
    return programs


def _float_module_path(node: Optional[torch.fx.Node]) -> Optional[str]:
    stack = node.meta.get("nn_module_stack") if node is not None else None
    if not stack:
        return None
    path = list(stack.values())[-1][0]
    return path or None


def _captures(program: Any, method: str, inputs: Sequence[Any], budget: int
              ) -> tuple[dict[int, list[torch.Tensor]], Any]:
    """Runs `method` once with capture; instruction -> captured tensors, and the output."""
    import torchedge.runtime

    for _ in range(4):
        loaded = torchedge.runtime.load(program, etdump=True, debug_buffer_size=budget)
        output = loaded.run_method(method, list(inputs))
        dump = parse_etdump(loaded.etdump())
        if dump.dropped_debug_events == 0:
            runs = dump.runs_of(method)
            events = runs[0].debug_events if runs else []
            return {e.instruction_id: e.tensors for e in events}, output
        budget *= 4
    raise RuntimeError(f"intermediate capture still dropped outputs with a {budget // 4} byte "
                       "debug buffer; pass a larger debug_buffer_size")


def _nbytes(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size() + 64
    if isinstance(value, (tuple, list)):
        return sum(_nbytes(v) for v in value)
    return 0


def _program_source(program: Any) -> Any:
    buffer = getattr(program, "buffer", None)
    if isinstance(buffer, (bytes, bytearray)):
        return bytes(buffer)
    if isinstance(program, (bytes, bytearray, memoryview)):
        return bytes(program)
    return os.fspath(program)


def _tensors(value: Any) -> Optional[list[torch.Tensor]]:
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)) and all(isinstance(v, torch.Tensor) for v in value):
        return list(value)
    return None


class _Matcher:
    """Finds the reference and float values of one instruction record."""

    def __init__(self, records: list[dict[str, Any]], reference: Optional[GraphValues],
                 float_values: Optional[GraphValues]) -> None:
        self.reference = reference
        self.float_values = float_values
        self.by_node = {r["nodes"][0]: r for r in records if r.get("nodes")}
        # reference node name -> what the runtime computed for it (eager layout)
        self.runtime: dict[str, Any] = {}

    def remember(self, name: str, eager: Any, aligned: list[torch.Tensor]) -> None:
        if isinstance(eager, torch.Tensor) and len(aligned) == 1:
            self.runtime[name] = aligned[0]
        elif isinstance(eager, (tuple, list)) and len(aligned) == len(eager):
            self.runtime[name] = type(eager)(aligned)

    def local_value(self, name: str, eager: Any) -> Any:
        """The reference node `name` recomputed from the runtime's values of
        its inputs (None without a reference graph); a value an earlier
        instruction already produced (a layout change's input) is that
        instruction's output."""
        if self.reference is None or name not in self.reference.nodes:
            return None
        if name in self.runtime:
            return self.runtime[name]
        try:
            return self.reference.recompute(self.reference.nodes[name], self.runtime)
        except Exception:  # an op that will not run on these inputs: no local figure
            return None

    def reference_value(self, record: dict[str, Any], depth: int = 0
                        ) -> tuple[Optional[str], Any, str]:
        """(node name, value, why not) in the reference for `record`."""
        node = record["nodes"][0]
        if self.reference is not None:
            if node in self.reference:
                return node, self.reference[node], ""
            target = record.get("target") or ""
            inputs = record.get("inputs") or []
            if any(op in target for op in _LAYOUT_ONLY) and inputs and depth < 8:
                source = self.by_node.get(inputs[0], {"nodes": [inputs[0]]})
                return self.reference_value(source, depth + 1)
            found = self.reference.float_value(record.get("provenance") or [])
            if found is not None:
                return found[0], found[1], ""
            return None, None, f"no eager counterpart for node '{node}' ({target})"
        return self.float_value(record, depth)

    def float_value(self, record: dict[str, Any], depth: int = 0) -> tuple[Optional[str], Any, str]:
        if self.float_values is None:
            return None, None, "no reference"
        node = record["nodes"][0]
        target = record.get("target") or ""
        inputs = record.get("inputs") or []
        found = self.float_values.float_value([node] + list(record.get("provenance") or []))
        if found is None and any(op in target for op in _REPRESENTATION_ONLY) and inputs \
                and depth < 8:
            source = self.by_node.get(inputs[0], {"nodes": [inputs[0]]})
            return self.float_value(source, depth + 1)
        if found is None:
            return None, None, f"node '{node}' ({target}) does not trace back to a model node"
        return found[0], found[1], ""


def _pairs(runtime: list[torch.Tensor], eager: Any) -> tuple[list[tuple[torch.Tensor, torch.Tensor]], str]:
    eager_tensors = _tensors(eager)
    if eager_tensors is None:
        return [], f"the eager value is a {type(eager).__name__}, not tensors"
    if len(runtime) == len(eager_tensors):
        return list(zip(runtime, eager_tensors)), ""
    if len(runtime) == 1:  # a delegate call's last argument: its last output
        return [(runtime[0], eager_tensors[-1])], ""
    return [], f"{len(runtime)} runtime outputs vs {len(eager_tensors)} eager ones"


def _compare(runtime: list[torch.Tensor], eager: Any, qparams: Optional[tuple[float, int]]
             ) -> tuple[Optional[ErrorMetrics], str, str, list[torch.Tensor]]:
    """(worst metrics over the outputs, layout note, why not compared, the
    runtime tensors in the eager layout)."""
    pairs, why = _pairs(runtime, eager)
    if why:
        return None, "", why, []
    worst: Optional[ErrorMetrics] = None
    layouts, aligned_all = [], []
    for got, want in pairs:
        aligned, note = align(got, want)
        if aligned is None:
            return None, "", note, []
        if note:
            layouts.append(note)
        aligned_all.append(aligned)
        metrics = error_metrics(as_real(want, qparams), as_real(aligned, qparams))
        if worst is None or metrics.sqnr_db < worst.sqnr_db:
            worst = metrics
    return worst, ",".join(sorted(set(layouts))), "", aligned_all


def _is_quantized(values: GraphValues) -> bool:
    return any(isinstance(v, torch.Tensor) and v.dtype in (torch.int8, torch.uint8)
               for v in values.values.values())


def compare_intermediates(model: Any, program: Any, inputs: Sequence[Any], *,
                          etrecord: Union[str, os.PathLike, ETRecord],
                          reference: Any = None, method: str = "forward",
                          threshold_db: float = DEFAULT_THRESHOLD_DB,
                          debug_buffer_size: Optional[int] = None) -> IntermediateComparison:
    """Runs `program` (a PteProgram, .pte bytes or a path) once in the
    runtime with intermediate capture and compares every instruction's output
    with its eager value (see the module docstring).

    `model`: the float nn.Module (or None; an ExportedProgram / EdgeProgram
    here is used as the reference). `etrecord`: the ETRecord to_pte wrote for
    this program. `reference`: the program to take eager values from when
    the ETRecord holds no edge program, or to override it (the PT2E-converted
    ExportedProgram, the EdgeProgram you lowered). `threshold_db`: rows whose
    SQNR against the reference is below it diverge. `debug_buffer_size`:
    bytes for the captured outputs (default: from the reference's values,
    grown when the runtime reports drops).
    """
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    record = etrecord if isinstance(etrecord, ETRecord) else load_etrecord(etrecord)
    if method not in record.methods:
        raise KeyError(f"the ETRecord has no method '{method}' (it has {sorted(record.methods)})")
    records = record.methods[method]
    float_model = model if isinstance(model, torch.nn.Module) else None
    if reference is None and model is not None and float_model is None:
        reference = model
    reference_values: Optional[GraphValues] = None
    description = ""
    if reference is not None:
        reference_values = record_node_values(_reference_for(reference, method), inputs)
        description = "the given reference program"
    elif record.path is not None and record.has_edge_program(method):
        reference_values = record_node_values(record.edge_program(method), inputs)
        description = "the ETRecord's edge program"
    float_values: Optional[GraphValues] = None
    if float_model is not None and (reference_values is None or _is_quantized(reference_values)):
        exported = torch.export.export(float_model.eval(), inputs)
        float_values = record_node_values(exported, inputs)
        description = description or "the float model (no edge program in the ETRecord)"
    if reference_values is None and float_values is None:
        raise ValueError("nothing to compare with: the ETRecord holds no edge program "
                         f"for '{method}'; pass the float model or reference=")
    budget = debug_buffer_size or 2 * _nbytes(list((reference_values or float_values).values.values())) \
        + (1 << 20)
    captures, _ = _captures(_program_source(program), method, inputs, budget)
    matcher = _Matcher(records, reference_values, float_values)
    rows = [_row(method, r, captures.get(r["debug_handle"]), matcher, threshold_db)
            for r in records]
    _float_sqnr_drops(rows, records)
    has_float = reference_values is not None and float_values is not None
    return IntermediateComparison(rows, threshold_db, description, has_float)


def _float_sqnr_drops(rows: list[IntermediateRow], records: list[dict[str, Any]]) -> None:
    by_node = {r.node: r for r in rows if r.float_sqnr_db is not None}
    for row, record in zip(rows, records):
        if row.float_sqnr_db is None:
            continue
        inputs = [by_node[n].float_sqnr_db for n in record.get("inputs") or [] if n in by_node]
        if inputs and math.isfinite(min(inputs)):
            row.float_sqnr_drop_db = min(inputs) - row.float_sqnr_db


def _row(method: str, record: dict[str, Any], captured: Optional[list[torch.Tensor]],
         matcher: _Matcher, threshold_db: float) -> IntermediateRow:
    source = record.get("source")
    row = IntermediateRow(
        method, record["debug_handle"], record["kind"], record.get("operator") or record["kind"],
        record.get("module_path"), f"{source['file']}:{source['line']}" if source else None,
        (record.get("nodes") or [""])[0], None, None, "", None, None, None, None, None, None, None,
        "", False)
    if not record.get("nodes"):
        row.skipped = "no FX node (made by the emitter)"
        return row
    float_node = None
    if matcher.float_values is not None:
        name, _, _ = matcher.float_value(record)
        float_node = matcher.float_values.nodes.get(name) if name else None
    row.module_path = row.module_path or _float_module_path(float_node)
    if not captured:
        row.skipped = "no output captured" if record["kind"] in ("kernel", "delegate") else \
            f"{record['kind']} instruction: no output"
        return row
    row.shape = list(captured[0].shape)
    name, eager, why = matcher.reference_value(record)
    if eager is None:
        row.skipped = why
        return row
    row.eager_node = name
    qparams = None
    if matcher.reference is not None and name in matcher.reference.nodes:
        qparams = matcher.reference.quantization(matcher.reference.nodes[name])
    metrics, row.layout, why, aligned = _compare(captured, eager, qparams)
    if metrics is None:
        row.skipped = why
        return row
    row.max_abs_error, row.relative_error, row.sqnr_db = \
        metrics.max_abs_error, metrics.relative_error, metrics.sqnr_db
    local = matcher.local_value(name, eager)
    if local is not None:
        local_metrics, _, _, _ = _compare(aligned, local, qparams)
        if local_metrics is not None:
            row.local_max_abs_error = local_metrics.max_abs_error
            row.local_sqnr_db = local_metrics.sqnr_db
    matcher.remember(name, eager, aligned)
    judged = row.local_sqnr_db if row.local_sqnr_db is not None else row.sqnr_db
    row.diverges = judged < threshold_db
    if matcher.reference is not None and matcher.float_values is not None:
        _, float_eager, _ = matcher.float_value(record)
        if float_eager is not None:
            float_metrics, _, _, _ = _compare(captured, float_eager, qparams)
            if float_metrics is not None:
                row.float_sqnr_db = float_metrics.sqnr_db
    return row


__all__ = ["DEFAULT_THRESHOLD_DB", "IntermediateComparison", "IntermediateRow",
           "compare_intermediates"]
