"""Runs inside the peer virtual environment that has upstream ExecuTorch.

Never imported by torchedge: tests/interop/test_stateful_interop.py calls it
as a subprocess to check dynamic-shape, mutable-state and control-flow
programs in both directions. Each command takes a job list (torch.save'd
list of dicts) so one process, which takes long to start, serves many
programs.

    python stateful_peer.py run JOBS.pt
        job: {"pte": path, "calls": path, "out": path}. Loads the program once
        in upstream's runtime and runs "forward" on each input list saved in
        "calls", in turn (so mutable buffers carry state from call to call);
        saves the list of output lists to "out" (ending with an error message
        string if upstream fails).
    python stateful_peer.py export JOBS.pt
        job: {"model": name in tests/dynamic_state_models.py, "out": path,
        "init_buffers": bool}. Exports the model (with its dynamic shapes)
        with upstream's to_edge/to_executorch; init_buffers stores mutated
        buffers' initial values (InitializedMutableBufferPass), without it
        upstream leaves them uninitialized. A failure writes "out".error.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch

warnings.filterwarnings("ignore")


def run(jobs_path: str) -> None:
    from executorch.runtime import Runtime

    runtime = Runtime.get()
    for job in torch.load(jobs_path):
        results: list = []
        try:
            method = runtime.load_program(Path(job["pte"])).load_method("forward")
            for inputs in torch.load(job["calls"]):
                outputs = method.execute(inputs)
                results.append([o.clone() if isinstance(o, torch.Tensor) else o for o in outputs])
        except Exception as error:  # reported by the test of this program
            results.append(f"upstream failed at call {len(results)}: {error}")
        torch.save(results, job["out"])


def export(jobs_path: str) -> None:
    from executorch.exir import ExecutorchBackendConfig, to_edge
    from executorch.exir.passes.init_mutable_pass import InitializedMutableBufferPass

    import dynamic_state_models  # tests/ is on PYTHONPATH

    for job in torch.load(jobs_path):
        try:
            module, args, dynamic_shapes = dynamic_state_models.build(job["model"])
            ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
            passes = [InitializedMutableBufferPass([""])] if job.get("init_buffers") else []
            program = to_edge(ep).to_executorch(ExecutorchBackendConfig(passes=passes))
            Path(job["out"]).write_bytes(program.buffer)
        except Exception as error:  # reported by the test of this model
            Path(job["out"] + ".error").write_text(f"upstream export failed: {error}")


if __name__ == "__main__":
    command, jobs = sys.argv[1:]
    {"run": run, "export": export}[command](jobs)
