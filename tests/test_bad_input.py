"""Bad input gets a clear error, never a crash: from Python and from the CLI.

The byte-level cases (truncation at every byte, corruption at every byte)
run in C++ (runtime/executor/test/method_test.cpp) where they are fast; here
the same classes of failure are checked through the bindings and the CLI.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch

import torchedge
from torchedge import models, runtime
from torchedge.runtime import TorchEdgeRuntimeError

CLI = Path(__file__).resolve().parents[1] / "build" / "torchedge_run"


@pytest.fixture(scope="module")
def mlp_pte():
    spec = models.get("mlp")
    return spec, torchedge.lower(spec.module, spec.lower_inputs())


def test_not_a_pte_file(tmp_path):
    path = tmp_path / "junk.pte"
    path.write_bytes(b"hello, this is not a program at all" * 10)
    with pytest.raises(TorchEdgeRuntimeError) as e:
        runtime.load(path)
    assert e.value.code_name == "InvalidProgram"
    assert "not a .pte program" in e.value.message


def test_missing_file(tmp_path):
    with pytest.raises(TorchEdgeRuntimeError) as e:
        runtime.load(tmp_path / "absent.pte")
    assert e.value.code_name == "NotFound"


@pytest.mark.parametrize("fraction", [0.0, 0.01, 0.3, 0.5, 0.9, 0.999])
def test_truncated_file(mlp_pte, fraction):
    _, pte = mlp_pte
    data = pte.buffer[: int(len(pte.buffer) * fraction)]
    with pytest.raises(TorchEdgeRuntimeError) as e:
        runtime.load(data)
    assert e.value.code_name == "InvalidProgram"


def test_corrupted_bytes_never_crash(mlp_pte):
    spec, pte = mlp_pte
    x = spec.inputs()[0]
    rejected = 0
    for at in range(0, 4096, 7):  # the flatbuffer part of the file
        data = bytearray(pte.buffer)
        data[at] ^= 0xFF
        try:
            runtime.load(bytes(data)).run_method("forward", (x,))
        except TorchEdgeRuntimeError:
            rejected += 1
    assert rejected > 0


def test_wrong_inputs(mlp_pte):
    spec, pte = mlp_pte
    program = runtime.load(pte.buffer)
    x = spec.inputs()[0]
    with pytest.raises(TorchEdgeRuntimeError, match="takes 1 inputs, got 2"):
        program.forward(x, x)
    with pytest.raises(TorchEdgeRuntimeError, match="expected dtype float32, got int64"):
        program.forward(x.long())
    with pytest.raises(TorchEdgeRuntimeError, match=r"static shape \[4, 64\] cannot become \[4, 63\]"):
        program.forward(x[:, :63])
    with pytest.raises(TorchEdgeRuntimeError, match="rank"):
        program.forward(x[0])
    with pytest.raises(AttributeError, match="no method 'backward'"):
        program.backward(x)
    assert torch.allclose(program.forward(x), spec.module(x), atol=1e-5)  # still usable


def test_unregistered_operator_is_named_at_load(mlp_pte):
    _, pte = mlp_pte
    # Rename the relu kernel in the file: same length, so the layout is unchanged.
    data = pte.buffer.replace(b"aten::relu", b"aten::relx")
    assert data != pte.buffer
    with pytest.raises(TorchEdgeRuntimeError) as e:
        runtime.load(data).forward(torch.randn(4, 64))
    assert e.value.code_name == "OperatorMissing"
    assert "aten::relx.out" in e.value.message


def test_cli_reports_errors_and_exits_nonzero(tmp_path, mlp_pte):
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"\x00" * 100)
    result = subprocess.run([str(CLI), str(bad)], capture_output=True, text=True)
    assert result.returncode == 1
    assert "not a .pte program" in result.stderr
    good = tmp_path / "mlp.pte"
    mlp_pte[1].save(good)
    result = subprocess.run([str(CLI), str(good), "--method", "nope"], capture_output=True, text=True)
    assert result.returncode == 1 and "no method named 'nope'" in result.stderr
    wrong = tmp_path / "wrong.bin"
    wrong.write_bytes(b"\x00" * 12)
    result = subprocess.run([str(CLI), str(good), "--input", str(wrong)], capture_output=True, text=True)
    assert result.returncode == 1 and "expected 1024" in result.stderr
    result = subprocess.run([str(CLI), str(good), "--iterations", "3"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "latency over 3 runs" in result.stdout and "planned memory" in result.stdout
    # Both ways of bringing the file in give the same outputs; an unknown
    # mode is a usage error (exit 2), not a crash.
    outputs = []
    for mode in ("mmap", "file"):
        result = subprocess.run([str(CLI), str(good), "--load", mode, "--print-all"],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stderr
        outputs.append([line for line in result.stdout.splitlines() if line.startswith("output")])
    assert outputs[0] == outputs[1] and outputs[0]
    result = subprocess.run([str(CLI), str(good), "--load", "tape"], capture_output=True, text=True)
    assert result.returncode == 2 and "usage" in result.stderr


def test_cli_profile_names_every_operator(tmp_path, mlp_pte):
    good = tmp_path / "mlp.pte"
    mlp_pte[1].save(good)
    result = subprocess.run([str(CLI), str(good), "--iterations", "3", "--profile"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    report = result.stdout[result.stdout.index("profile:"):]
    per_op = report[report.index("per operator:"):].splitlines()[1:]
    # One line per distinct operator of the program, shares adding up to 100 %.
    ops = {op for op in mlp_pte[1].operators["forward"] if op != "executorch_prim::et_view.default"}
    named = {line.split()[-1] for line in per_op}
    assert {op.split(".")[0] for op in ops} <= {n.split(".")[0] for n in named}, (ops, named)
    shares = [float(line.split()[2].rstrip("%")) for line in per_op]
    assert abs(sum(shares) - 100.0) < 0.5 * len(shares)
