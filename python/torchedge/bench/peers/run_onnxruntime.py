"""Child: ONNX Runtime (CPU execution provider) on a .onnx file (.venv-peers).

Session: intra-op threads = --threads, inter-op threads 1, sequential
execution, all graph optimizations (ORT's defaults otherwise, spinning
included). Load time is InferenceSession creation, which includes ORT's
graph optimization. The process imports numpy and onnxruntime only (no torch).
"""

import sys

from timing_loop import common_arguments, emit, now_ms, run_timed

args = common_arguments(__doc__).parse_args()
start = now_ms()
import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402

import_ms = now_ms() - start
inputs = [np.load(path) for path in args.inputs]
options = ort.SessionOptions()
options.intra_op_num_threads = args.threads
options.inter_op_num_threads = 1
options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
t0 = now_ms()
session = ort.InferenceSession(args.artifact, options, providers=["CPUExecutionProvider"])
load_ms = now_ms() - t0
graph_inputs = session.get_inputs()
if len(graph_inputs) != len(inputs):
    sys.exit(f"run_onnxruntime: the graph takes {len(graph_inputs)} inputs "
             f"({[i.name for i in graph_inputs]}); {len(inputs)} were given")
feeds = {info.name: value for info, value in zip(graph_inputs, inputs)}
latencies, outputs = run_timed(lambda: session.run(None, feeds), args.iterations, args.warmup,
                               args.min_iterations, args.max_seconds,
                               args.warmup_seconds)
if args.outputs:
    np.savez(args.outputs, *outputs)
emit(load_ms=load_ms, import_ms=import_ms, latencies_ms=latencies,
     threads_effective=options.intra_op_num_threads, runtime_version=ort.__version__)
