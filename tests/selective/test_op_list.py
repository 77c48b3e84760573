"""Selective build, Python side: the op list a program yields, its file
format (hand-written too), the CLI, and the generator CMake runs.

The C++ side is tested by the ctests selective_kernels_test and
selective_build_test (kernels/selective/test, scripts/check_selective_build.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

import torchedge
from torchedge import selective
from torchedge.cli import main
from torchedge.selective import op_list

ROOT = Path(__file__).resolve().parents[2]


class MixedDtypes(torch.nn.Module):
    """float32 arithmetic, an int64 index, a bool mask: three dtypes."""

    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        picked = torch.index_select(x, 0, idx)
        return torch.where(picked > 0, picked * 2.0, picked)


@pytest.fixture(scope="module")
def mixed_pte(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("selective") / "mixed.pte"
    torchedge.lower(MixedDtypes(), (torch.randn(4, 3), torch.tensor([2, 0]))).save(path)
    return path


def test_program_ops_list_every_tensor_dtype_of_each_call(mixed_pte):
    ops = selective.ops_of_programs([mixed_pte])
    assert ops.operators["aten::index_select.out"] == ("int64", "float32")
    assert ops.operators["aten::where.self_out"] == ("float32", "bool")
    assert ops.operators["aten::mul.Scalar_out"] == ("float32",)
    assert ops.dtype_mask("aten::where.self_out") == (1 << 6) | (1 << 11)


def test_render_and_load_round_trip(tmp_path, mixed_pte):
    ops = selective.ops_of_programs([mixed_pte])
    path = tmp_path / "ops.yaml"
    path.write_text(op_list.render(ops, ["from mixed.pte"]))
    assert op_list.load(path).operators == ops.operators


def test_hand_written_list_all_dtypes_and_merge(tmp_path):
    path = tmp_path / "ops.yaml"
    path.write_text("operators:\n  aten::relu.out: all\n  aten::add.out: [int64]\n  aten::mul.out: []\n")
    ops = op_list.load(path)
    assert ops.operators == {"aten::relu.out": None, "aten::add.out": ("int64",), "aten::mul.out": None}
    ops.add("aten::add.out", ["float32"])
    ops.add("aten::relu.out", ["float32"])  # every dtype absorbs a list
    assert ops.operators["aten::add.out"] == ("int64", "float32")
    assert ops.operators["aten::relu.out"] is None
    assert ops.dtype_mask("aten::relu.out") is None


@pytest.mark.parametrize("text, message", [
    ("[]\n", "expected a mapping with an 'operators' mapping"),
    ("operators:\n  relu: [float32]\n", "operator names look like 'aten::add.out'"),
    ("operators:\n  aten::relu.out: [float8]\n", "unknown dtype 'float8'"),
    ("operators:\n  aten::relu.out: 3\n", "expected a list of dtype names or 'all'"),
])
def test_bad_lists_name_what_is_wrong(tmp_path, text, message):
    path = tmp_path / "ops.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        op_list.load(path)


def test_cli_writes_the_list_from_programs_and_by_hand(tmp_path, mixed_pte, capsys):
    out = tmp_path / "ops.yaml"
    assert main(["selective-build", str(mixed_pte), "--op", "aten::relu.out:float16,float32",
                 "--op", "aten::abs.out", "-o", str(out)]) == 0
    ops = op_list.load(out)
    assert ops.operators["aten::relu.out"] == ("float16", "float32")
    assert ops.operators["aten::abs.out"] is None
    assert "aten::index_select.out" in ops.operators


def test_cli_without_inputs_is_an_error(capsys):
    assert main(["selective-build"]) == 1
    assert "nothing to select" in capsys.readouterr().err


def _generate(tmp_path: Path, text: str, libraries: str = "portable,prim,quantized"):
    ops = tmp_path / "ops.yaml"
    ops.write_text(text)
    return subprocess.run([sys.executable, str(ROOT / "scripts/generate_selected_kernels.py"),
                           "--ops", str(ops), "--out", str(tmp_path / "gen"), "--libraries", libraries],
                          capture_output=True, text=True)


def test_generator_writes_the_table_sources_and_dtype_set(tmp_path):
    proc = _generate(tmp_path, "operators:\n  aten::add.out: [float32, int64]\n"
                               "  quantized_decomposed::quantize_per_tensor.out: [float32, int8]\n")
    assert proc.returncode == 0, proc.stderr
    table = (tmp_path / "gen/register_selected_kernels.cpp").read_text()
    assert '{"aten::add.out", native::add_out}' in table
    assert '{"aten::add.out", 0x50u}' in table  # float32 | int64
    cmake = (tmp_path / "gen/selected_kernels.cmake").read_text()
    assert "set(TORCHEDGE_SELECTED_DTYPES 0x52u)" in cmake  # int8 | int64 | float32
    assert "kernels/portable/op_add.cpp" in cmake
    assert "kernels/portable/op_mul.cpp" not in cmake
    assert "set(TORCHEDGE_SELECTED_LIBRARIES portable quantized)" in cmake


def test_generator_prefers_the_later_library(tmp_path):
    proc = _generate(tmp_path, "operators:\n  torchedge::conv2d_int8.out: [int8, float32]\n",
                     "portable,prim,quantized,cortex_m")
    assert proc.returncode == 0, proc.stderr
    table = (tmp_path / "gen/register_selected_kernels.cpp").read_text()
    assert "cortex_m::conv2d_int8_out" in table
    cmake = (tmp_path / "gen/selected_kernels.cmake").read_text()
    assert "kernels/quantized/support/int8_conv.cpp" in cmake  # cortex_m uses quantized's checks


def test_generator_names_an_operator_no_library_has(tmp_path):
    proc = _generate(tmp_path, "operators:\n  aten::no_such_op.out: [float32]\n")
    assert proc.returncode != 0
    assert "aten::no_such_op.out" in proc.stderr


def test_without_pyyaml_the_same_lists_load(tmp_path, monkeypatch, mixed_pte):
    """The build may run the generator with a Python that has no PyYAML."""
    hand = tmp_path / "hand.yaml"
    hand.write_text("# by hand\noperators:\n  aten::relu.out: all  # every dtype\n"
                    "  aten::add.out: [int64, float32]\n  aten::mul.out: []\n")
    written = tmp_path / "written.yaml"
    written.write_text(op_list.render(selective.ops_of_programs([mixed_pte]), ["x"]))
    with_yaml = [op_list.load(hand).operators, op_list.load(written).operators]
    monkeypatch.setattr(op_list, "yaml", None)
    assert [op_list.load(hand).operators, op_list.load(written).operators] == with_yaml
    bad = tmp_path / "bad.yaml"
    bad.write_text("aten::relu.out: all\n")
    with pytest.raises(ValueError, match="under 'operators:'"):
        op_list.load(bad)
