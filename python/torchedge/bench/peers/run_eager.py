"""Child: eager PyTorch on a pickled zoo module (runs with the product's interpreter).

torch.set_num_threads(--threads), torch.inference_mode. Load time is
torch.load of the pickled module; the modules defining its classes
(--preimport) are imported before, with torch, so that load time is not
import time. The process also holds the interpreter and all of torch, which
its peak RSS includes.
"""

import importlib

from timing_loop import common_arguments, emit, now_ms, run_timed

parser = common_arguments(__doc__)
parser.add_argument("--preimport", action="append", default=[],
                    help="module defining the pickled model's classes (repeatable)")
args = parser.parse_args()
start = now_ms()
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch.utils._pytree import tree_leaves  # noqa: E402

for name in args.preimport:
    importlib.import_module(name)

import_ms = now_ms() - start
torch.set_num_threads(args.threads)
inputs = [torch.from_numpy(np.load(path)) for path in args.inputs]
t0 = now_ms()
module = torch.load(args.artifact, weights_only=False)
module.eval()
load_ms = now_ms() - t0
with torch.inference_mode():
    latencies, outputs = run_timed(lambda: module(*inputs), args.iterations, args.warmup,
                                   args.min_iterations, args.max_seconds,
                               args.warmup_seconds)
if args.outputs:
    np.savez(args.outputs, *[t.numpy() for t in tree_leaves(outputs)])
emit(load_ms=load_ms, import_ms=import_ms, latencies_ms=latencies,
     threads_effective=torch.get_num_threads(), runtime_version=torch.__version__)
