"""Child: upstream ExecuTorch (executorch.runtime) on its .pte (.venv-peers).

The thread count is set with the pybindings' `_unsafe_reset_threadpool`
before the program loads (XNNPACK delegates take the shared threadpool at
init); `_threadpool_get_thread_count` is reported back. Load time is
load_program + load_method (XNNPACK builds its runtime and packs weights
there). The process holds torch (the ExecuTorch wheel links libtorch for
its tensor bridge), which its peak RSS includes.
"""

import warnings

from timing_loop import common_arguments, emit, now_ms, run_timed

args = common_arguments(__doc__).parse_args()
warnings.simplefilter("ignore")
start = now_ms()
import numpy as np  # noqa: E402
import torch  # noqa: E402
import executorch.extension.pybindings.portable_lib as portable_lib  # noqa: E402
from executorch.runtime import Runtime  # noqa: E402

import_ms = now_ms() - start
torch.set_num_threads(args.threads)
portable_lib._unsafe_reset_threadpool(args.threads)
threads_effective = portable_lib._threadpool_get_thread_count()
inputs = [torch.from_numpy(np.load(path)) for path in args.inputs]
t0 = now_ms()
program = Runtime.get().load_program(args.artifact)
method = program.load_method("forward")
load_ms = now_ms() - t0
latencies, outputs = run_timed(lambda: method.execute(inputs), args.iterations, args.warmup,
                               args.min_iterations, args.max_seconds,
                               args.warmup_seconds)
if args.outputs:
    np.savez(args.outputs, *[t.numpy() for t in outputs])
try:
    from importlib.metadata import version
    runtime_version = version("executorch")
except Exception:  # metadata is informational only
    runtime_version = "unknown"
emit(load_ms=load_ms, import_ms=import_ms, latencies_ms=latencies,
     threads_effective=threads_effective, runtime_version=runtime_version)
