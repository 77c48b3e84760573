"""The `torchedge` command line: export, run, inspect, ops, and its errors.

Most tests call torchedge.cli.main([...]) in-process (capturing output);
two run `python -m torchedge.cli` to check the real entry point and exit codes.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
import torch

from torchedge import models, operators, runtime
from torchedge.cli import main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def mlp_pte(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "mlp.pte"
    assert main(["export", "mlp", str(path)]) == 0
    return path


def test_export_builtin_model_writes_a_program_that_runs(mlp_pte, capsys):
    spec = models.get("mlp")
    (x,) = spec.inputs()
    with torch.no_grad():
        expected = spec.module(x)
    actual = runtime.load(mlp_pte).forward(x)
    assert torch.allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_export_prints_size_and_memory_plan(tmp_path, capsys):
    code, out, _ = _run(capsys, "export", "two_methods", str(tmp_path / "two.pte"))
    assert code == 0
    assert "wrote" in out and "forward:" in out and "encode:" in out and "planned" in out
    assert runtime.load(tmp_path / "two.pte").method_names == ["forward", "encode"]


def test_export_from_a_factory_file(tmp_path, capsys):
    source = tmp_path / "my_model.py"
    source.write_text(textwrap.dedent("""
        import torch

        class Scale(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.nn.Parameter(torch.full((4,), 3.0))

            def forward(self, x):
                return torch.relu(x) * self.w

        def make():
            return Scale(), (torch.randn(2, 4),)
    """))
    out_path = tmp_path / "scale.pte"
    code, out, _ = _run(capsys, "export", f"{source}:make", str(out_path))
    assert code == 0, out
    x = torch.tensor([[-1.0, 2.0, 0.5, -3.0], [1.0, 1.0, -1.0, 4.0]])
    assert torch.equal(runtime.load(out_path).forward(x), torch.relu(x) * 3.0)


def test_export_errors_name_the_problem(tmp_path, capsys):
    code, _, err = _run(capsys, "export", "no_such_model", str(tmp_path / "x.pte"))
    assert code == 1 and "unknown model 'no_such_model'" in err and "small_cnn" in err
    code, _, err = _run(capsys, "export", f"{tmp_path}/missing.py:make", str(tmp_path / "x.pte"))
    assert code == 1 and "no such file" in err
    (tmp_path / "bad.py").write_text("def make():\n    return 42\n")
    code, _, err = _run(capsys, "export", f"{tmp_path}/bad.py:make", str(tmp_path / "x.pte"))
    assert code == 1 and "must return (module, example_inputs" in err


def test_export_lists_builtin_models(capsys):
    code, out, _ = _run(capsys, "export", "--list")
    assert code == 0
    for name in models.available():
        assert name in out


def test_run_prints_outputs_and_latency(mlp_pte, capsys):
    code, out, _ = _run(capsys, "run", str(mlp_pte), "--iterations", "3")
    assert code == 0
    assert "output 0: float32[" in out
    assert "latency over 3 runs: min" in out and "median" in out
    assert "planned memory:" in out


def test_run_with_input_files(mlp_pte, tmp_path, capsys):
    x = models.get("mlp").inputs()[0]
    torch.save(torch.ones_like(x), tmp_path / "x.pt")
    code, out, _ = _run(capsys, "run", str(mlp_pte), "--input", str(tmp_path / "x.pt"), "--iterations", "1")
    assert code == 0
    assert f"input 0: float32[{', '.join(map(str, x.shape))}] min=1 mean=1 max=1" in out


def test_run_errors(mlp_pte, tmp_path, capsys):
    code, _, err = _run(capsys, "run", str(mlp_pte), "--method", "nope")
    assert code == 1 and "no method named 'nope'" in err
    code, _, err = _run(capsys, "run", str(tmp_path / "absent.pte"))
    assert code == 1 and "error" in err
    x = models.get("mlp").inputs()[0]
    torch.save(torch.ones(3, 3), tmp_path / "wrong.pt")
    code, _, err = _run(capsys, "run", str(mlp_pte), "--input", str(tmp_path / "wrong.pt"))
    assert code == 1 and "input 0" in err, (x.shape, err)


def test_inspect_reports_methods_io_operators_memory_constants(mlp_pte, capsys):
    code, out, _ = _run(capsys, "inspect", str(mlp_pte))
    assert code == 0
    assert "method 'forward'" in out and "planned memory" in out
    assert "input 0: float32[" in out and "output 0: float32[" in out
    assert "constants:" in out and "segment 0: constants" in out
    assert "torchedge::linear_prepacked.out" in out  # the MLP's linears, weights prepacked


def test_inspect_json_matches_the_program_and_the_listing(mlp_pte, capsys):
    code, out, _ = _run(capsys, "inspect", str(mlp_pte), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["file_bytes"] == mlp_pte.stat().st_size
    (method,) = data["methods"]
    x = models.get("mlp").inputs()[0]
    assert method["inputs"][0]["dtype"] == "float32" and method["inputs"][0]["shape"] == list(x.shape)
    assert method["planned_bytes"] == runtime.load(mlp_pte).planned_bytes("forward")
    assert data["constants"] == 6  # three Linear layers: weight and bias each
    for op in method["operators"]:
        expected = operators.is_supported(op["name"], "float32")
        assert (op["status"] == "supported") == expected, op


def test_inspect_flags_operators_outside_the_listing(tmp_path, capsys):
    """A program whose kernel is renamed to one nobody lists."""
    from torchedge.serialize import deserialize_pte, serialize_pte
    from torchedge.serialize import schema as s

    class Neg(torch.nn.Module):
        def forward(self, x):
            return -x

    import torchedge

    pte = deserialize_pte(torchedge.lower(Neg(), (torch.randn(3),)).buffer)
    plan = pte.program.execution_plan[0]
    plan.operators[0] = s.Operator("custom::negate", "out")
    path = tmp_path / "custom.pte"
    path.write_bytes(serialize_pte(pte.program, pte.segments))
    code, out, _ = _run(capsys, "inspect", str(path))
    assert code == 0 and "custom::negate.out" in out and "not in the portable listing" in out


def test_inspect_rejects_a_file_that_is_not_a_pte(tmp_path, capsys):
    path = tmp_path / "junk.pte"
    path.write_bytes(b"this is not a program at all")
    code, _, err = _run(capsys, "inspect", str(path))
    assert code == 1 and "not a .pte file" in err


def test_ops_lists_the_listing(capsys):
    code, out, _ = _run(capsys, "ops")
    assert code == 0
    assert f"{len(operators.entries())} operators, {operators.pair_count()} (operator, dtype) pairs" in out
    assert "aten::add.out" in out


def test_ops_filters_by_dtype_and_group(capsys):
    code, out, _ = _run(capsys, "ops", "--dtype", "bfloat16", "--group", "elementwise")
    assert code == 0
    expected = [e for e in operators.entries() if e.group == "elementwise" and e.supports("bfloat16")]
    assert f"{len(expected)} operators" in out
    code, _, err = _run(capsys, "ops", "--dtype", "qint8")
    assert code == 1 and "unknown dtype" in err
    code, _, err = _run(capsys, "ops", "--group", "nope")
    assert code == 1 and "unknown group" in err


def test_module_entry_point_and_exit_codes(mlp_pte):
    python = [sys.executable, "-m", "torchedge.cli"]
    ok = subprocess.run(python + ["inspect", str(mlp_pte)], capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and "method 'forward'" in ok.stdout
    bad = subprocess.run(python + ["run", str(mlp_pte), "--iterations", "0"],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "--iterations must be at least 1" in bad.stderr
    usage = subprocess.run(python + ["frobnicate"], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and "invalid choice" in usage.stderr
