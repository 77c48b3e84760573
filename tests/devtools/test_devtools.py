"""ETRecord, ETDump and the Inspector on a small nested model.

The ETDump comes from the C++ CLI (build/torchedge_run --etdump) and from the
Python runtime (load(etdump=True)); the ETRecord from to_pte(etrecord=...).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import torch

import torchedge
from torchedge import _C
from torchedge.devtools import Inspector, arena_usage, load_etrecord, parse_etdump

REPO = Path(__file__).resolve().parents[2]
CLI = REPO / "build" / "torchedge_run"


class Attention(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q = torch.nn.Linear(8, 8)
        self.v = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.q(x)) * self.v(x)


class Layer(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.attention = Attention()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attention(x) + x


class Encoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layer = torch.nn.ModuleList([Layer(), Layer()])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layer:
            x = layer(x)
        return x.sum(-1)


class Nested(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = Encoder()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.encoder(x)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(0)
    model = Nested().eval()
    x = torch.randn(2, 8)
    folder = tmp_path_factory.mktemp("devtools")
    edge = torchedge.to_edge(torch.export.export(model, (x,)))
    pte = edge.to_pte(etrecord=folder / "model.etrecord")
    pte.save(folder / "model.pte")
    return model, x, folder


def _cli_etdump(folder: Path, *extra: str) -> Path:
    if not CLI.exists():
        pytest.fail(f"{CLI} is missing: run `make build`")
    out = folder / "cli.etdump"
    run = subprocess.run([str(CLI), str(folder / "model.pte"), "--iterations", "5",
                          "--etdump", str(out), *extra], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    return out


def test_etrecord_maps_every_instruction_to_a_module_path_and_source_line(exported):
    _, _, folder = exported
    record = load_etrecord(folder / "model.etrecord")
    instructions = record.methods["forward"]
    assert [r["debug_handle"] for r in instructions] == list(range(len(instructions)))
    for r in instructions:
        assert r["nodes"], r
        assert r["module_path"] and r["module_path"].startswith("encoder"), r
        assert r["source"]["file"] == __file__, r
        assert r["source"]["line"] > 0
    paths = {r["module_path"] for r in instructions}
    assert {"encoder.layer.0.attention.q", "encoder.layer.1.attention.v",
            "encoder.layer.1", "encoder"} <= paths
    # The saved edge program loads back and still computes the model.
    model, x, _ = exported
    ep = record.edge_program("forward")
    torch.testing.assert_close(ep.module()(x), model(x))


def test_etdump_from_the_cli_records_the_load_and_every_instruction_of_each_run(exported):
    _, _, folder = exported
    dump = parse_etdump(_cli_etdump(folder))
    assert dump.dropped_events == 0
    assert dump.runs[0].name == "load"
    assert [(e.name, e.method) for e in dump.runs[0].profile_events] == \
        [("Program::load_method", "forward")]
    runs = dump.runs_of("forward")
    assert len(runs) == 5
    n = len(dump.methods["forward"].instructions)
    for run in runs:
        calls = [e for e in run.profile_events if e.instruction_id >= 0]
        assert sorted(e.instruction_id for e in calls) == list(range(n))
        assert all(e.end >= e.start for e in run.profile_events)
        execute = [e for e in run.profile_events if e.name == "Method::execute"]
        assert len(execute) == 1
        assert all(execute[0].start <= e.start and e.end <= execute[0].end for e in calls)


def test_inspector_rows_cover_every_instruction(exported):
    _, _, folder = exported
    inspector = Inspector(etdump=_cli_etdump(folder), etrecord=folder / "model.etrecord")
    n = len(load_etrecord(folder / "model.etrecord").methods["forward"])
    assert [r.debug_handle for r in inspector.rows] == list(range(n))
    for r in inspector.rows:
        assert r.count == 5
        assert r.min_us <= r.median_us <= r.max_us
        assert r.module_path and r.source and r.operator
    assert sum(r.share for r in inspector.rows) == pytest.approx(1.0)
    assert inspector.to_csv().count("\n") == n + 1
    lines = []

    class Sink:
        def write(self, text):
            lines.append(text)

    inspector.print_summary(file=Sink())
    text = "".join(lines)
    assert "encoder.layer.0.attention.q" in text and "per operator" in text


def test_chrome_trace_is_valid_json_with_every_instruction(exported, tmp_path):
    _, _, folder = exported
    inspector = Inspector(etdump=_cli_etdump(folder), etrecord=folder / "model.etrecord")
    inspector.to_chrome_trace(tmp_path / "trace.json")
    trace = json.loads((tmp_path / "trace.json").read_text())
    spans = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len([e for e in spans if "instruction" in e.get("args", {})]) == 5 * len(inspector.rows)
    assert all(e["dur"] >= 0 and e["ts"] >= 0 for e in spans)
    counters = [e for e in trace["traceEvents"] if e["ph"] == "C"]
    assert len(counters) == len(inspector.rows)


def test_captured_intermediates_match_eager(exported):
    model, x, folder = exported
    program = torchedge.runtime.load(folder / "model.pte", etdump=True, debug_buffer_size=1 << 20)
    y = program.forward(x)
    dump = parse_etdump(program.etdump())
    assert dump.dropped_debug_events == 0
    captures = {d.instruction_id: d.tensors for d in dump.runs_of("forward")[0].debug_events}
    assert sorted(captures) == list(range(len(dump.methods["forward"].instructions)))
    record = load_etrecord(folder / "model.etrecord").methods["forward"]
    # The first instruction is encoder.layer.0.attention.q's linear.
    assert record[0]["module_path"] == "encoder.layer.0.attention.q"
    with torch.no_grad():
        q = model.encoder.layer[0].attention.q(x)
    torch.testing.assert_close(captures[0][0], q, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(captures[len(captures) - 1][0], y)


def test_cli_intermediates_come_in_a_run_of_their_own(exported):
    _, _, folder = exported
    dump = parse_etdump(_cli_etdump(folder, "--debug-buffer-size", "65536"))
    runs = dump.runs_of("forward")
    assert len(runs) == 5
    assert all(not r.debug_events and r.profile_events for r in runs)
    capture = dump.runs_of("forward:intermediates")
    assert len(capture) == 1
    n = len(dump.methods["forward"].instructions)
    assert sorted(d.instruction_id for d in capture[0].debug_events) == list(range(n))
    # Kept out of the Inspector's timings.
    assert all(r.count == 5 for r in Inspector(etdump=dump).rows)


def test_a_small_event_buffer_drops_and_says_so(exported):
    _, x, folder = exported
    program = torchedge.runtime.load(folder / "model.pte", etdump=True, etdump_events=8)
    program.forward(x)
    dump = parse_etdump(program.etdump())
    assert dump.dropped_events > 0
    with pytest.warns(RuntimeWarning, match="dropped"):
        program.write_etdump(folder / "small.etdump")


def test_arena_usage_stays_within_the_planned_arenas(exported):
    _, _, folder = exported
    info = parse_etdump(_cli_etdump(folder)).methods["forward"]
    usage = arena_usage(info)
    assert len(usage) == len(info.instructions)
    assert 0 < max(usage) <= sum(info.arenas.values())
    planned = [t for t in info.tensors if t.mem_id]
    assert planned and all(t.first_instruction <= t.last_instruction for t in planned)


def test_delegate_instructions_list_their_delegated_nodes(tmp_path):
    from torchedge.backends.test_backend import TestPartitioner

    class AddMul(torch.nn.Module):
        def forward(self, x, y):
            return (x + y) * y

    x, y = torch.randn(4), torch.randn(4)
    edge = torchedge.to_edge(torch.export.export(AddMul(), (x, y))).to_backend(TestPartitioner())
    pte = edge.to_pte(etrecord=tmp_path / "d.etrecord")
    records = load_etrecord(tmp_path / "d.etrecord").methods["forward"]
    delegates = [r for r in records if r["kind"] == "delegate"]
    assert len(delegates) == 1
    assert sorted(n["target"] for n in delegates[0]["delegated_nodes"]) == \
        ["aten.add.Tensor", "aten.mul.Tensor"]
    _C.register_test_backend()
    program = torchedge.runtime.load(pte.buffer, etdump=True)
    torch.testing.assert_close(program.forward(x, y), (x + y) * y)
    dump = parse_etdump(program.etdump())
    names = [e.name for e in dump.runs[0].profile_events]
    assert "DELEGATE_INIT" in names
    calls = [e.name for e in dump.runs_of("forward")[0].profile_events if e.instruction_id >= 0]
    assert "DELEGATE_CALL" in calls


def test_bad_files_are_rejected_with_a_clear_error(tmp_path):
    (tmp_path / "junk").write_bytes(b"\0" * 64)
    with pytest.raises(ValueError, match="not an ETDump"):
        parse_etdump(tmp_path / "junk")
    with pytest.raises(ValueError, match="not a torchedge ETRecord"):
        load_etrecord(tmp_path / "junk")
    with pytest.raises(ValueError, match="needs etdump=True"):
        torchedge.runtime.load(b"", debug_buffer_size=16)
