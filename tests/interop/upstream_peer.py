"""Runs inside the peer virtual environment that has upstream ExecuTorch.

Never imported by torchedge: the interop tests call it as a subprocess.

    python upstream_peer.py export MODEL OUT.pte INPUTS.pt   # upstream to_edge -> to_executorch
    python upstream_peer.py run PROGRAM.pte INPUTS.pt OUTPUTS.pt [METHOD]  # upstream runtime
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


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    {"export": export, "run": run}[command](*args)
