"""Child: lower a saved ExportedProgram with upstream ExecuTorch + XNNPACK (.venv-peers).

    export_executorch.py --exported model.pt2 --out model.pte

to_edge_transform_and_lower(ep, partitioner=[XnnpackPartitioner()])
.to_executorch(), as upstream documents for its CPU path. Prints a
BENCH_RESULT line with the export time, the number of delegate calls and
the number of operators left to ExecuTorch's own kernels.
"""

import argparse
import warnings

from timing_loop import emit, now_ms

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--exported", required=True)
parser.add_argument("--out", required=True)
args = parser.parse_args()
warnings.simplefilter("ignore")

import torch  # noqa: E402
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner  # noqa: E402
from executorch.exir import to_edge_transform_and_lower  # noqa: E402

t0 = now_ms()
program = torch.export.load(args.exported)
lowered = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()]).to_executorch()
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
