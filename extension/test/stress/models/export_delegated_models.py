"""Writes the XNNPACK-delegated programs the stress tests run (checked in
beside this script, so the C++ tests need no Python):

  mlp_xnnpack.pte         the built-in mlp, float32, whole graph delegated
  small_cnn_xnnpack.pte   the built-in small_cnn, float32, partly delegated
  small_cnn_xnnpack_int8.pte  small_cnn quantized (PT2E static int8) and delegated

Re-run after a format change:  .venv/bin/python extension/test/stress/models/export_delegated_models.py
"""

from __future__ import annotations

import warnings
from pathlib import Path

import torchedge
from torchedge import models
from torchedge.bench.torchedge_lowering import lower_int8_xnnpack, lower_xnnpack


def main() -> None:
    warnings.filterwarnings("ignore")
    out = Path(__file__).resolve().parent
    for name in ("mlp", "small_cnn"):
        spec = models.get(name)
        pte, summary = lower_xnnpack(spec.module, spec.inputs())
        pte.save(out / f"{name}_xnnpack.pte")
        print(f"{name}_xnnpack.pte: {summary['delegated']}/{summary['nodes']} nodes delegated")
    spec = models.get("small_cnn")
    pte, summary = lower_int8_xnnpack(spec.module, spec.inputs())
    pte.save(out / "small_cnn_xnnpack_int8.pte")
    print(f"small_cnn_xnnpack_int8.pte: {summary['delegated']}/{summary['nodes']} nodes delegated")
    assert torchedge  # the package is what writes the files


if __name__ == "__main__":
    main()
