"""torch.cond: exported, emitted as jumps (upstream's layout) and run, with
both branches taken, against eager.

Models (tests/dynamic_state_models.py): a predicate from the data
(x.sum() > 0) choosing a linear+relu branch or a tanh branch; nested conds
with two results and an identity-like branch; a predicate on a dynamic size
(x.shape[0] > 4, a SymBool computed by executorch_prim::gt).

Tolerance (float32): max |runtime - eager| <= 1e-5 * max(1, max |eager|).
"""

from __future__ import annotations

import copy

import pytest
import torch

import torchedge
from dynamic_state_models import build
from torchedge.errors import ExportError
from torchedge.serialize import schema as s


def _lower(name: str):
    module, args, dynamic_shapes = build(name)
    eager = copy.deepcopy(module)
    ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
    pte = torchedge.to_edge(ep).to_pte()
    return eager, pte, torchedge.runtime.load(pte.buffer)


def _assert_close(actual, reference) -> None:
    actual = torch.utils._pytree.tree_leaves(actual)
    reference = torch.utils._pytree.tree_leaves(reference)
    assert len(actual) == len(reference)
    for a, r in zip(actual, reference):
        assert a.shape == r.shape
        scale = max(1.0, r.abs().max().item()) if r.numel() else 1.0
        assert (a.double() - r.double()).abs().max().item() <= 1e-5 * scale


def test_data_dependent_predicate_takes_both_branches():
    eager, _, program = _lower("data_cond")
    torch.manual_seed(0)
    taken = set()
    for x in [torch.ones(2, 4), -torch.ones(2, 4), torch.randn(2, 4), torch.randn(2, 4) - 3.0,
              torch.randn(2, 4) + 3.0, torch.ones(2, 4)]:
        taken.add(bool(x.sum() > 0))
        _assert_close(program.forward(x), eager(x))
    assert taken == {True, False}


def test_nested_conds_with_two_results():
    eager, _, program = _lower("nested_cond")
    cases = [
        (torch.tensor([1.0, 0.2, 0.1]), torch.tensor([1.0, 2.0, 3.0])),   # outer true, inner true
        (torch.tensor([1.0, 0.2, 0.1]), torch.tensor([-1.0, -2.0, 0.5])),  # outer true, inner false
        (torch.tensor([0.1, 0.2, 0.1]), torch.tensor([1.0, 2.0, 3.0])),   # outer false
    ]
    for x, y in cases:
        _assert_close(program.forward(x, y), eager(x, y))


def test_predicate_on_a_dynamic_size():
    eager, pte, program = _lower("shape_cond")
    assert "executorch_prim::gt.Scalar" in pte.operators["forward"]
    for rows in (1, 4, 5, 8):
        x = torch.randn(rows, 3)
        _assert_close(program.forward(x), eager(x))


def test_cond_is_emitted_as_upstreams_jumps_and_moves():
    _, pte, _ = _lower("data_cond")
    plan = pte.inspect().program.execution_plan[0]
    instructions = plan.chains[0].instructions
    jumps = [(k, i) for k, i in enumerate(instructions) if isinstance(i, s.JumpFalseCall)]
    moves = [i for i in instructions if isinstance(i, s.MoveCall)]
    assert len(jumps) == 2 and len(moves) == 2
    (first_at, first), (second_at, second) = jumps
    pred = plan.values[first.cond_value_index]
    assert isinstance(pred, s.Tensor) and pred.scalar_type == s.ScalarType.BOOL
    assert plan.values[second.cond_value_index] == s.Bool(False)
    assert first.destination_instruction == second_at + 1  # the false branch
    assert isinstance(instructions[second_at - 1], s.MoveCall)
    assert isinstance(instructions[second.destination_instruction - 1], s.MoveCall)
    # Both branches move into the same result, which owns no memory.
    assert moves[0].move_to == moves[1].move_to
    assert plan.values[moves[0].move_to].allocation_info is None


def test_other_control_flow_is_reported():
    class Loop(torch.nn.Module):
        def forward(self, x):
            return torch._higher_order_ops.while_loop(
                lambda i, x: i < 3, lambda i, x: (i + 1, x * 2.0), (torch.tensor(0), x))[1]

    ep = torch.export.export(Loop(), (torch.randn(2),))
    with pytest.raises(ExportError, match="control flow operator 'while_loop' is not supported"):
        torchedge.to_edge(ep)


def test_a_jump_loop_in_a_hostile_file_ends_with_an_error():
    # The unconditional jump over the false branch redirected to the start: a
    # loop that never ends. execute() must stop at the loop budget.
    from torchedge.serialize.pte_file import deserialize_pte, serialize_pte

    _, pte, _ = _lower("data_cond")
    decoded = deserialize_pte(pte.buffer)
    instructions = decoded.program.execution_plan[0].chains[0].instructions
    jumps = [i for i in instructions if isinstance(i, s.JumpFalseCall)]
    jumps[1].destination_instruction = 0
    looping = torchedge.runtime.load(serialize_pte(decoded.program, decoded.segments))
    with pytest.raises(torchedge.runtime.TorchEdgeRuntimeError, match="loop budget") as info:
        looping.forward(torch.ones(2, 4))  # the true branch, then the jump back
    assert info.value.code_name == "InvalidProgram"
