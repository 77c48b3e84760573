"""Program-data separation interop with upstream ExecuTorch (1.5.1, in
.venv-peers), both directions, on non-delegated programs:

1. upstream `to_executorch(ExecutorchBackendConfig(external_constants=True))`
   writes a .pte and (write_tensor_data_to_file) a .ptd; torchedge's runtime
   runs them and must match eager PyTorch;
2. torchedge's `to_pte(external_data=True)` writes a .pte and a .ptd;
   upstream's runtime (`Runtime.load_program(pte, data_path=ptd)`) runs them
   and must match eager PyTorch.

Upstream is driven through upstream_peer.py in a subprocess, never imported.
"""

from __future__ import annotations

import torch
import pytest

import torchedge
from torchedge import models, runtime
from torchedge.serialize.flat_tensor import deserialize_ptd

from test_upstream_interop import INTEROP_MODELS, _assert_close, _peer


@pytest.mark.parametrize("name", INTEROP_MODELS)
def test_upstream_pte_and_ptd_run_in_torchedge(name, tmp_path):
    spec = models.get(name)
    pte_path, inputs_path = tmp_path / "upstream.pte", tmp_path / "inputs.pt"
    _peer("export_external", name, str(pte_path), str(tmp_path), str(inputs_path))
    ptds = sorted(tmp_path.glob("*.ptd"))
    assert len(ptds) == 1, ptds
    assert deserialize_ptd(ptds[0].read_bytes()).entries  # our reader decodes upstream's file
    inputs = torch.load(inputs_path)
    with torch.no_grad():
        reference = spec.module(*inputs)
    actual = runtime.load(pte_path, data_files=ptds).run_method("forward", inputs)
    _assert_close(reference, actual)
    # Without its data file the program cannot load: its weights are not in the .pte.
    with pytest.raises(runtime.TorchEdgeRuntimeError, match="no data file was given"):
        runtime.load(pte_path).run_method("forward", inputs)


@pytest.mark.parametrize("name", INTEROP_MODELS)
def test_torchedge_pte_and_ptd_run_upstream(name, tmp_path):
    spec = models.get(name)
    inputs = list(spec.inputs("forward"))
    pte_path, inputs_path, outputs_path = (tmp_path / f for f in ("ours.pte", "in.pt", "out.pt"))
    pte = torchedge.lower(spec.module, tuple(inputs), fuse_activations=False,
                          prepack_weights=False, winograd_filters=False,
                          blocked_convolutions=False, external_data=True)
    ptd_path = pte.save(pte_path)
    torch.save(inputs, inputs_path)
    _peer("run_with_data", str(pte_path), str(ptd_path), str(inputs_path), str(outputs_path))
    with torch.no_grad():
        reference = spec.module(*inputs)
    _assert_close(reference, torch.load(outputs_path))
