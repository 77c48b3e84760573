"""ETRecord: what to_pte knew about each instruction, saved to explain a run later.

`edge.to_pte(etrecord="model.etrecord")` writes a zip file:

    etrecord.json            {"format": "torchedge-etrecord", "version": 2,
                              "methods": {name: {"instructions": [record, ...],
                                                 "delegates": [delegate, ...]}}}
    edge/<method>.pt2        torch.export.save of the edge program given to to_pte
                             (edge/<method>.txt, its graph as text, when saving fails)
    runtime/<method>.txt     the graph the instructions were emitted from (after
                             to_pte's own rewrites: fusion, prepacking, layouts)

Each instruction record: `debug_handle` (the instruction index in its method,
what ETDump events carry as instruction_id), `kind` ("kernel", "delegate",
"move", "jump", "free"), `operator` (kernels: "aten::add.out"; delegates: the
backend id), `nodes` (FX node names), `target` (the node's operator),
`inputs` (the FX nodes it reads), `provenance` (the nodes it was made
from, through decompositions, quantization and fusions, back to the
exported model's: what compare_intermediates matches a float model by),
`module_path` ("encoder.layer.3.attention") and `module_stack` (outermost
first, [path, type] pairs), `source` (the user's file, line, function, code)
and, for delegates, `delegated_nodes`: the same facts for every operator the
delegate runs.

Each delegate section (version 2; version-1 files have none and still
load): `instruction` (the DelegateCall's debug handle), `backend` (its id)
and `debug_handles`, one entry per delegate debug handle the backend's
preprocess assigned (what its runtime reports per-node events with,
ETDump `delegate_debug_id_int`): `debug_handle`, `nodes` (every FX node it
runs, e.g. a convolution and the batch norm folded into it) and the
facts above (`target`, `module_path`, `module_stack`, `source`, ...) of
its first node.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Optional, Union

import torch
import torch.fx

from torchedge.source_location import user_frame

if TYPE_CHECKING:
    from torch.export import ExportedProgram

    from torchedge.emit.program_emitter import EmittedProgram

FORMAT = "torchedge-etrecord"
VERSION = 2
READABLE_VERSIONS = (1, 2)
_KINDS = {"KernelCall": "kernel", "DelegateCall": "delegate", "MoveCall": "move",
          "JumpFalseCall": "jump", "FreeCall": "free"}


def _module_stack(node: torch.fx.Node) -> list[list[str]]:
    stack = node.meta.get("nn_module_stack") or {}
    out = []
    for path, kind in stack.values():
        name = kind if isinstance(kind, str) else getattr(kind, "__qualname__", str(kind))
        out.append([path, name])
    return out


def _provenance(node: torch.fx.Node) -> list[str]:
    """Names of the nodes `node` was made from (torch.fx's `from_node`
    metadata, nearest first, breadth first): the graphs before to_edge's
    decompositions, PT2E's convert and fusions, back to the exported
    model's own nodes (`relu_5`, `conv2d_7`)."""
    names: list[str] = []
    queue = list(node.meta.get("from_node") or [])
    while queue:
        source = queue.pop(0)
        name = getattr(source, "name", None)
        if name and name != node.name and name not in names:
            names.append(name)
        queue.extend(getattr(source, "from_node", None) or [])
    return names


def _node_facts(node: torch.fx.Node) -> dict[str, Any]:
    stack = _module_stack(node)
    frame = user_frame(node)
    return {
        "nodes": [node.name],
        "inputs": [n.name for n in node.all_input_nodes],
        "provenance": _provenance(node),
        "target": str(node.target) if node.op == "call_function" else node.op,
        "module_path": stack[-1][0] if stack and stack[-1][0] else None,
        "module_stack": stack,
        "source": None if frame is None else {
            "file": frame.filename, "line": frame.lineno, "function": frame.function,
            "code": frame.code},
    }


def _delegated_nodes(node: torch.fx.Node) -> list[dict[str, Any]]:
    lowered = node.target
    subgraph = getattr(lowered, "subgraph", None)
    module = getattr(subgraph, "graph_module", None)
    if module is None:
        return []
    return [_node_facts(n) for n in module.graph.nodes if n.op == "call_function"]


def _delegate_section(index: int, node: torch.fx.Node) -> Optional[dict[str, Any]]:
    """The delegate debug handle map of the DelegateCall at instruction
    `index` (see the module docstring); None when the backend gave none."""
    lowered = node.target
    handle_map = getattr(lowered, "debug_handle_map", None) or {}
    module = getattr(getattr(lowered, "subgraph", None), "graph_module", None)
    if not handle_map or module is None:
        return None
    by_name = {n.name: n for n in module.graph.nodes}
    handles = []
    for handle, names in sorted(handle_map.items()):
        known = [by_name[n] for n in names if n in by_name]
        entry: dict[str, Any] = _node_facts(known[0]) if known else {
            "inputs": [], "provenance": [], "target": None, "module_path": None,
            "module_stack": [], "source": None}
        entry["nodes"] = list(names)
        handles.append({"debug_handle": int(handle), **entry})
    return {"instruction": index, "backend": getattr(lowered, "backend_id", None),
            "debug_handles": handles}


def delegate_sections(emitted: "EmittedProgram") -> dict[str, list[dict[str, Any]]]:
    """Per method, one section per DelegateCall whose backend reported a
    debug handle map (see the module docstring)."""
    methods: dict[str, list[dict[str, Any]]] = {}
    for plan in emitted.program.execution_plan:
        nodes = emitted.instruction_nodes.get(plan.name, [])
        sections = []
        for index, instruction in enumerate(plan.chains[0].instructions):
            if type(instruction).__name__ != "DelegateCall" or index >= len(nodes):
                continue
            section = _delegate_section(index, nodes[index]) if nodes[index] is not None else None
            if section is not None:
                sections.append(section)
        methods[plan.name] = sections
    return methods


def instruction_records(emitted: "EmittedProgram") -> dict[str, list[dict[str, Any]]]:
    """Per method, one record per emitted instruction (see the module docstring)."""
    methods: dict[str, list[dict[str, Any]]] = {}
    for plan in emitted.program.execution_plan:
        nodes = emitted.instruction_nodes.get(plan.name, [])
        delegates = plan.delegates
        records = []
        for index, instruction in enumerate(plan.chains[0].instructions):
            kind = _KINDS.get(type(instruction).__name__, type(instruction).__name__)
            node = nodes[index] if index < len(nodes) else None
            record: dict[str, Any] = {"debug_handle": index, "kind": kind, "operator": None}
            if kind == "kernel":
                record["operator"] = plan.operators[instruction.op_index].qualified_name
            elif kind == "delegate":
                record["operator"] = delegates[instruction.delegate_index].id
            if node is not None:
                record.update(_node_facts(node))
                if kind == "delegate":
                    record["delegated_nodes"] = _delegated_nodes(node)
            else:
                record.update({"nodes": [], "inputs": [], "provenance": [], "target": None,
                               "module_path": None,
                               "module_stack": [], "source": None})
            records.append(record)
        methods[plan.name] = records
    return methods


def write_etrecord(path: Union[str, os.PathLike], emitted: "EmittedProgram",
                   edge_methods: Mapping[str, "ExportedProgram"],
                   runtime_methods: Mapping[str, "ExportedProgram"]) -> None:
    """Writes the ETRecord of one to_pte call (see the module docstring)."""
    delegates = delegate_sections(emitted)
    document = {"format": FORMAT, "version": VERSION,
                "methods": {name: {"instructions": records, "delegates": delegates.get(name, [])}
                            for name, records in instruction_records(emitted).items()}}
    with zipfile.ZipFile(os.fspath(path), "w", compression=zipfile.ZIP_DEFLATED) as z:
        z.writestr("etrecord.json", json.dumps(document, indent=1))
        for name, ep in edge_methods.items():
            buffer = io.BytesIO()
            try:
                torch.export.save(ep, buffer)
                z.writestr(f"edge/{name}.pt2", buffer.getvalue())
            except Exception as error:  # e.g. a delegate call torch.export cannot serialize
                z.writestr(f"edge/{name}.txt",
                           f"# torch.export.save failed: {error}\n{ep.graph_module.code}")
        for name, ep in runtime_methods.items():
            z.writestr(f"runtime/{name}.txt", str(ep.graph))


@dataclass
class ETRecord:
    """A loaded ETRecord: `methods[name]` is the list of instruction records."""

    methods: dict[str, list[dict[str, Any]]]
    path: Optional[str] = None
    # method -> the DelegateCall's instruction index -> its delegate section
    delegates: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)

    def instruction(self, method: str, debug_handle: int) -> Optional[dict[str, Any]]:
        records = self.methods.get(method, [])
        return records[debug_handle] if 0 <= debug_handle < len(records) else None

    def delegate_node(self, method: str, instruction: int,
                      delegate_debug_handle: int) -> Optional[dict[str, Any]]:
        """What the delegate at `instruction` runs under `delegate_debug_handle`
        (FX nodes, target, module path, source), or None."""
        section = self.delegates.get(method, {}).get(instruction)
        if section is None:
            return None
        for entry in section["debug_handles"]:
            if entry["debug_handle"] == delegate_debug_handle:
                return entry
        return None

    def has_edge_program(self, method: str = "forward") -> bool:
        """Whether the file holds a loadable edge program for `method` (not
        for programs torch.export.save could not write, e.g. with delegates)."""
        if self.path is None:
            return False
        with zipfile.ZipFile(self.path) as z:
            return f"edge/{method}.pt2" in z.namelist()

    def edge_program(self, method: str = "forward") -> "ExportedProgram":
        """The edge program saved for `method` (torch.export.load)."""
        if self.path is None:
            raise ValueError("this ETRecord was not read from a file")
        with zipfile.ZipFile(self.path) as z:
            name = f"edge/{method}.pt2"
            if name not in z.namelist():
                raise KeyError(f"the ETRecord holds no saved edge program for '{method}' "
                               f"(files: {z.namelist()})")
            return torch.export.load(io.BytesIO(z.read(name)))


def load_etrecord(path: Union[str, os.PathLike]) -> ETRecord:
    """Reads an ETRecord written by to_pte(etrecord=...)."""
    path = os.fspath(path)
    try:
        with zipfile.ZipFile(path) as z:
            document = json.loads(z.read("etrecord.json"))
    except (zipfile.BadZipFile, KeyError) as error:
        raise ValueError(f"{path} is not a torchedge ETRecord ({error})") from None
    if document.get("format") != FORMAT:
        raise ValueError(f"{path} is not a torchedge ETRecord (format {document.get('format')!r})")
    if document.get("version") not in READABLE_VERSIONS:
        raise ValueError(f"{path}: ETRecord version {document.get('version')} is not supported "
                         f"(this torchedge reads versions {READABLE_VERSIONS})")
    methods = {name: m["instructions"] for name, m in document["methods"].items()}
    delegates = {name: {d["instruction"]: d for d in m.get("delegates", [])}
                 for name, m in document["methods"].items()}
    return ETRecord(methods, path, delegates)
