"""view_copy emitted as an et_view alias: which views alias, and that the
planner keeps the aliased bytes alive while the alias is read."""

from __future__ import annotations

import torch

import torchedge
import torchedge.runtime as rt
from torchedge.memory.execution_plan import alias_pairs, tensor_lifetimes
from torchedge.serialize import schema as s


class Reshapes(torch.nn.Module):
    """x (input) -> view (stays a copy: x is the caller's) -> linear -> view of
    an intermediate (alias) -> relu -> view of that (alias of an alias, read
    late, after other tensors were allocated) -> add -> view returned (copy:
    an output owns its bytes)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.view(6, 8)
        y = self.linear(flat).view(2, 3, 8)
        z = torch.relu(y)
        late = y.view(2, 24)                    # aliases y; read after z, w exist
        w = (z * 2).view(2, 24) + late
        return w.view(48)


def _lower(alias_views: bool):
    torch.manual_seed(0)  # the same weights and input for both settings
    module = Reshapes().eval()
    x = torch.randn(2, 3, 8)
    edge = torchedge.to_edge(torch.export.export(module, (x,)))
    return module, x, edge.to_pte(alias_views=alias_views)


def _kernel_names(plan: s.ExecutionPlan) -> list[str]:
    return [plan.operators[i.op_index].qualified_name
            for chain in plan.chains for i in chain.instructions if isinstance(i, s.KernelCall)]


def test_only_views_of_intermediates_become_aliases():
    _, _, pte = _lower(alias_views=True)
    plan = pte.inspect().program.execution_plan[0]
    names = _kernel_names(plan)
    # view of the input and the returned view copy; the three others alias.
    assert names.count("aten::view_copy.out") == 2
    assert names.count("executorch_prim::et_view.default") == 3
    aliases = {alias for _, alias in alias_pairs(plan)}
    assert all(plan.values[a].allocation_info is None for a in aliases)
    assert not aliases & set(plan.outputs)


def test_aliased_source_lives_until_the_alias_is_last_read():
    _, _, pte = _lower(alias_views=True)
    plan = pte.inspect().program.execution_plan[0]
    lifetimes = {t.key: t for t in tensor_lifetimes(plan)}
    instructions = [i for chain in plan.chains for i in chain.instructions]
    for source, alias in alias_pairs(plan):
        root = source
        while root not in lifetimes:  # an alias of an alias: find the owner
            root = next(src for src, a in alias_pairs(plan) if a == root)
        last_read = max(p for p, i in enumerate(instructions)
                        if isinstance(i, s.KernelCall) and alias in i.args)
        assert lifetimes[root].last >= last_read


def test_aliases_match_eager_and_copies():
    module, x, aliased = _lower(alias_views=True)
    _, _, copied = _lower(alias_views=False)
    assert "executorch_prim::et_view.default" not in copied.operators["forward"]
    expected = module(x)
    for pte in (aliased, copied):
        for kernels in ("portable", "optimized"):
            got = rt.load(pte.buffer, kernels=kernels).forward(x)
            torch.testing.assert_close(got, expected, rtol=1e-5, atol=1e-6)
    # Repeated calls: the aliases are re-pointed every execution.
    method = rt.load(aliased.buffer)
    for _ in range(3):
        y = torch.randn(2, 3, 8)
        torch.testing.assert_close(method.forward(y), module(y), rtol=1e-5, atol=1e-6)


class ShapeOnlyCopies(torch.nn.Module):
    """squeeze / unsqueeze / an expand that broadcasts nothing, of
    intermediates (aliases), around an attention-like bmm; an expand that
    broadcasts (a copy) and a squeeze that is returned (a copy)."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        h = torch.tanh(x)                            # [1, 3, 5, 4]
        q = h.squeeze(0)                             # alias [3, 5, 4]
        k = h.unsqueeze(0).squeeze(0).squeeze(0)     # aliases [3, 5, 4]
        scores = torch.bmm(q.expand(3, 5, 4), k.transpose(1, 2))  # no-op expand: alias
        wide = torch.relu(scores)[:1].expand(2, 5, 5)  # broadcasts: stays a copy
        return scores.unsqueeze(0).squeeze(0) + wide.sum(0), torch.sigmoid(x).squeeze(0)


def test_shape_only_copies_alias_only_when_they_move_no_bytes():
    module = ShapeOnlyCopies().eval()
    x = torch.randn(1, 3, 5, 4)
    edge = torchedge.to_edge(torch.export.export(module, (x,)))
    aliased, copied = edge.to_pte(), edge.to_pte(alias_views=False)
    names = _kernel_names(aliased.inspect().program.execution_plan[0])
    assert names.count("aten::expand_copy.out") == 1  # the broadcasting one
    assert "aten::squeeze_copy.dims_out" in names     # the returned squeeze
    assert names.count("executorch_prim::et_view.default") >= 4
    plain = _kernel_names(copied.inspect().program.execution_plan[0])
    assert "executorch_prim::et_view.default" not in plain
    with torch.no_grad():
        expected = module(x)
    for pte in (aliased, copied):
        for kernels in ("portable", "optimized"):
            got = rt.load(pte.buffer, kernels=kernels).forward(x)
            for g, e in zip(got, expected):
                torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-6)
