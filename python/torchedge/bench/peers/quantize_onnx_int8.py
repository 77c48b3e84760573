"""Child: static int8 ONNX model with onnxruntime.quantization (.venv-peers).

    quantize_onnx_int8.py --onnx model.onnx --inputs in0.npy ... --out model_int8.onnx

quantize_static in QDQ format, int8 activations and weights, per-channel
weights (reduce_range: 7-bit, see below), calibrated (MinMax, ORT's default) on the benchmark input plus a
few random inputs of the same shapes (seeded; the same calibration
torchedge-int8 uses). ORT's shape-inference pre-processing
(quant_pre_process) runs first, as its documentation recommends; if it
fails the original graph is quantized. Prints a BENCH_RESULT line.
"""

import argparse
import os
import tempfile
import warnings

from timing_loop import emit, now_ms

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--onnx", required=True)
parser.add_argument("--inputs", nargs="*", default=[])
parser.add_argument("--out", required=True)
parser.add_argument("--calibration-batches", type=int, default=4)
args = parser.parse_args()
warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
import onnxruntime  # noqa: E402
from onnxruntime.quantization import (  # noqa: E402
    CalibrationDataReader, QuantFormat, QuantType, quantize_static,
)

t0 = now_ms()
names = [i.name for i in onnxruntime.InferenceSession(
    args.onnx, providers=["CPUExecutionProvider"]).get_inputs()]
arrays = [np.load(path) for path in args.inputs]
rng = np.random.default_rng(0)
batches = [arrays] + [[rng.standard_normal(a.shape).astype(a.dtype)
                       if np.issubdtype(a.dtype, np.floating) else a for a in arrays]
                      for _ in range(args.calibration_batches - 1)]


class Reader(CalibrationDataReader):
    def __init__(self):
        self.feeds = iter([dict(zip(names, b)) for b in batches])

    def get_next(self):
        return next(self.feeds, None)


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
    # reduce_range (7-bit weights): ORT's documented setting for x86 without
    # VNNI, where its u8s8 kernels can saturate; without it this machine (AVX2)
    # gave max relative errors of 0.32 (mobilenet_v2) and 0.48 (small_cnn).
    quantize_static(source, args.out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QInt8, weight_type=QuantType.QInt8,
                    reduce_range=True)
emit(export_ms=now_ms() - t0, quantizer=f"onnxruntime.quantization {onnxruntime.__version__}",
     preprocessing=preprocessed)
