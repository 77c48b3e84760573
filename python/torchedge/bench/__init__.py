"""The benchmark suite: torchedge against the runtimes users would pick instead.

    python -m torchedge.bench                      # make bench: the zoo, all runtimes, 1 and 2 threads
    python -m torchedge.bench --models resnet18 --threads 1 --iterations 20

Every model is run, in the same invocation, on torchedge (portable kernels;
XNNPACK delegate when it is built), eager PyTorch, ONNX Runtime and upstream
ExecuTorch + XNNPACK, each configuration in its own process. Writes
out/bench/results.json, results.md and chart.png and prints the ratio of
the best torchedge configuration to each peer. docs/benchmarks.md says what
is measured and how to read it. Peers live in .venv-peers and are only
ever started as child processes (scripts under peers/).
"""

from torchedge.bench.configs import CONFIGS, Config
from torchedge.bench.measure import Plan
from torchedge.bench.suite import DEFAULT_MODELS, BenchOptions, run, write_outputs

__all__ = ["CONFIGS", "DEFAULT_MODELS", "BenchOptions", "Config", "Plan", "run", "write_outputs"]
