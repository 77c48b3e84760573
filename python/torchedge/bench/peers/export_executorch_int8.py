"""Child: int8 with upstream's XNNPACKQuantizer, lowered to ExecuTorch + XNNPACK (.venv-peers).

    export_executorch_int8.py --exported model.pt2 --inputs in0.npy ... --out model.pte [--dynamic]

Upstream's documented PT2E path: XNNPACKQuantizer with
get_symmetric_quantization_config(is_per_channel=True) (int8 per-channel
weights, int8 per-tensor activations), prepare_pt2e, calibration on the
benchmark input plus a few random inputs of the same shapes (seeded; the
same calibration torchedge-int8 uses), convert_pt2e, re-export, then
to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()]).
With --dynamic, upstream's dynamic path instead:
get_symmetric_quantization_config(is_per_channel=True, is_dynamic=True)
(int8 per-channel weights of linear layers, activations quantized per call),
one pass over the benchmark input (the weight observers; no activation
calibration). Prints a BENCH_RESULT line with the export time and the delegate/kernel call counts.
"""

import argparse
import warnings

from timing_loop import emit, now_ms

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--exported", required=True)
parser.add_argument("--inputs", nargs="*", default=[])
parser.add_argument("--out", required=True)
parser.add_argument("--calibration-batches", type=int, default=4)
parser.add_argument("--dynamic", action="store_true", help="dynamic activations (transformers)")
args = parser.parse_args()
warnings.simplefilter("ignore")

import numpy as np  # noqa: E402
import torch  # noqa: E402
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner  # noqa: E402
from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (  # noqa: E402
    XNNPACKQuantizer, get_symmetric_quantization_config,
)
from executorch.exir import to_edge_transform_and_lower  # noqa: E402
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e  # noqa: E402

t0 = now_ms()
program = torch.export.load(args.exported)
inputs = tuple(torch.from_numpy(np.load(path)) for path in args.inputs)
config = get_symmetric_quantization_config(is_per_channel=True, is_dynamic=args.dynamic)
prepared = prepare_pt2e(program.module(), XNNPACKQuantizer().set_global(config))
generator = torch.Generator().manual_seed(0)
with torch.no_grad():
    prepared(*inputs)
    for _ in range(0 if args.dynamic else args.calibration_batches - 1):
        prepared(*(torch.randn(x.shape, generator=generator) if x.is_floating_point() else x
                   for x in inputs))
converted = convert_pt2e(prepared)
quantized = torch.export.export(converted, inputs)
lowered = to_edge_transform_and_lower(quantized, partitioner=[XnnpackPartitioner()]).to_executorch()
with open(args.out, "wb") as f:
    f.write(lowered.buffer)
export_ms = now_ms() - t0

plan = lowered.executorch_program.execution_plan[0]
delegate_calls = sum(type(i.instr_args).__name__ == "DelegateCall" for c in plan.chains for i in c.instructions)
kernel_calls = sum(type(i.instr_args).__name__ == "KernelCall" for c in plan.chains for i in c.instructions)
emit(export_ms=export_ms, delegate_calls=delegate_calls, kernel_calls=kernel_calls,
     operators_outside_delegate=sorted({plan.operators[i.instr_args.op_index].name
                                        for c in plan.chains for i in c.instructions
                                        if type(i.instr_args).__name__ == "KernelCall"}))
