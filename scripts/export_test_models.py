"""Exports every built-in model to DIR/<name>.pte for the C++ tests (zero-heap proof)."""

import sys
import warnings
from pathlib import Path

import torchedge
from torchedge import models

warnings.filterwarnings("ignore")
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
for name in models.available():
    spec = models.get(name)
    torchedge.lower(spec.module, spec.lower_inputs(), methods=list(spec.methods)).save(out / f"{name}.pte")
print(f"exported {len(models.available())} models to {out}")
