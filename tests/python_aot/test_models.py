"""Every reference model lowers to a .pte; the operators each needs are printed
(`pytest -s`) for the kernel engineers."""

from __future__ import annotations

import pytest

import torchedge
from models import MODELS


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_lowers(name, capsys):
    model, inputs = MODELS[name]()
    pte = torchedge.lower(model, inputs, methods=list(inputs))
    assert pte.methods == tuple(inputs)
    program = pte.inspect().program
    assert [p.name for p in program.execution_plan] == list(inputs)
    for plan in program.execution_plan:
        assert plan.chains[0].instructions
        assert len(plan.inputs) == len(inputs[plan.name])
    operators = sorted({op for ops in pte.operators.values() for op in ops})
    with capsys.disabled():
        print(f"\n{name}: {' '.join(operators)}")
