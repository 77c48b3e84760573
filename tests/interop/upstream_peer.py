"""Runs inside the peer virtual environment that has upstream ExecuTorch.

Never imported by torchedge: the interop tests call it as a subprocess.

    python upstream_peer.py export MODEL OUT.pte INPUTS.pt   # upstream to_edge -> to_executorch
    python upstream_peer.py run PROGRAM.pte INPUTS.pt OUTPUTS.pt [METHOD]  # upstream runtime
    python upstream_peer.py export_external MODEL OUT.pte OUT_DIR INPUTS.pt  # weights to OUT_DIR/*.ptd
    python upstream_peer.py run_with_data PROGRAM.pte DATA.ptd INPUTS.pt OUTPUTS.pt
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch

warnings.filterwarnings("ignore")


def export(model_name: str, out_path: str, inputs_path: str) -> None:
    from executorch.exir import to_edge

    from torchedge import models  # plain PyTorch model definitions (on PYTHONPATH)

    spec = models.get(model_name)
    inputs = spec.inputs("forward")
    ep = torch.export.export(spec.module, inputs)
    program = to_edge(ep).to_executorch()
    Path(out_path).write_bytes(program.buffer)
    torch.save(list(inputs), inputs_path)


def run(pte_path: str, inputs_path: str, outputs_path: str, method: str = "forward") -> None:
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(Path(pte_path))
    outputs = program.load_method(method).execute(torch.load(inputs_path))
    torch.save([o.clone() if isinstance(o, torch.Tensor) else o for o in outputs], outputs_path)


def export_external(model_name: str, out_path: str, out_dir: str, inputs_path: str) -> None:
    """Upstream's program-data separation: constants to <out_dir>/<tag>.ptd."""
    from executorch.exir import ExecutorchBackendConfig, to_edge

    from torchedge import models

    spec = models.get(model_name)
    inputs = spec.inputs("forward")
    ep = torch.export.export(spec.module, inputs)
    program = to_edge(ep).to_executorch(ExecutorchBackendConfig(external_constants=True))
    Path(out_path).write_bytes(program.buffer)
    program.write_tensor_data_to_file(out_dir)
    torch.save(list(inputs), inputs_path)


def run_with_data(pte_path: str, data_path: str, inputs_path: str, outputs_path: str) -> None:
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(Path(pte_path), data_path=data_path)
    outputs = program.load_method("forward").execute(torch.load(inputs_path))
    torch.save([o.clone() if isinstance(o, torch.Tensor) else o for o in outputs], outputs_path)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"export": export, "run": run, "export_external": export_external,
     "run_with_data": run_with_data}[command](*args)
