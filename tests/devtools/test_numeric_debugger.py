"""compare_intermediates: every runtime intermediate against eager PyTorch.

Float programs (blocked-layout convolutions, plain kernels) must match the
edge program's eager values within float rounding (SQNR above
DEFAULT_THRESHOLD_DB); a program patched so that one instruction computes
the wrong thing must be reported at exactly that instruction; a quantized
program must match its quantized reference and trace its instructions back
to the float model's layers; a delegate call is compared at its own
granularity.
"""

from __future__ import annotations

import copy
import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import torchedge
from torchedge.devtools import compare_intermediates, load_etrecord
from torchedge.devtools.numeric_debugger import DEFAULT_THRESHOLD_DB


class Residual(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(16, 16, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.conv(x) + x)


class ResidualCNN(nn.Module):
    """Enough 16-channel convolutions for to_pte's blocked layout (NCHW16c)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU())
        self.body = nn.Sequential(*(Residual() for _ in range(4)))
        self.head = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(self.stem(x)).mean((2, 3)))


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(32, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.linear(x)) + x


class AddChain(nn.Module):
    """Blocks whose residual adds are plain aten::add.out instructions."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = nn.ModuleList(Block() for _ in range(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


def _lower(model: nn.Module, inputs: tuple, folder, name: str):
    edge = torchedge.to_edge(torch.export.export(model, inputs))
    etrecord = folder / f"{name}.etrecord"
    pte = edge.to_pte(etrecord=etrecord)
    return edge, pte, etrecord


@pytest.fixture(scope="module")
def residual_cnn(tmp_path_factory):
    torch.manual_seed(0)
    model = ResidualCNN().eval()
    with torch.no_grad():  # a batch norm that is not the identity, so folding it matters
        model.stem[1].running_mean.uniform_(-0.5, 0.5)
        model.stem[1].running_var.uniform_(0.5, 2.0)
    x = torch.randn(1, 3, 16, 16)
    _, pte, etrecord = _lower(model, (x,), tmp_path_factory.mktemp("cnn"), "cnn")
    return model, x, pte, etrecord


def test_float_program_matches_eager_at_every_instruction(residual_cnn):
    model, x, pte, etrecord = residual_cnn
    result = compare_intermediates(model, pte, (x,), etrecord=etrecord)
    print(result)
    assert result.first_divergence is None, str(result)
    records = load_etrecord(etrecord).methods["forward"]
    assert [r.debug_handle for r in result.rows] == list(range(len(records)))
    kernels = [r for r in result.rows if r.kind == "kernel"]
    compared = [r for r in kernels if not r.skipped]
    # Every kernel's output was matched, the blocked ones through NCHW16c.
    assert compared == kernels, str(result)
    assert any(r.layout == "NCHW16c" for r in compared), str(result)
    assert all(r.sqnr_db > DEFAULT_THRESHOLD_DB for r in compared)
    # The folded stem (conv + batch norm + relu) against the eager stem's output.
    stem = next(r for r in compared if r.module_path and r.module_path.startswith("stem"))
    assert stem.operator.startswith("torchedge::conv2d")
    # The last instruction's output is the model's: its error is the output's error.
    with torch.no_grad():
        expected = model(x)
    last = compared[-1]
    runtime = torchedge.runtime.load(pte.buffer).forward(x)
    assert last.max_abs_error == pytest.approx(float((runtime - expected).abs().max()),
                                               rel=1e-3, abs=1e-7)
    text = str(result)
    assert "NCHW16c" in text and "none below" in text
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            result.to_dataframe()
    else:
        assert len(result.to_dataframe()) == len(records)


def _patch_operator(buffer: bytes, instruction: int, operator: tuple[str, str]) -> bytes:
    """The program with instruction `instruction` calling `operator` (same
    argument schema) instead of its own: a wrong kernel in one place."""
    from torchedge.serialize import deserialize_pte, serialize_pte
    from torchedge.serialize import schema as s

    pte = deserialize_pte(buffer)
    plan = pte.program.execution_plan[0]
    plan.operators.append(s.Operator(*operator))
    plan.chains[0].instructions[instruction].op_index = len(plan.operators) - 1
    return serialize_pte(pte.program, pte.segments)


def test_an_injected_wrong_kernel_is_named_at_its_instruction(tmp_path):
    torch.manual_seed(0)
    model = AddChain().eval()
    x = torch.randn(4, 32)
    _, pte, etrecord = _lower(model, (x,), tmp_path, "chain")
    records = load_etrecord(etrecord).methods["forward"]
    adds = [r for r in records if r["operator"] == "aten::add.out"]
    assert len(adds) == 4
    victim = adds[2]  # the third block's residual add now subtracts
    broken = _patch_operator(pte.buffer, victim["debug_handle"], ("aten::sub", "out"))
    # The program still runs, and is wrong.
    with torch.no_grad():
        expected = model(x)
    y = torchedge.runtime.load(broken).forward(x)
    assert not torch.allclose(y, expected, atol=1e-2)

    clean = compare_intermediates(model, pte, (x,), etrecord=etrecord)
    assert clean.first_divergence is None, str(clean)
    result = compare_intermediates(model, broken, (x,), etrecord=etrecord)
    first = result.first_divergence
    assert first is not None, str(result)
    assert first.debug_handle == victim["debug_handle"], str(result)
    assert first.operator == "aten::add.out" and first.module_path == "layers.2"
    assert first.source.endswith(f":{victim['source']['line']}")
    assert first.sqnr_db < 10
    before = [r for r in result.rows if r.debug_handle < first.debug_handle and not r.skipped]
    assert before and not any(r.diverges for r in before)
    # Later instructions are wrong end to end but right given their inputs.
    later = [r for r in result.compared if r.debug_handle > first.debug_handle]
    assert later and all(r.sqnr_db < 30 for r in later[-1:]), str(result)
    assert [r for r in result.rows if r.diverges] == [first], str(result)
    assert f"first divergence: instruction {first.debug_handle} aten::add.out layers.2" \
        in str(result)


def _find_constant(pte_file, values: torch.Tensor) -> tuple[int, int]:
    """(segment index, byte offset) of the constant holding `values`' bytes."""
    data = values.detach().contiguous().numpy().tobytes()
    segment = pte_file.program.constant_segment.segment_index
    offset = pte_file.segments[segment].find(data)
    assert offset >= 0
    return segment, offset


def test_a_patched_constant_is_named_at_the_instruction_that_reads_it(tmp_path):
    from torchedge.serialize import deserialize_pte, serialize_pte

    torch.manual_seed(1)
    model = AddChain().eval()
    x = torch.randn(4, 32)
    _, pte, etrecord = _lower(model, (x,), tmp_path, "chain")
    decoded = deserialize_pte(pte.buffer)
    bias = model.layers[1].linear.bias
    segment, offset = _find_constant(decoded, bias)
    patched = bytearray(decoded.segments[segment])
    patched[offset:offset + 4] = torch.tensor([bias[0].item() + 3.0]).numpy().tobytes()
    decoded.segments[segment] = bytes(patched)
    broken = serialize_pte(decoded.program, decoded.segments)
    first = compare_intermediates(model, broken, (x,), etrecord=etrecord).first_divergence
    assert first is not None
    record = load_etrecord(etrecord).instruction("forward", first.debug_handle)
    assert first.module_path == "layers.1.linear" and "linear" in first.operator, record


@pytest.fixture(scope="module")
def quantized_cnn(tmp_path_factory):
    from torchedge import quantization as tq

    torch.manual_seed(0)
    model = ResidualCNN().eval()
    x = torch.randn(1, 3, 16, 16)
    calibration = [(torch.randn(1, 3, 16, 16),) for _ in range(4)]
    converted = tq.quantize_pt2e(copy.deepcopy(model), (x,), calibration)
    edge = torchedge.to_edge(converted)
    folder = tmp_path_factory.mktemp("quantized")
    pte = edge.to_pte(etrecord=folder / "q.etrecord")
    return model, converted, x, pte, folder / "q.etrecord"


def test_quantized_program_matches_its_reference_and_reports_loss_against_float(quantized_cnn):
    model, _, x, pte, etrecord = quantized_cnn
    result = compare_intermediates(model, pte, (x,), etrecord=etrecord)
    assert result.has_float and "edge program" in result.reference
    assert result.first_divergence is None, str(result)
    int8 = [r for r in result.compared if "int8" in r.operator]
    assert len(int8) >= 4, str(result)
    for r in int8:
        # Against the quantized reference: the runtime's own error, small.
        assert r.sqnr_db > DEFAULT_THRESHOLD_DB, str(result)
        # Against float: quantization's loss, finite and well below the runtime's.
        assert r.float_sqnr_db is not None and 5 < r.float_sqnr_db < r.sqnr_db, str(result)
    # The module paths the quantized graph lost, recovered from the float model.
    # The mean over H, W (the root module's forward: no submodule path) runs on int8 too.
    assert [r.module_path for r in int8] == ["stem.2", "body.0", "body.1", "body.2", "body.3", None]
    assert "mean_hw_int8" in int8[-1].operator, str(result)
    worst = result.worst(3, by="float_sqnr_db")
    assert worst[0].float_sqnr_db == min(r.float_sqnr_db for r in result.compared
                                         if r.float_sqnr_db is not None)


def test_quantized_reference_can_be_given_instead_of_the_etrecord_copy(quantized_cnn):
    model, converted, x, pte, etrecord = quantized_cnn
    given = compare_intermediates(model, pte, (x,), etrecord=etrecord,
                                  reference=torchedge.to_edge(converted))
    saved = compare_intermediates(model, pte, (x,), etrecord=etrecord)
    assert given.reference == "the given reference program"
    assert [(r.debug_handle, r.sqnr_db) for r in given.compared] == \
        [(r.debug_handle, r.sqnr_db) for r in saved.compared]


def test_delegate_calls_are_compared_at_delegate_granularity(tmp_path):
    from torchedge import _C
    from torchedge.backends.test_backend import TestPartitioner

    class Mixed(nn.Module):
        def forward(self, x, y):
            return torch.sigmoid((x + y) * y) - x

    x, y = torch.randn(8), torch.randn(8)
    edge = torchedge.to_edge(torch.export.export(Mixed(), (x, y))).to_backend(TestPartitioner())
    pte = edge.to_pte(etrecord=tmp_path / "d.etrecord")
    _C.register_test_backend()
    result = compare_intermediates(Mixed(), pte, (x, y), etrecord=tmp_path / "d.etrecord",
                                   reference=edge)
    delegates = [r for r in result.rows if r.kind == "delegate"]
    assert delegates and all(not r.skipped for r in delegates), str(result)
    assert all(r.sqnr_db > DEFAULT_THRESHOLD_DB for r in result.compared), str(result)
    assert result.first_divergence is None


def test_without_a_reference_it_says_so(tmp_path):
    from torchedge.backends.test_backend import TestPartitioner

    class AddMul(nn.Module):
        def forward(self, x, y):
            return (x + y) * y

    x, y = torch.randn(4), torch.randn(4)
    edge = torchedge.to_edge(torch.export.export(AddMul(), (x, y))).to_backend(TestPartitioner())
    pte = edge.to_pte(etrecord=tmp_path / "d.etrecord")
    with pytest.raises(ValueError, match="nothing to compare with"):
        compare_intermediates(None, pte, (x, y), etrecord=tmp_path / "d.etrecord")


def test_error_metrics_are_the_stated_formulas():
    from torchedge.devtools.error_metrics import error_metrics

    reference = torch.tensor([1.0, -2.0, 2.0])
    other = torch.tensor([1.0, -2.0, 2.5])
    m = error_metrics(reference, other)
    assert m.max_abs_error == pytest.approx(0.5)
    assert m.relative_error == pytest.approx(0.5 / 3.0)
    assert m.sqnr_db == pytest.approx(10 * math.log10(9 / 0.25))
    assert error_metrics(reference, reference).sqnr_db == math.inf
    nan = torch.tensor([float("nan")])
    assert error_metrics(nan, nan).sqnr_db == math.inf
    assert error_metrics(torch.tensor([1.0]), nan).sqnr_db == -math.inf


def test_blocked_layout_alignment_undoes_nchw16c_and_cuts_padding_lanes():
    from torchedge.devtools.tensor_alignment import align

    plain = torch.randn(1, 24, 3, 5)
    padded = torch.cat([plain, torch.zeros(1, 8, 3, 5)], 1)
    blocked = padded.reshape(1, 2, 16, 3, 5).permute(0, 1, 3, 4, 2).contiguous()
    aligned, note = align(blocked, plain)
    assert note == "NCHW16c" and torch.equal(aligned, plain)
    aligned, why = align(torch.randn(2, 3), torch.randn(4, 4))
    assert aligned is None and "no known layout transform" in why


@pytest.fixture(scope="module")
def quantized_resnet18(tmp_path_factory):
    from torchedge import models
    from torchedge import quantization as tq

    model = models.get("resnet18").module
    torch.manual_seed(0)
    x = torch.randn(1, 3, 64, 64)  # the zoo's 224x224 works too; smaller keeps the test fast
    calibration = [(torch.randn(1, 3, 64, 64),) for _ in range(4)]
    converted = tq.quantize_pt2e(copy.deepcopy(model), (x,), calibration)
    folder = tmp_path_factory.mktemp("resnet18")
    pte = torchedge.to_edge(converted).to_pte(etrecord=folder / "q.etrecord")
    return model, x, pte, folder / "q.etrecord"


def test_quantized_resnet18_per_layer_sqnr(quantized_resnet18):
    from torchedge.devtools.error_metrics import error_metrics

    model, x, pte, etrecord = quantized_resnet18
    result = compare_intermediates(model, pte, (x,), etrecord=etrecord)
    assert result.first_divergence is None, str(result)
    convs = [r for r in result.compared if "conv2d" in r.operator]
    assert len(convs) == 20, str(result)  # 17 3x3 / 7x7 convolutions, 3 projection shortcuts
    for r in convs:
        # Given the runtime's own inputs, each int8 convolution reproduces its
        # reference up to an occasional one-step rounding difference.
        assert r.local_sqnr_db > 60, str(result)
        assert r.float_sqnr_db is not None and r.float_sqnr_db < r.sqnr_db
    # Every convolution after the stem is traced to its block.
    assert all(r.module_path and r.module_path.startswith("stages.") for r in convs[1:])
    assert sum(r.module_path.endswith("shortcut.1") for r in convs[1:]) == 3
    # The last row's float SQNR is the program output's SQNR against the float model.
    with torch.no_grad():
        expected = model(x)
    y = torchedge.runtime.load(pte.buffer).forward(x)
    assert result.rows[-1].float_sqnr_db == pytest.approx(
        error_metrics(expected, y).sqnr_db, abs=0.01)
    drops = result.worst(5, by="float_sqnr_drop_db")
    assert drops[0].float_sqnr_drop_db == max(r.float_sqnr_drop_db for r in result.compared
                                              if r.float_sqnr_drop_db is not None)
