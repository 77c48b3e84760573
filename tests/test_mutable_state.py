"""Mutable state: buffers a model updates in forward keep their value across
calls inside the runtime, start from the values in the file, and match an
eager copy of the module call by call.

Models (tests/dynamic_state_models.py): a running counter (int64 `count +=
1`, float `total.add_(x)`), caches written at positions from an input with
index_put_ (a [8, 4] cache; a llama-style [1, heads, length, dim] cache
written as `cache[:, :, pos] = k`), with copy_ (`cache.copy_(where(...))`),
a prefill cache written with a dynamic number of rows, and a histogram
(index_put_ with accumulate=True and repeated positions).

Tolerance (float32): max |runtime - eager| <= 1e-5 * max(1, max |eager|);
integers exact.
"""

from __future__ import annotations

import copy

import pytest
import torch

import torchedge
from dynamic_state_models import build
from torchedge.errors import ExportError
from torchedge.memory.execution_plan import is_mutable_buffer, tensor_lifetimes
from torchedge.serialize import schema as s


def _lower(name: str):
    module, args, dynamic_shapes = build(name)
    eager = copy.deepcopy(module)
    ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
    pte = torchedge.to_edge(ep).to_pte()
    return eager, pte, torchedge.runtime.load(pte.buffer)


def _assert_close(actual, reference, what: str) -> None:
    actual = torch.utils._pytree.tree_leaves(actual)
    reference = torch.utils._pytree.tree_leaves(reference)
    assert len(actual) == len(reference)
    for a, r in zip(actual, reference):
        assert a.shape == r.shape and a.dtype == r.dtype, what
        if r.dtype.is_floating_point:
            scale = max(1.0, r.abs().max().item())
            assert (a.double() - r.double()).abs().max().item() <= 1e-5 * scale, what
        else:
            assert torch.equal(a, r), what


def _run_steps(name: str, steps) -> None:
    eager, _, program = _lower(name)
    for i, inputs in enumerate(steps):
        with torch.no_grad():
            reference = eager(*inputs)
        _assert_close(program.forward(*inputs), reference, f"{name} step {i}")


def test_counter_keeps_counting_over_five_calls():
    eager, pte, program = _lower("counter")
    torch.manual_seed(0)
    counts = []
    for step in range(5):
        x = torch.randn(3)
        count, total = program.forward(x)
        expected_count, expected_total = eager(x)
        counts.append(int(count))
        assert torch.equal(count, expected_count)
        _assert_close(total, expected_total, f"total at step {step}")
    assert counts == [60, 70, 80, 90, 100]  # starts from the file's count = 5
    assert eager.count.item() == 10


def test_a_fresh_load_starts_again_from_the_file():
    _, pte, first = _lower("counter")
    for _ in range(3):
        first.forward(torch.zeros(3))
    again = torchedge.runtime.load(pte.buffer)
    count, _ = again.forward(torch.zeros(3))
    assert int(count) == 60


def test_index_put_cache_written_at_positions_from_an_input():
    torch.manual_seed(1)
    steps = [(torch.randn(1, 4), torch.tensor([p])) for p in (2, 7, 0, 2)]
    _run_steps("index_put_cache", steps)


def test_llama_style_cache_with_leading_none_indices():
    torch.manual_seed(2)
    steps = [(torch.randn(1, 2, 1, 3), torch.tensor([p])) for p in (0, 4, 5, 1)]
    _run_steps("heads_cache", steps)


def test_cache_written_with_copy_():
    torch.manual_seed(3)
    steps = [(torch.randn(3), torch.tensor(p)) for p in (1, 4, 0)]
    _run_steps("copy_cache", steps)


def test_prefill_cache_with_a_dynamic_number_of_rows():
    torch.manual_seed(4)
    steps = [
        (torch.randn(3, 8), torch.tensor([0, 1, 2])),
        (torch.randn(1, 8), torch.tensor([3])),
        (torch.randn(4, 8), torch.tensor([8, 9, 10, 11])),
        (torch.randn(2, 8), torch.tensor([3, 15])),
    ]
    _run_steps("prefill_cache", steps)


def test_accumulating_writes_with_repeated_positions():
    torch.manual_seed(5)
    steps = [(torch.randn(3, 2), torch.tensor(p)) for p in ([1, 1, 4], [0, 4, 4], [-1, 2, 2])]
    _run_steps("histogram", steps)


def test_a_bad_position_is_an_error_and_leaves_the_state_alone():
    eager, _, program = _lower("index_put_cache")
    x = torch.randn(1, 4)
    with pytest.raises(torchedge.runtime.TorchEdgeRuntimeError,
                       match="index_put: index 8 is out of bounds for a dim of size 8"):
        program.forward(x, torch.tensor([8]))
    _assert_close(program.forward(x, torch.tensor([3])), eager(x, torch.tensor([3])), "after the error")


def test_buffers_are_stored_as_ET12_mutable_data_and_never_share_memory():
    _, pte, _ = _lower("index_put_cache")
    program = pte.inspect().program
    plan = program.execution_plan[0]
    buffers = [i for i, v in enumerate(plan.values) if is_mutable_buffer(v)]
    assert len(buffers) == 1
    cache = plan.values[buffers[0]]
    assert cache.extra_tensor_info.fully_qualified_name == "cache"
    table = program.mutable_data_segments[0]
    start = table.offsets[cache.data_buffer_idx]
    initial = pte.inspect().segments[table.segment_index][start : start + 8 * 4 * 4]
    expected = build("index_put_cache")[0].cache
    assert torch.equal(torch.frombuffer(bytearray(initial), dtype=torch.float32).reshape(8, 4), expected)
    # Live over every instruction: nothing else may use its bytes.
    lifetimes = {t.key: t for t in tensor_lifetimes(plan)}
    end = len(plan.chains[0].instructions) - 1
    assert (lifetimes[buffers[0]].first, lifetimes[buffers[0]].last) == (0, end)
    lo = cache.allocation_info.offset
    hi = lo + 8 * 4 * 4
    for key, value in enumerate(plan.values):
        if key != buffers[0] and isinstance(value, s.Tensor) and value.allocation_info is not None:
            size = lifetimes[key].size
            other = value.allocation_info.offset
            assert other + size <= lo or other >= hi or size == 0, f"value {key} overlaps the cache"
    report = pte.memory_plan["forward"]
    print(f"index_put_cache: arena {report.arena_bytes} bytes, of which mutable buffers "
          f"{report.mutable_buffer_bytes}")
    assert report.mutable_buffer_bytes == 128


def test_write_back_uses_upstreams_copy_convention():
    _, pte, _ = _lower("counter")
    plan = pte.inspect().program.execution_plan[0]
    copies = [i for i in plan.chains[0].instructions
              if isinstance(i, s.KernelCall) and plan.operators[i.op_index].qualified_name == "aten::copy_"]
    assert len(copies) == 2
    for call in copies:  # [self, src, non_blocking, self]
        assert len(call.args) == 4 and call.args[0] == call.args[3]
        assert is_mutable_buffer(plan.values[call.args[0]])
        assert plan.values[call.args[2]] == s.Bool(False)


def test_state_shared_between_methods_is_rejected():
    class TwoMethods(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("count", torch.zeros(1))

        def forward(self, x):
            self.count += 1
            return x + self.count

        def peek(self, x):
            return x * self.count

    with pytest.raises(ExportError, match="buffer 'count' is mutated by method 'forward' and also "
                       "used by method 'peek'"):
        torchedge.lower(TwoMethods(), {"forward": (torch.randn(1),), "peek": (torch.randn(1),)},
                        methods=["forward", "peek"])
