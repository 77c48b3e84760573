"""to_pte's weight prepacking (passes/weight_prepacking.py).

Float32 linear layers whose weight is a stored constant become
torchedge::linear_prepacked calls reading the weight in the SGEMM's 16-wide
strips; GEMMs of two activations stay as they are; an MLP and the zoo's
transformer block run on the optimized and portable kernels and match eager;
prepack_weights=False restores the plain operators; the EdgeProgram is not
modified; the .pte grows by no more than the strips' padding.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import torchedge
from torchedge import models, runtime
from torchedge.passes import linear_prepacked_op
from torchedge.passes.weight_prepacking import LINEAR_PREPACKED, prepack_linear_weights

aten = torch.ops.aten
PREPACKED_KERNEL = "torchedge::linear_prepacked.out"
FLOAT_GEMMS = {"aten::addmm.out", "aten::mm.out", "aten::linear.out"}
TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}


class MLP(nn.Module):
    """N = 37 and 5: neither a multiple of 16; one layer without bias."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(20, 37)
        self.fc2 = nn.Linear(37, 40, bias=False)
        self.fc3 = nn.Linear(40, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class ActivationProducts(nn.Module):
    """One linear layer, a product of two activations and a batched product
    with a constant: only the linear layer is prepacked."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("stack", torch.randn(2, 8, 8))

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        return torch.mm(h, y) + torch.bmm(h.expand(2, -1, -1), self.stack).sum(0)


def _edge(module: nn.Module, *inputs: torch.Tensor) -> torchedge.EdgeProgram:
    return torchedge.to_edge(torch.export.export(module.eval(), inputs))


def _targets(gm: torch.fx.GraphModule) -> list:
    return [n.target for n in gm.graph.nodes if n.op == "call_function"]


def _first(out):
    return out[0] if isinstance(out, (list, tuple)) else out


def test_pack_and_unpack_are_inverse_and_the_op_is_linear():
    w, x, b = torch.randn(37, 20), torch.randn(3, 4, 20), torch.randn(37)
    packed = linear_prepacked_op.pack_weight(w)
    assert packed.shape == (3, 20, 16) and packed.is_contiguous()
    assert torch.equal(packed[2, :, 5:], torch.zeros(20, 11))  # columns 37..47 are padding
    assert torch.equal(packed[1, 7, 3], w[19, 7])  # weight[n, k] at [n // 16, k, n % 16]
    assert torch.equal(linear_prepacked_op.unpack_weight(packed, 37), w)
    torch.testing.assert_close(LINEAR_PREPACKED(x, packed, b, 37), F.linear(x, w, b),
                               rtol=0, atol=0)
    with pytest.raises(ValueError, match="weight_packed must be"):
        LINEAR_PREPACKED(x, packed, b, 50)


def test_mlp_linears_become_prepacked_calls():
    module, x = MLP(), torch.randn(6, 20)
    ep = copy.deepcopy(_edge(module, x).exported_program())
    assert prepack_linear_weights(ep) == 3
    targets = _targets(ep.graph_module)
    assert targets.count(LINEAR_PREPACKED) == 3
    assert not {aten.addmm.default, aten.mm.default, aten.permute_copy.default} & set(targets)
    packed = [v for k, v in ep.constants.items() if k.endswith("_packed")]
    assert sorted(tuple(v.shape) for v in packed) == [(1, 40, 16), (3, 20, 16), (3, 37, 16)]
    assert not any(v.dim() == 2 and v.shape[0] * v.shape[1] in (20 * 37, 37 * 40, 40 * 5)
                   for v in list(ep.constants.values()) + list(ep.state_dict.values()))
    with torch.no_grad():
        torch.testing.assert_close(ep.module()(x), module(x), **TOLERANCE)


def test_a_shared_weight_is_stored_once():
    class Layer(nn.Module):
        def __init__(self, calls: int) -> None:
            super().__init__()
            self.fc, self.calls = nn.Linear(64, 64), calls

        def forward(self, x):
            for _ in range(self.calls):
                x = torch.relu(self.fc(x))
            return x

    x = torch.randn(2, 64)
    once, twice = (_edge(Layer(calls), x).to_pte() for calls in (1, 2))
    assert twice.operators["forward"].count(PREPACKED_KERNEL) == 1  # one operator table entry
    # Equal packed weights are one payload (64 x 64 floats = 16 KiB).
    assert len(twice.buffer) - len(once.buffer) < 4096, (len(once.buffer), len(twice.buffer))


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_mlp_runs_prepacked_and_matches_eager(kernels):
    module, x = MLP(), torch.randn(6, 20)
    program = _edge(module, x).to_pte()
    operators = program.operators["forward"]
    assert PREPACKED_KERNEL in operators and not FLOAT_GEMMS & set(operators), operators
    got = _first(runtime.load(program.buffer, kernels=kernels).forward(x))
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), **TOLERANCE)


@pytest.mark.parametrize("kernels", ["optimized", "portable"])
def test_transformer_block_runs_prepacked_and_matches_eager(kernels):
    spec = models.get("transformer_block")
    inputs = spec.inputs()
    program = torchedge.lower(spec.module, inputs)
    operators = program.operators["forward"]
    assert PREPACKED_KERNEL in operators
    assert not {"aten::addmm.out", "aten::mm.out"} & set(operators), operators
    got = _first(runtime.load(program.buffer, kernels=kernels).forward(*inputs))
    with torch.no_grad():
        want = _first(spec.module.eval()(*inputs))
    torch.testing.assert_close(got, want, **TOLERANCE)


def test_products_of_activations_are_left_alone():
    module, x, y = ActivationProducts(), torch.randn(4, 8), torch.randn(8, 8)
    program = _edge(module, x, y).to_pte()
    operators = set(program.operators["forward"])
    assert {PREPACKED_KERNEL, "aten::mm.out", "aten::bmm.out"} <= operators, operators
    for kernels in ("optimized", "portable"):
        got = _first(runtime.load(program.buffer, kernels=kernels).forward(x, y))
        with torch.no_grad():
            torch.testing.assert_close(got, module(x, y), **TOLERANCE)


def test_prepack_weights_false_keeps_the_plain_operators():
    module, x = MLP(), torch.randn(6, 20)
    edge = _edge(module, x)
    program = edge.to_pte(prepack_weights=False)
    operators = set(program.operators["forward"])
    assert PREPACKED_KERNEL not in operators and "aten::addmm.out" in operators, operators
    got = _first(runtime.load(program.buffer).forward(x))
    with torch.no_grad():
        torch.testing.assert_close(got, module(x), **TOLERANCE)


def test_to_pte_does_not_modify_the_edge_program():
    module, x = MLP(), torch.randn(6, 20)
    edge = _edge(module, x)
    ep = edge.exported_program()
    before, targets = str(ep.graph), _targets(ep.graph_module)
    constants = {**ep.constants, **ep.state_dict}
    specs = list(ep.graph_signature.input_specs)
    edge.to_pte()
    assert edge.exported_program() is ep
    assert str(ep.graph) == before and _targets(ep.graph_module) == targets
    assert LINEAR_PREPACKED not in targets
    assert {**ep.constants, **ep.state_dict}.keys() == constants.keys()
    assert list(ep.graph_signature.input_specs) == specs


def test_pte_grows_by_at_most_the_strip_padding():
    module, x = MLP(), torch.randn(6, 20)
    edge = _edge(module, x)
    # The same constant alignment for both (prepacking raises it to 64).
    plain = len(edge.to_pte(prepack_weights=False, constant_tensor_alignment=64).buffer)
    packed = len(edge.to_pte(constant_tensor_alignment=64).buffer)
    padding = sum((-(-lin.out_features // 16) * 16 - lin.out_features) * lin.in_features * 4
                  for lin in (module.fc1, module.fc2, module.fc3))
    slack = 128 * 4  # per layer: constant alignment and operator metadata; the segment's end
    assert packed - plain <= padding + slack, (plain, packed, padding)
