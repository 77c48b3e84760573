"""Per-node events from delegates: debug handles ahead of time (preprocess ->
ETRecord delegate section), events at run time (ETDump), rows in the
Inspector and slices in the Chrome trace.

The XNNPACK delegate reports its stages and every delegated node with the
interval of the xnn_invoke_runtime it ran in (this XNNPACK has no
per-operator profiling); the test backend times each node on its own.
"""

from __future__ import annotations

import io
import json
import zipfile

import torch

import torchedge
from torchedge import _C
from torchedge.backends.test_backend import TestPartitioner
from torchedge.backends.xnnpack import XnnpackPartitioner
from torchedge.devtools import Inspector, load_etrecord, parse_etdump


class Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.act = torch.nn.ReLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.block = Block()
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.head = torch.nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.flatten(self.pool(self.block(x)), 1))


def _delegated(model, inputs, partitioner, tmp_path):
    ep = torch.export.export(model.eval(), inputs)
    edge = torchedge.to_edge(ep).to_backend(partitioner)
    pte = edge.to_pte(etrecord=tmp_path / "model.etrecord")
    return pte, load_etrecord(tmp_path / "model.etrecord")


def _run(pte, inputs, runs=3):
    program = torchedge.runtime.load(pte.buffer, etdump=True)
    for _ in range(runs):
        out = program.forward(*inputs)
    return out, parse_etdump(program.etdump())


def test_xnnpack_reports_every_delegated_node(tmp_path):
    torch.manual_seed(0)
    model, x = Net(), torch.randn(1, 3, 8, 8)
    pte, record = _delegated(model, (x,), XnnpackPartitioner(), tmp_path)
    sections = record.delegates["forward"]
    assert len(sections) == 1
    (call, section), = sections.items()
    assert section["backend"] == "XnnpackBackend"
    handles = section["debug_handles"]
    delegated = {n["nodes"][0] for n in record.instruction("forward", call)["delegated_nodes"]}
    # every delegated operator has a handle
    covered = {name for h in handles for name in h["nodes"]}
    assert delegated - covered == set()
    conv = next(h for h in handles if "convolution" in h["target"])
    assert conv["module_path"] == "block.conv"
    assert conv["source"]["file"].endswith("test_delegate_events.py")

    out, dump = _run(pte, (x,))
    torch.testing.assert_close(out, model(x), atol=1e-4, rtol=1e-4)
    inspector = Inspector(dump, record)
    nodes = [r for r in inspector.delegate_rows if r.is_node]
    assert sorted(r.delegate_debug_handle for r in nodes) == [h["debug_handle"] for h in handles]
    for r in nodes:
        assert r.count == 3 and r.operator.startswith("aten.")
        assert r.source is not None and r.source.split(":")[0].endswith("test_delegate_events.py")
    # torch.flatten sits in Net.forward itself: no module path
    assert {r.module_path for r in nodes} == {"block.conv", "block.act", "pool", None, "head"}
    assert all(r.shared for r in nodes) == (len(nodes) > 1)  # one invoke runs them all
    stages = {r.name for r in inspector.delegate_rows if not r.is_node}
    assert {"XNNPACK_INPUT_LAYOUT", "XNNPACK_INVOKE"} <= stages

    # every delegate event lies inside its DELEGATE_CALL's interval
    for run in dump.runs_of("forward"):
        calls = [e for e in run.profile_events if e.name == "DELEGATE_CALL"]
        assert len(calls) == 1
        inside = [e for e in run.profile_events
                  if e.instruction_id == call and not e.name.endswith("_CALL")]
        assert len(inside) >= len(handles) + 1
        for e in inside:
            assert calls[0].start <= e.start <= e.end <= calls[0].end

    text = io.StringIO()
    inspector.print_summary(file=text)
    summary = text.getvalue()
    assert f"delegate call {call} (XnnpackBackend" in summary
    assert "block.conv" in summary and "(shared)" in summary

    trace = inspector.to_chrome_trace(tmp_path / "trace.json")
    invoke = [e for e in trace["traceEvents"] if e.get("name") == "XNNPACK_INVOKE"]
    assert len(invoke) == 3
    assert len(invoke[0]["args"]["nodes"]) == len(handles)
    json.loads((tmp_path / "trace.json").read_text())


def test_test_backend_times_each_node(tmp_path):
    class AddMul(torch.nn.Module):
        def forward(self, x, y):
            return (x + y) * y

    x, y = torch.randn(256), torch.randn(256)
    pte, record = _delegated(AddMul(), (x, y), TestPartitioner(), tmp_path)
    (call, section), = record.delegates["forward"].items()
    assert [h["target"] for h in section["debug_handles"]] == ["aten.add.Tensor", "aten.mul.Tensor"]
    _C.register_test_backend()
    out, dump = _run(pte, (x, y), runs=2)
    torch.testing.assert_close(out, (x + y) * y)
    run = dump.runs_of("forward")[0]
    events = [e for e in run.profile_events if e.instruction_id == call]
    assert [(e.name, e.delegate_debug_id_int) for e in events] == \
        [("add", 0), ("mul", 1), ("DELEGATE_CALL", -1)]
    add, mul, whole = events
    assert whole.start <= add.start <= add.end <= mul.start <= mul.end <= whole.end
    rows = Inspector(dump, record).delegate_rows
    assert [(r.operator, r.count, r.shared) for r in rows] == \
        [("aten.add.Tensor", 2, False), ("aten.mul.Tensor", 2, False)]
    trace = Inspector(dump, record).to_chrome_trace()
    slices = [e for e in trace["traceEvents"] if e.get("name") == "aten.mul.Tensor"]
    assert len(slices) == 2 and all(e["tid"] == 0 for e in slices)


def test_version_1_etrecords_still_load(tmp_path):
    document = {"format": "torchedge-etrecord", "version": 1,
                "methods": {"forward": {"instructions": [
                    {"debug_handle": 0, "kind": "kernel", "operator": "aten::add.out"}]}}}
    with zipfile.ZipFile(tmp_path / "old.etrecord", "w") as z:
        z.writestr("etrecord.json", json.dumps(document))
    record = load_etrecord(tmp_path / "old.etrecord")
    assert record.instruction("forward", 0)["operator"] == "aten::add.out"
    assert record.delegates["forward"] == {} and record.delegate_node("forward", 0, 0) is None
