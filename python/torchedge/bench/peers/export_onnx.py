"""Child: write a .onnx with torch.onnx.export from a saved ExportedProgram (.venv-peers).

    export_onnx.py --exported model.pt2 --inputs in0.npy ... --out model.onnx

The dynamo exporter (it needs onnxscript) with the weights inside the file
(external_data=False). Prints a BENCH_RESULT line with the export time.
"""

import argparse
import warnings

from timing_loop import emit, now_ms

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--exported", required=True)
parser.add_argument("--inputs", nargs="*", default=[])
parser.add_argument("--out", required=True)
args = parser.parse_args()
warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402

t0 = now_ms()
program = torch.export.load(args.exported)
inputs = tuple(torch.from_numpy(np.load(path)) for path in args.inputs)
torch.onnx.export(program, inputs, args.out, dynamo=True, external_data=False, verbose=False)
emit(export_ms=now_ms() - t0, exporter=f"torch.onnx.export (torch {torch.__version__})")
