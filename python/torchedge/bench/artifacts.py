"""Per model, everything the runtimes load: inputs, reference outputs, model files.

    art = prepare_model("resnet18", out_dir, keys, environment, log)
    art.files["pte"]          # torchedge, portable kernels
    art.files["pte_xnnpack"]  # torchedge with the XNNPACK delegate
    art.files["eager_module"] # the pickled nn.Module
    art.files["onnx"]         # torch.onnx.export (in .venv-peers)
    art.files["executorch_pte"]  # upstream ExecuTorch + XNNPACK (in .venv-peers)
    art.files["pte_int8"]     # torchedge static int8 (PT2E), fused int8 conv/add ops
    art.files["pte_int8_w7"]  # the same with 7-bit weights (weight_bits=7)
    art.files["pte_int8_xnnpack"]  # torchedge static int8 (PT2E, unfused) + XNNPACK delegate
    art.files["executorch_pte_int8"]  # upstream XNNPACKQuantizer + XNNPACK (in .venv-peers)
    art.files["onnx_int8"]    # onnxruntime.quantization.quantize_static (in .venv-peers)
    art.files["pte_int8_dynamic"]   # torchedge dynamic int8 linear (linear_dynamic_int8)
    art.files["onnx_int8_dynamic"]  # onnxruntime.quantization.quantize_dynamic (in .venv-peers)
    art.files["executorch_pte_int8_dynamic"]  # upstream XNNPACKQuantizer dynamic (in .venv-peers)
    art.problems[key]         # ("unavailable" | "failed", reason) instead of a file

Every runtime gets the same input values (one .npy per input) and is
checked against the same eager outputs. The model is captured once with
torch.export and saved (.pt2); the peers' exporters load that program, so
ONNX Runtime and ExecuTorch see exactly the graph torchedge lowered.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np
import torch
from torch.utils._pytree import tree_leaves

import torchedge.models
from torchedge.bench import torchedge_lowering
from torchedge.bench.child_process import run_child
from torchedge.bench.environment import Environment
from torchedge.bench.runners.python_child import parse_result_line


@dataclass
class ModelArtifacts:
    model: str
    directory: Path
    input_files: list[str]
    reference: list[np.ndarray]
    flops: int
    files: dict[str, str] = field(default_factory=dict)
    problems: dict[str, tuple[str, str]] = field(default_factory=dict)
    export_ms: dict[str, float] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)

    def file_bytes(self, key: str) -> int:
        return Path(self.files[key]).stat().st_size

    def summary(self) -> dict[str, Any]:
        return {
            "inputs": [{"shape": list(np.load(p, mmap_mode="r").shape),
                        "dtype": str(np.load(p, mmap_mode="r").dtype)} for p in self.input_files],
            "flops": self.flops,
            "files": {k: {"path": v, "bytes": self.file_bytes(k), "export_ms": self.export_ms.get(k)}
                      for k, v in self.files.items()},
            "problems": {k: {"status": s, "reason": r} for k, (s, r) in self.problems.items()},
            "notes": self.notes,
        }


def prepare_model(name: str, out_dir: Path, keys: set[str], env: Environment,
                  log: Callable[[str], None]) -> ModelArtifacts:
    """Writes the artifacts named in `keys` for model `name` under out_dir/name."""
    spec = torchedge.models.get(name)
    if spec.methods != ("forward",):
        raise ValueError(f"model '{name}' has methods {spec.methods}; the benchmark runs "
                         f"single-method (forward) models")
    inputs = tuple(spec.inputs())
    directory = out_dir / name
    directory.mkdir(parents=True, exist_ok=True)
    input_files = []
    for i, x in enumerate(inputs):
        path = directory / f"input_{i}.npy"
        np.save(path, x.detach().contiguous().numpy())
        input_files.append(str(path))
    with torch.inference_mode():
        reference = [t.detach().numpy().copy() for t in tree_leaves(spec.module(*inputs))]
    from torchedge.bench.flops import count_flops
    art = ModelArtifacts(name, directory, input_files, reference, count_flops(spec.module, inputs))

    def step(key: str, make: Callable[[], Optional[float]]) -> None:
        if key not in keys:
            return
        log(f"  {name}: preparing {key}")
        start = time.perf_counter()
        try:
            reported_ms = make()
        except torchedge_lowering.NotAvailable as e:
            art.problems[key] = ("unavailable", str(e))
            return
        except Exception as e:  # an export failure is a result, reported per configuration
            art.problems[key] = ("failed", f"{type(e).__name__}: {e}".strip()[:2000])
            return
        art.export_ms[key] = reported_ms if reported_ms is not None else (time.perf_counter() - start) * 1e3

    step("eager_module", lambda: _save_eager(spec.module, directory / "eager_module.pt", art))
    step("pte", lambda: _save_pte(torchedge_lowering.lower_portable(spec.module, inputs),
                                  directory / "torchedge_portable.pte", art, "pte"))
    step("pte_xnnpack", lambda: _save_xnnpack(spec.module, inputs, directory, art))
    step("pte_vulkan", lambda: _save_vulkan(spec.module, inputs, directory, art))
    step("pte_vulkan_fp16", lambda: _save_vulkan(spec.module, inputs, directory, art, force_fp16=True))
    step("pte_int8", lambda: _save_int8(spec.module, inputs, directory, art))
    step("pte_int8_w7", lambda: _save_int8(spec.module, inputs, directory, art, weight_bits=7))
    step("pte_int8_xnnpack", lambda: _save_int8_xnnpack(spec.module, inputs, directory, art))
    step("pte_int8_dynamic", lambda: _save_pte(
        torchedge_lowering.lower_int8_dynamic(spec.module, inputs),
        directory / "torchedge_int8_dynamic.pte", art, "pte_int8_dynamic"))
    needs_peers = keys & {"onnx", "executorch_pte", "executorch_pte_int8", "onnx_int8",
                          "onnx_int8_dynamic", "executorch_pte_int8_dynamic"}
    if needs_peers:
        exported = directory / "exported.pt2"
        torch.export.save(torch.export.export(spec.module, inputs), str(exported))
        step("onnx", lambda: _peer_export(env, "export_onnx.py",
                                          ["--exported", str(exported), "--inputs", *input_files,
                                           "--out", str(directory / "model.onnx")],
                                          art, "onnx", directory / "model.onnx"))
        step("executorch_pte", lambda: _peer_export(env, "export_executorch.py",
                                                    ["--exported", str(exported),
                                                     "--out", str(directory / "executorch_xnnpack.pte")],
                                                    art, "executorch_pte",
                                                    directory / "executorch_xnnpack.pte"))
        step("executorch_pte_int8", lambda: _peer_export(
            env, "export_executorch_int8.py",
            ["--exported", str(exported), "--inputs", *input_files,
             "--out", str(directory / "executorch_xnnpack_int8.pte")],
            art, "executorch_pte_int8", directory / "executorch_xnnpack_int8.pte"))
        step("executorch_pte_int8_dynamic", lambda: _peer_export(
            env, "export_executorch_int8.py",
            ["--exported", str(exported), "--inputs", *input_files,
             "--out", str(directory / "executorch_xnnpack_int8_dynamic.pte"), "--dynamic"],
            art, "executorch_pte_int8_dynamic", directory / "executorch_xnnpack_int8_dynamic.pte"))
        if keys & {"onnx_int8", "onnx_int8_dynamic"} and "onnx" not in art.files \
                and "onnx" not in art.problems:
            keys = keys | {"onnx"}  # the int8 model is quantized from the float .onnx
            step("onnx", lambda: _peer_export(env, "export_onnx.py",
                                              ["--exported", str(exported), "--inputs", *input_files,
                                               "--out", str(directory / "model.onnx")],
                                              art, "onnx", directory / "model.onnx"))
        step("onnx_int8", lambda: _quantize_onnx(env, directory, input_files, art))
        step("onnx_int8_dynamic", lambda: _quantize_onnx(env, directory, input_files, art,
                                                         dynamic=True))
    (directory / "artifacts.json").write_text(json.dumps(art.summary(), indent=1, default=str))
    return art


def _save_eager(module: torch.nn.Module, path: Path, art: ModelArtifacts) -> None:
    torch.save(module, path)
    art.files["eager_module"] = str(path)


def _save_pte(pte: Any, path: Path, art: ModelArtifacts, key: str) -> None:
    pte.save(str(path))
    art.files[key] = str(path)


def _save_xnnpack(module: torch.nn.Module, inputs: tuple, directory: Path, art: ModelArtifacts) -> None:
    pte, summary = torchedge_lowering.lower_xnnpack(module, inputs)
    art.notes["torchedge_xnnpack_delegation"] = summary
    _save_pte(pte, directory / "torchedge_xnnpack.pte", art, "pte_xnnpack")


def _save_vulkan(module: torch.nn.Module, inputs: tuple, directory: Path, art: ModelArtifacts,
                 force_fp16: bool = False) -> None:
    pte, summary = torchedge_lowering.lower_vulkan(module, inputs, force_fp16=force_fp16)
    suffix = "_fp16" if force_fp16 else ""
    art.notes[f"torchedge_vulkan{suffix}_delegation"] = summary
    _save_pte(pte, directory / f"torchedge_vulkan{suffix}.pte", art, f"pte_vulkan{suffix}")


def _save_int8(module: torch.nn.Module, inputs: tuple, directory: Path, art: ModelArtifacts,
               weight_bits: int = 8) -> None:
    pte, summary = torchedge_lowering.lower_int8(module, inputs, weight_bits)
    suffix = "" if weight_bits == 8 else f"_w{weight_bits}"
    art.notes[f"torchedge_int8{suffix}_fusion"] = summary
    _save_pte(pte, directory / f"torchedge_int8{suffix}.pte", art, f"pte_int8{suffix}")


def _save_int8_xnnpack(module: torch.nn.Module, inputs: tuple, directory: Path,
                       art: ModelArtifacts) -> None:
    pte, summary = torchedge_lowering.lower_int8_xnnpack(module, inputs)
    art.notes["torchedge_int8_delegation"] = summary
    _save_pte(pte, directory / "torchedge_int8_xnnpack.pte", art, "pte_int8_xnnpack")


def _quantize_onnx(env: Environment, directory: Path, input_files: list[str],
                   art: ModelArtifacts, dynamic: bool = False) -> float:
    if "onnx" not in art.files:
        raise RuntimeError(f"no float .onnx to quantize ({art.problems.get('onnx', 'not exported')})")
    if dynamic:
        out = directory / "model_int8_dynamic.onnx"
        return _peer_export(env, "quantize_onnx_int8_dynamic.py",
                            ["--onnx", art.files["onnx"], "--out", str(out)],
                            art, "onnx_int8_dynamic", out)
    out = directory / "model_int8.onnx"
    return _peer_export(env, "quantize_onnx_int8.py",
                        ["--onnx", art.files["onnx"], "--inputs", *input_files, "--out", str(out)],
                        art, "onnx_int8", out)


def _peer_export(env: Environment, script: str, args: list[str], art: ModelArtifacts, key: str,
                 out: Path) -> float:
    if env.peers_python is None:
        raise torchedge_lowering.NotAvailable(env.peers_missing_reason)
    run = run_child([env.peers_python, str(env.peer_script(script)), *args], timeout_s=1800)
    failure = run.failure()
    if failure:
        raise RuntimeError(f"{script} failed: {failure}")
    result = parse_result_line(run.stdout)
    extra = {k: v for k, v in result.items() if k != "export_ms"}
    if extra:
        art.notes[key] = extra
    art.files[key] = str(out)
    return float(result["export_ms"])
