"""Memory exhaustion through the Python bindings: each failure is a
TorchEdgeRuntimeError (code MemoryAllocationFailed, the message naming what
ran out), and the process stays usable: the same program and others load
and run afterwards, and repeated failures do not grow the process.

What Python can reach: torchedge.runtime.load has no method-allocator,
arena or temp-allocator budget options (the Module underneath sizes the
method allocator and the arenas from the program's metadata and gives every
method an 8 MiB temp allocator), so the reachable exhaustion is a planned
arena the host cannot provide: one past the runtime's 64 TiB ceiling
(rejected before allocating) and one under it that calloc refuses. The
budget sweeps from 0 bytes upward run in C++
(extension/test/stress/exhaustion_test.cpp), where the allocators are the
caller's.
"""

from __future__ import annotations

import resource
import sys
import warnings
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent / "malformed"))

from base_programs import base  # noqa: E402

import torchedge  # noqa: E402
from torchedge import runtime  # noqa: E402
from torchedge.runtime import TorchEdgeRuntimeError  # noqa: E402
from torchedge.serialize.pte_file import serialize_pte  # noqa: E402


def _with_arena(size: int) -> tuple[bytes, tuple]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pte, inputs = base("conv_linear")
    pte.program.execution_plan[0].non_const_buffer_sizes[1] = size
    return serialize_pte(pte.program, pte.segments), inputs


def _fails_for_memory(data: bytes, inputs: tuple) -> TorchEdgeRuntimeError:
    with pytest.raises(TorchEdgeRuntimeError) as info:
        runtime.load(data).forward(*inputs)
    return info.value


def _still_usable() -> None:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    x = torch.randn(2, 8)
    out = runtime.load(bytes(torchedge.lower(model.eval(), (x,)).buffer)).forward(x)
    out = out[0] if isinstance(out, (tuple, list)) else out
    torch.testing.assert_close(out, model(x), rtol=1e-5, atol=1e-6)


def test_an_arena_past_the_ceiling_raises_and_the_process_goes_on():
    data, inputs = _with_arena(2**62)
    error = _fails_for_memory(data, inputs)
    assert error.code_name == "MemoryAllocationFailed", error.message
    assert "planned arena 1" in error.message and "claims" in error.message
    _still_usable()


def test_an_arena_the_host_cannot_allocate_raises_and_the_process_goes_on():
    data, inputs = _with_arena(2**45)  # 32 TiB: under the ceiling, past any host
    try:
        runtime.load(data).forward(*inputs)
    except TorchEdgeRuntimeError as error:
        assert error.code_name == "MemoryAllocationFailed", error.message
        assert "cannot allocate planned arena 1" in error.message
    else:
        pytest.skip("this host's overcommit policy maps 32 TiB")
    _still_usable()


def test_repeated_failures_do_not_grow_the_process():
    data, inputs = _with_arena(2**62)
    for _ in range(20):  # warm up the allocator and the bindings
        _fails_for_memory(data, inputs)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(500):
        error = _fails_for_memory(data, inputs)
        assert error.code_name == "MemoryAllocationFailed"
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 16 * 1024, f"peak RSS grew {grown_kib} KiB over 500 failed loads"
    _still_usable()
