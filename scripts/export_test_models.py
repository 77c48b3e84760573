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

# Decoder LLMs (a random-weight Llama; tests/llm/tiny_llama.py): the zero-heap
# proof covers the KV-cache attention and the 4-bit / int8 linear kernels.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "llm"))
from tiny_llama import tiny_llama  # noqa: E402

from torchedge.llm.export import build_decoder, export_decoder  # noqa: E402

for quantize in (None, "8da4w", "int8"):
    decoder = build_decoder(tiny_llama(vocab=512), quantize, max_context=32)
    export_decoder(decoder, max_prefill=16).save(out / f"tiny_llm_{quantize or 'fp32'}.pte")
print(f"exported 3 decoder LLMs to {out}")
