"""Child: torchedge's Python runtime (torchedge.runtime) on a .pte (product interpreter).

--source path: torchedge.runtime.load(path) (mmap); --source bytes: the file
read into Python bytes first and load(bytes) (the README's load(pte.buffer)).
Both must run at the same speed; the load-path configurations compare them.
"""

from timing_loop import common_arguments, emit, now_ms, run_timed

parser = common_arguments(__doc__)
parser.add_argument("--source", choices=("path", "bytes"), default="path")
args = parser.parse_args()
start = now_ms()
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils._pytree import tree_leaves  # noqa: E402

import torchedge  # noqa: E402

runtime = torchedge.runtime
import_ms = now_ms() - start
runtime.set_num_threads(args.threads)
inputs = [torch.from_numpy(np.load(path)) for path in args.inputs]
t0 = now_ms()
if args.source == "bytes":
    with open(args.artifact, "rb") as f:
        program = runtime.load(f.read())
else:
    program = runtime.load(args.artifact)
program.forward(*inputs)  # load_method happens on the first call
load_ms = now_ms() - t0
latencies, outputs = run_timed(lambda: program.forward(*inputs), args.iterations, args.warmup,
                               args.min_iterations, args.max_seconds, args.warmup_seconds)
if args.outputs:
    np.savez(args.outputs, *[t.numpy() for t in tree_leaves(outputs)])
emit(load_ms=load_ms, import_ms=import_ms, latencies_ms=latencies, threads_effective=args.threads,
     runtime_version="torchedge")
