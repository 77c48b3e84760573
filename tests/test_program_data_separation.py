"""Program-data separation: to_pte(external_data=...) writes the weights to a
.ptd (FlatTensor layout) that the runtime reads by name, in place.

Covers: parity with eager and with the single-file program, which tensors go
out, the .ptd round trip, one mapping shared by two programs (two heads over
one frozen backbone), the CLI's --data, and a clear error at load for a
missing file, a missing key, a file for another program (wrong shape), a
wrong dtype, a bad header and a truncated segment.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import torch

import torchedge
from torchedge import runtime
from torchedge.serialize.flat_tensor import (
    NamedTensor,
    TensorLayout,
    deserialize_ptd,
    serialize_ptd,
)

CLI = Path(__file__).resolve().parents[1] / "build" / "torchedge_run"


class _Mlp(torch.nn.Module):
    def __init__(self, hidden: int = 32) -> None:
        super().__init__()
        self.fc1 = torch.nn.Linear(16, hidden)
        self.fc2 = torch.nn.Linear(hidden, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def _edge(model: torch.nn.Module, x: torch.Tensor):
    return torchedge.to_edge(torch.export.export(model.eval(), (x,)))


@pytest.fixture(scope="module")
def mlp(tmp_path_factory):
    torch.manual_seed(0)
    model, x = _Mlp(), torch.randn(2, 16)
    folder = tmp_path_factory.mktemp("ptd")
    pte = _edge(model, x).to_pte(external_data=True)
    ptd_path = pte.save(folder / "model.pte")
    return model, x, pte, folder / "model.pte", Path(ptd_path)


def _error(callable_) -> runtime.TorchEdgeRuntimeError:
    with pytest.raises(runtime.TorchEdgeRuntimeError) as info:
        callable_()
    return info.value


def test_external_program_matches_eager_and_the_single_file(mlp):
    model, x, pte, pte_path, ptd_path = mlp
    assert ptd_path == pte_path.with_suffix(".ptd") and ptd_path.exists()
    single = _edge(model, x).to_pte()
    assert single.data is None
    # The weights moved: the .pte shrank by about what the .ptd holds.
    assert len(pte.buffer) < 4096 < len(single.buffer) and len(pte.data) > len(single.buffer) // 2
    expected = model(x)
    torch.testing.assert_close(runtime.load(pte_path, data_files=[ptd_path]).forward(x), expected,
                               rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(runtime.load(pte.buffer, data_files=[ptd_path]).forward(x),
                               runtime.load(single.buffer).forward(x), rtol=0, atol=0)
    read = runtime.load(pte_path, data_files=[ptd_path], mmap=False).forward(x)
    torch.testing.assert_close(read, expected, rtol=1e-5, atol=1e-6)


def test_names_pick_the_tensors_that_go_out(mlp):
    model, x, *_ = mlp
    pte = _edge(model, x).to_pte(external_data=["fc1.bias", "fc2.bias"], prepack_weights=False)
    entries = deserialize_ptd(pte.data).entries
    assert sorted(entries) == ["fc1.bias", "fc2.bias"]
    bias = entries["fc1.bias"]
    assert bias.layout == TensorLayout(6, (32,), (0,))
    assert torch.equal(torch.frombuffer(bytearray(bias.data), dtype=torch.float32), model.fc1.bias)
    # Linear weights are stored transposed, folded under generated names.
    predicate = _edge(model, x).to_pte(external_data=lambda name: name.startswith("_folded"),
                                       prepack_weights=False)
    assert sorted(deserialize_ptd(predicate.data).entries) == ["_folded_permute",
                                                                "_folded_permute_1"]
    nothing = _edge(model, x).to_pte(external_data=["absent"])
    assert deserialize_ptd(nothing.data).entries == {}


def test_ptd_round_trip_and_shared_payloads():
    a = NamedTensor("a", bytes(range(8)), TensorLayout(1, (2, 4), (0, 1)))
    b = NamedTensor("b", bytes(range(8)), TensorLayout(1, (8,), (0,)))
    blob = NamedTensor("blob", b"opaque")
    data = serialize_ptd([a, b, blob])
    assert data[4:8] == b"FT01" and data[8:12] == b"FH01"
    decoded = deserialize_ptd(data)
    assert list(decoded.entries.values()) == [a, b, blob]
    with pytest.raises(ValueError):
        serialize_ptd([a, a])


class _Backbone(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1), torch.nn.ReLU(),
                                          torch.nn.Conv2d(32, 64, 3, padding=1), torch.nn.ReLU())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x).mean(dim=(2, 3))


class _Task(torch.nn.Module):
    def __init__(self, backbone: torch.nn.Module, classes: int) -> None:
        super().__init__()
        self.backbone = backbone
        self.head = torch.nn.Linear(64, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.backbone(x))


def _mappings_of(path: Path) -> int:
    target = str(path.resolve())
    with open("/proc/self/maps") as maps:
        return sum(1 for line in maps if line.rstrip().endswith(target))


def test_two_programs_share_one_mapping_of_the_backbone(tmp_path):
    torch.manual_seed(0)
    backbone, x = _Backbone().eval(), torch.randn(2, 3, 16, 16)
    shared = lambda name: name.startswith("backbone.")  # noqa: E731
    tasks = {"a": _Task(backbone, 5).eval(), "b": _Task(backbone, 7).eval()}
    for name, task in tasks.items():
        # Rewrites that store convolution filters transformed (under new
        # names) stay off, so the backbone's weights keep their names.
        pte = _edge(task, x).to_pte(external_data=shared, blocked_convolutions=False,
                                    winograd_filters=False)
        pte.save(tmp_path / f"{name}.pte", tmp_path / f"backbone_{name}.ptd")
    ptd = tmp_path / "backbone_a.ptd"
    assert (tmp_path / "backbone_b.ptd").read_bytes() == ptd.read_bytes()
    assert sorted(deserialize_ptd(ptd.read_bytes()).entries) == [
        "backbone.layers.0.bias", "backbone.layers.0.weight",
        "backbone.layers.2.bias", "backbone.layers.2.weight"]
    a = runtime.load(tmp_path / "a.pte", data_files=[ptd])
    b = runtime.load(tmp_path / "b.pte", data_files=[ptd])
    assert a.data_files[0] is b.data_files[0]  # one DataFile: opened and verified once
    torch.testing.assert_close(a.forward(x), tasks["a"](x), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(b.forward(x), tasks["b"](x), rtol=1e-5, atol=1e-6)
    assert _mappings_of(ptd) == 1  # both programs' weights point into one mapping
    other = runtime.load(tmp_path / "b.pte", data_files=[tmp_path / "backbone_b.ptd"])
    other.forward(x)
    assert _mappings_of(tmp_path / "backbone_b.ptd") == 1 and _mappings_of(ptd) == 1


def test_cli_runs_with_data_files(mlp):
    if not CLI.exists():
        pytest.skip("build/torchedge_run not built")
    _, _, _, pte_path, ptd_path = mlp
    ok = subprocess.run([str(CLI), str(pte_path), "--data", str(ptd_path), "--iterations", "2"],
                        capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    missing = subprocess.run([str(CLI), str(pte_path)], capture_output=True, text=True)
    assert missing.returncode != 0 and "fc1.bias" in missing.stderr + missing.stdout


# -- errors at load --------------------------------------------------------------


def test_without_the_data_file_the_load_names_the_tensor(mlp):
    _, x, _, pte_path, _ = mlp
    error = _error(lambda: runtime.load(pte_path).forward(x))
    assert error.code_name == "InvalidExternalData"
    assert "stored in an external data file (.ptd), but no data file was given" in error.message


def test_a_file_for_another_program_is_refused(mlp, tmp_path):
    _, x, _, pte_path, _ = mlp
    torch.manual_seed(1)
    # Same architecture, other width: every key is there, the shapes differ.
    other = _edge(_Mlp(hidden=24), x).to_pte(external_data=True, prepack_weights=False)
    other.save(tmp_path / "other.pte")
    error = _error(lambda: runtime.load(pte_path, data_files=[tmp_path / "other.ptd"]).forward(x))
    assert error.code_name in ("InvalidExternalData", "NotFound")
    assert "other.ptd" in error.message
    # Another model altogether: the first tensor asked for is missing.
    unrelated = serialize_ptd([NamedTensor("encoder.weight", bytes(16), TensorLayout(6, (4,), (0,)))])
    (tmp_path / "unrelated.ptd").write_bytes(unrelated)
    error = _error(lambda: runtime.load(pte_path, data_files=[tmp_path / "unrelated.ptd"]).forward(x))
    assert error.code_name == "NotFound"
    assert "no tensor named" in error.message and "unrelated.ptd" in error.message


def _rewritten(ptd_path: Path, tmp_path: Path, key: str, layout: TensorLayout) -> Path:
    entries = deserialize_ptd(ptd_path.read_bytes()).entries
    entries[key] = NamedTensor(key, entries[key].data, layout)
    out = tmp_path / "rewritten.ptd"
    out.write_bytes(serialize_ptd(list(entries.values())))
    return out


def test_wrong_shape_or_dtype_names_both(mlp, tmp_path):
    _, x, _, pte_path, ptd_path = mlp
    bad = _rewritten(ptd_path, tmp_path, "fc1.bias", TensorLayout(6, (4, 8), (0, 1)))
    error = _error(lambda: runtime.load(pte_path, data_files=[bad]).forward(x))
    assert error.code_name == "InvalidExternalData"
    assert "'fc1.bias' in rewritten.ptd is float32 [4, 8], the program expects float32 [32]" \
        in error.message
    bad = _rewritten(ptd_path, tmp_path, "fc1.bias", TensorLayout(3, (32,), (0,)))
    error = _error(lambda: runtime.load(pte_path, data_files=[bad]).forward(x))
    assert "is int32 [32], the program expects float32 [32]" in error.message


def test_bad_header_and_truncation_are_errors(mlp, tmp_path):
    _, x, _, pte_path, ptd_path = mlp
    data = ptd_path.read_bytes()
    cases = {
        "magic": data[:8] + b"FH99" + data[12:],
        "identifier": data[:4] + b"ET12" + data[8:],
        "truncated_segment": data[: len(data) - 100],
        "truncated_header": data[:30],
    }
    messages = {}
    for name, content in cases.items():
        path = tmp_path / f"{name}.ptd"
        path.write_bytes(content)
        error = _error(lambda: runtime.load(pte_path, data_files=[path]))
        assert error.code_name == "InvalidExternalData", (name, error)
        assert f"{name}.ptd" in error.message, error.message
        messages[name] = error.message
    assert "expected 'FH01'" in messages["magic"]
    assert "expected 'FT01'" in messages["identifier"]
    assert "truncated" in messages["truncated_segment"]
    error = _error(lambda: runtime.load(pte_path, data_files=[tmp_path / "absent.ptd"]))
    assert "absent.ptd" in error.message
