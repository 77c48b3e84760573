"""Interop with upstream ExecuTorch, both directions, on non-delegated programs.

1. upstream `to_edge(...).to_executorch()` writes a .pte; torchedge's runtime
   runs it and must match eager PyTorch.
2. torchedge writes a .pte for the same model; upstream's runtime
   (executorch.runtime) runs it and must match eager PyTorch.

Upstream lives in .venv-peers (scripts/setup_peers.sh); it is driven through
tests/interop/upstream_peer.py in a subprocess and never imported here.
Tolerance: max |diff| <= 1e-5 relative to the output magnitude (float32).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import torch

import torchedge
from torchedge import models, runtime

REPO = Path(__file__).resolve().parents[2]
PEER_PYTHON = REPO / ".venv-peers" / "bin" / "python"
PEER_SCRIPT = Path(__file__).with_name("upstream_peer.py")
INTEROP_MODELS = ["mlp", "small_cnn", "multi_output"]


def _peer(*args: str) -> None:
    assert PEER_PYTHON.exists(), "run scripts/setup_peers.sh (make test does)"
    env = dict(os.environ, PYTHONPATH=str(REPO / "python"))
    result = subprocess.run([str(PEER_PYTHON), str(PEER_SCRIPT), *args], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]


def _assert_close(reference, actual) -> None:
    refs = [t for t in torch.utils._pytree.tree_leaves(reference) if isinstance(t, torch.Tensor)]
    acts = [t for t in torch.utils._pytree.tree_leaves(actual) if isinstance(t, torch.Tensor)]
    assert len(refs) == len(acts)
    for r, a in zip(refs, acts):
        assert r.shape == a.shape and r.dtype == a.dtype
        if r.dtype.is_floating_point:
            scale = max(1.0, r.abs().max().item())
            assert (r.double() - a.double()).abs().max().item() <= 1e-5 * scale
        else:
            assert torch.equal(r, a)


@pytest.mark.parametrize("name", INTEROP_MODELS)
def test_upstream_program_runs_in_torchedge(name, tmp_path):
    spec = models.get(name)
    pte_path, inputs_path = tmp_path / "upstream.pte", tmp_path / "inputs.pt"
    _peer("export", name, str(pte_path), str(inputs_path))
    inputs = torch.load(inputs_path)
    with torch.no_grad():
        reference = spec.module(*inputs)
    actual = runtime.load(pte_path).run_method("forward", inputs)
    _assert_close(reference, actual)


@pytest.mark.parametrize("name", INTEROP_MODELS)
def test_torchedge_program_runs_upstream(name, tmp_path):
    spec = models.get(name)
    inputs = list(spec.inputs("forward"))
    pte_path, inputs_path, outputs_path = (tmp_path / f for f in ("ours.pte", "in.pt", "out.pt"))
    # Upstream has no torchedge::conv2d_clamp, linear_prepacked, conv2d_winograd or
    # conv2d_blocked kernel.
    torchedge.lower(spec.module, tuple(inputs), fuse_activations=False,
                    prepack_weights=False, winograd_filters=False,
                    blocked_convolutions=False).save(pte_path)
    torch.save(inputs, inputs_path)
    _peer("run", str(pte_path), str(inputs_path), str(outputs_path))
    with torch.no_grad():
        reference = spec.module(*inputs)
    _assert_close(reference, torch.load(outputs_path))
