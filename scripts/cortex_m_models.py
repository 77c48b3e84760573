"""Exports the Cortex-M firmware's models with their inputs and references.

    python scripts/cortex_m_models.py OUT_DIR

For ds_cnn_kws and tiny_mlp (python/torchedge/models/zoo_tiny.py), float32
and int8 (the PT2E static flow, calibrated on 16 seeded batches), writes
into OUT_DIR:
  <name>.pte           the program
  <name>.input0.bin    its input (float32 1x1x49x10, seeded), raw bytes
  <name>.eager.bin     eager PyTorch's output on it (int8: the converted
                       reference model, quantize/dequantize in float)
  <name>.host.bin      the host runtime's output (torchedge.runtime)
  <name>.ops.yaml      its op list (torchedge selective-build)
targets/cortex_m builds one firmware per name; scripts/run_firmware.py
compares the firmware's output with the two references. Files are kept
when their inputs did not change (the .pte is rewritten only if different).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
warnings.filterwarnings("ignore")

import torchedge  # noqa: E402
from torchedge import models, selective  # noqa: E402
from torchedge.quantization.pt2e_flow import quantize_pt2e  # noqa: E402

MODELS = ("ds_cnn_kws", "tiny_mlp")


def write_if_changed(path: Path, data: bytes) -> None:
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)


def export(name: str, quantize: bool, out: Path) -> None:
    spec = models.get(name)
    generator = torch.Generator().manual_seed(1234)
    x = torch.randn(spec.inputs()[0].shape, generator=generator)
    if quantize:
        calibration = [(torch.randn(x.shape, generator=generator),) for _ in range(16)] + [(x,)]
        ep = quantize_pt2e(spec.module, (x,), calibration)
        reference = ep.module()(x)
        pte = torchedge.to_edge(ep).to_pte()
    else:
        reference = spec.module(x)
        pte = torchedge.lower(spec.module, (x,))
    tag = f"{name}_{'int8' if quantize else 'fp32'}"
    write_if_changed(out / f"{tag}.pte", bytes(pte.buffer))
    write_if_changed(out / f"{tag}.input0.bin", x.contiguous().numpy().tobytes())
    write_if_changed(out / f"{tag}.eager.bin", reference.detach().contiguous().numpy().tobytes())
    host = torchedge.runtime.load(str(out / f"{tag}.pte")).forward(x)
    host = host[0] if isinstance(host, (tuple, list)) else host
    write_if_changed(out / f"{tag}.host.bin", host.contiguous().numpy().tobytes())
    ops = selective.ops_of_program(bytes(pte.buffer))
    text = selective.op_list.render(ops, ["torchedge selective-build", f"program: {tag}.pte"])
    write_if_changed(out / f"{tag}.ops.yaml", text.encode())
    print(f"{tag}: {len(pte.buffer)} bytes, {len(ops.operators)} operators")


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    for name in MODELS:
        for quantize in (False, True):
            export(name, quantize, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
