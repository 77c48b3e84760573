"""Child: dynamic int8 ONNX model with onnxruntime.quantization (.venv-peers).

    quantize_onnx_int8_dynamic.py --onnx model.onnx --out model_int8_dynamic.onnx

quantize_dynamic: int8 per-channel weights of MatMul/Gemm (and the other
ops ORT quantizes dynamically), activations quantized per call (uint8, as
ORT's dynamic path does). reduce_range (7-bit weights) for the same reason
as quantize_onnx_int8.py: ORT's documented setting on x86 without VNNI.
ORT's shape-inference pre-processing runs first when it can. Prints a
BENCH_RESULT line.
"""

import argparse
import os
import tempfile
import warnings

from timing_loop import emit, now_ms

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--onnx", required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()
warnings.simplefilter("ignore")

import onnxruntime  # noqa: E402
from onnxruntime.quantization import QuantType, quantize_dynamic  # noqa: E402

t0 = now_ms()
source = args.onnx
preprocessed = "none"
with tempfile.TemporaryDirectory() as tmp:
    try:
        from onnxruntime.quantization.shape_inference import quant_pre_process
        candidate = os.path.join(tmp, "pre.onnx")
        quant_pre_process(args.onnx, candidate)
        source, preprocessed = candidate, "quant_pre_process"
    except Exception as e:  # noqa: BLE001  (report and quantize the original)
        preprocessed = f"skipped ({type(e).__name__})"
    quantize_dynamic(source, args.out, per_channel=True, reduce_range=True,
                     weight_type=QuantType.QInt8)
emit(export_ms=now_ms() - t0, quantizer=f"onnxruntime.quantization {onnxruntime.__version__}",
     preprocessing=preprocessed)
