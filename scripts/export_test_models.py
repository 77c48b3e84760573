"""Exports every built-in model except the zoo (large; kernels still landing;
tests/test_zoo.py covers it) to DIR/<name>.pte for the C++ tests (zero-heap proof)."""

import sys
import warnings
from pathlib import Path

import torchedge
from torchedge import models
from torchedge.models.zoo_common import ZOO_MODELS

warnings.filterwarnings("ignore")
out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)
names = [name for name in models.available() if name not in ZOO_MODELS]
for name in names:
    spec = models.get(name)
    torchedge.lower(spec.module, spec.lower_inputs(), methods=list(spec.methods)).save(out / f"{name}.pte")
print(f"exported {len(names)} models to {out}")
