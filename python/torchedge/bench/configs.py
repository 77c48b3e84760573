"""The benchmarked configurations: which runtime, which artifact, which host.

A Config names a runtime set-up; `artifact` is the key of the model file it
loads (made by artifacts.py) and `runner` how its child process is started
(runners/). `family` separates torchedge's own configurations from the
peers it is compared with; `precision` lets int8 configurations (torchedge
int8, ExecuTorch-XNNPACK int8, ONNX Runtime int8 via
onnxruntime.quantization) sit beside the float32 ones: ratios are only
taken between configurations of the same precision.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    name: str
    family: str        # "torchedge" or "peer"
    runtime: str       # what a reader calls it
    artifact: str      # key into ModelArtifacts.files
    runner: str        # "torchedge_cli" or a script under peers/
    interpreter: str   # "native", "product" (.venv python) or "peers" (.venv-peers python)
    precision: str = "fp32"
    # Whether the thread count reaches the compute (False: measured at each
    # requested count anyway, and the table says the runtime is single-threaded).
    threads_apply: bool = True
    host: str = ""     # what else the measured process holds (for the RSS column)
    # Largest max|out - eager| / max|eager| over the outputs still called a
    # match (int8 configurations will compare with a looser bound).
    tolerance: float = 1e-3
    child_args: tuple[str, ...] = ()  # extra arguments for the child (script or torchedge_run)


# int8 against float eager: max|out - eager| / max|eager|. Random-weight zoo
# CNNs lose about 1-2 decimal digits to int8; far beyond this is a bug.
INT8_TOLERANCE = 0.25

# float16 compute against float32 eager: the Vulkan zoo's float16 bound
# (tests/backends/vulkan_zoo.py, docs/vulkan.md's float16 parity tables).
FLOAT16_TOLERANCE = 3e-2

CONFIGS: tuple[Config, ...] = (
    Config("torchedge-portable", "torchedge", "torchedge, portable kernels", "pte",
           "torchedge_cli", "native", threads_apply=False,
           host="C++ CLI (build/torchedge_run), no Python", child_args=("--kernels", "portable")),
    Config("torchedge-optimized", "torchedge", "torchedge, optimized kernels (no delegate)", "pte",
           "torchedge_cli", "native", host="C++ CLI (build/torchedge_run), no Python",
           child_args=("--kernels", "optimized")),
    # Non-delegated ops of the XNNPACK program run on the optimized kernels.
    Config("torchedge-xnnpack", "torchedge", "torchedge, XNNPACK CPU delegate", "pte_xnnpack",
           "torchedge_cli", "native", host="C++ CLI (build/torchedge_run), no Python",
           child_args=("--kernels", "optimized")),
    Config("eager", "peer", "eager PyTorch", "eager_module", "run_eager.py", "product",
           host="Python + torch", child_args=("--preimport", "torchedge.models")),
    Config("onnxruntime", "peer", "ONNX Runtime (CPU EP)", "onnx", "run_onnxruntime.py", "peers",
           host="Python + numpy + onnxruntime"),
    Config("executorch-xnnpack", "peer", "upstream ExecuTorch + XNNPACK", "executorch_pte",
           "run_executorch.py", "peers", host="Python + torch + executorch pybindings"),
    # Static int8 (int8 per-channel weights, int8 per-tensor activations), each
    # calibrated on the benchmark input plus 3 seeded random inputs and
    # compared with the float eager outputs under INT8_TOLERANCE.
    Config("torchedge-int8", "torchedge",
           "torchedge int8 (PT2E), int8 conv/add kernels + optimized kernels (no delegate)",
           "pte_int8", "torchedge_cli", "native", precision="int8", tolerance=INT8_TOLERANCE,
           host="C++ CLI (build/torchedge_run), no Python", child_args=("--kernels", "optimized")),
    # Static int8 with 7-bit weights ([-63, 63], quantize_pt2e's weight_bits=7):
    # on AVX2 CPUs without VNNI the int8 convolutions multiply u8 x s8 without
    # saturating (ONNX Runtime's int8 makes the same reduce_range trade).
    Config("torchedge-int8-w7", "torchedge",
           "torchedge int8 (PT2E), 7-bit weights, int8 conv/add kernels + optimized kernels",
           "pte_int8_w7", "torchedge_cli", "native", precision="int8", tolerance=INT8_TOLERANCE,
           host="C++ CLI (build/torchedge_run), no Python", child_args=("--kernels", "optimized")),
    # torchedge-int8's quantized model, unfused (quantize/dequantize form), int8
    # through the XNNPACK delegate: the comparison with it stays visible.
    Config("torchedge-int8-xnnpack", "torchedge", "torchedge int8 (PT2E) + XNNPACK delegate",
           "pte_int8_xnnpack", "torchedge_cli", "native", precision="int8",
           tolerance=INT8_TOLERANCE, host="C++ CLI (build/torchedge_run), no Python",
           child_args=("--kernels", "optimized")),
    Config("executorch-xnnpack-int8", "peer", "upstream ExecuTorch + XNNPACK, XNNPACKQuantizer int8",
           "executorch_pte_int8", "run_executorch.py", "peers", precision="int8",
           tolerance=INT8_TOLERANCE, host="Python + torch + executorch pybindings"),
    Config("onnxruntime-int8", "peer", "ONNX Runtime, quantize_static int8 (QDQ, per-channel)",
           "onnx_int8", "run_onnxruntime.py", "peers", precision="int8", tolerance=INT8_TOLERANCE,
           host="Python + numpy + onnxruntime"),
)

# Opt-in (named with --configs, not in the default "all"): dynamic int8 linear
# layers for transformers (activations quantized per call, int8 per-channel
# weights; other ops float), torchedge's fused int8 GEMM op against ONNX
# Runtime's quantize_dynamic and upstream ExecuTorch's XNNPACKQuantizer
# dynamic config. E.g. make bench BENCH_ARGS="--models bert_minilm --configs
# torchedge-optimized torchedge-int8-dynamic onnxruntime-int8-dynamic
# executorch-xnnpack-int8-dynamic".
OPTIONAL_CONFIGS: tuple[Config, ...] = (
    Config("torchedge-int8-dynamic", "torchedge",
           "torchedge dynamic int8 linear (linear_dynamic_int8), optimized kernels",
           "pte_int8_dynamic", "torchedge_cli", "native", precision="int8",
           tolerance=INT8_TOLERANCE, host="C++ CLI (build/torchedge_run), no Python",
           child_args=("--kernels", "optimized")),
    Config("onnxruntime-int8-dynamic", "peer",
           "ONNX Runtime, quantize_dynamic int8 (per-channel, reduce_range)", "onnx_int8_dynamic",
           "run_onnxruntime.py", "peers", precision="int8", tolerance=INT8_TOLERANCE,
           host="Python + numpy + onnxruntime"),
    Config("executorch-xnnpack-int8-dynamic", "peer",
           "upstream ExecuTorch + XNNPACK, XNNPACKQuantizer dynamic int8 (per-channel)",
           "executorch_pte_int8_dynamic", "run_executorch.py", "peers", precision="int8",
           tolerance=INT8_TOLERANCE, host="Python + torch + executorch pybindings"),
)

# Opt-in: the same float32 program through every load path (the default
# torchedge-optimized configuration mmaps the file). Each must run as fast as
# the others: aligned prepacked weights whatever the path, e.g.
# make bench BENCH_ARGS="--models mobilenet_v2 bert_minilm resnet18 --threads 1
# --configs torchedge-optimized torchedge-load-file torchedge-load-bytes
# torchedge-load-buffer-offset8 torchedge-python-path torchedge-python-bytes".
_CLI_HOST = "C++ CLI (build/torchedge_run), no Python"
LOAD_PATH_CONFIGS: tuple[Config, ...] = (
    Config("torchedge-load-file", "torchedge", "torchedge, file read into memory (--load file)",
           "pte", "torchedge_cli", "native", host=_CLI_HOST, child_args=("--load", "file")),
    Config("torchedge-load-bytes", "torchedge", "torchedge, Module(data, size) (--load bytes)",
           "pte", "torchedge_cli", "native", host=_CLI_HOST, child_args=("--load", "bytes")),
    Config("torchedge-load-buffer-offset8", "torchedge",
           "torchedge, BufferDataLoader over a buffer 8 bytes past 64-byte alignment",
           "pte", "torchedge_cli", "native", host=_CLI_HOST,
           child_args=("--load", "buffer", "--buffer-offset", "8")),
    Config("torchedge-python-path", "torchedge", "torchedge Python runtime, load(path)", "pte",
           "run_torchedge_python.py", "product", host="Python + torch + torchedge",
           child_args=("--source", "path")),
    Config("torchedge-python-bytes", "torchedge", "torchedge Python runtime, load(bytes)", "pte",
           "run_torchedge_python.py", "product", host="Python + torch + torchedge",
           child_args=("--source", "bytes")),
)
OPTIONAL_CONFIGS = OPTIONAL_CONFIGS + LOAD_PATH_CONFIGS

# Opt-in: the cost of tracing. torchedge-optimized runs with no tracer (the
# executor's untraced loop); this runs the same program with the ETDump tracer
# timing every instruction of the timed runs into its caller buffer (written to
# /dev/null after them: serialization is not timed). E.g. make bench
# BENCH_ARGS="--models mobilenet_v2 --configs torchedge-optimized torchedge-etdump".
OPTIONAL_CONFIGS = OPTIONAL_CONFIGS + (
    Config("torchedge-etdump", "torchedge",
           "torchedge, optimized kernels, ETDump tracing on (torchedge_run --etdump)", "pte",
           "torchedge_cli", "native", host=_CLI_HOST,
           child_args=("--kernels", "optimized", "--etdump", "/dev/null")),
)

# Opt-in: the Vulkan GPU delegate (docs/vulkan.md); CPU kernels run what it
# does not take. On a machine without a GPU the device is Mesa's lavapipe,
# which runs the shaders on the CPU: those rows are CPU-emulated, not GPU
# numbers (the report's Delegation section names the device). E.g.
# make bench BENCH_ARGS="--models mobilenet_v2 --configs torchedge-optimized torchedge-vulkan".
OPTIONAL_CONFIGS = OPTIONAL_CONFIGS + (
    Config("torchedge-vulkan", "torchedge",
           "torchedge, Vulkan delegate (on lavapipe: CPU-emulated, not GPU numbers)",
           "pte_vulkan", "torchedge_cli", "native", threads_apply=False,
           host="C++ CLI (build/torchedge_run), no Python; Vulkan driver",
           child_args=("--kernels", "optimized")),
    # force_fp16: float32 in and out, float16 tensors and shader variants on
    # the device (docs/vulkan.md; float32 where the device lacks float16).
    Config("torchedge-vulkan-fp16", "torchedge",
           "torchedge, Vulkan delegate computing in float16 (force_fp16; on lavapipe: "
           "CPU-emulated, not GPU numbers)",
           "pte_vulkan_fp16", "torchedge_cli", "native", precision="fp16", threads_apply=False,
           host="C++ CLI (build/torchedge_run), no Python; Vulkan driver",
           tolerance=FLOAT16_TOLERANCE, child_args=("--kernels", "optimized")),
)


# The peers the ratio table compares the best torchedge configuration against.
RATIO_PEERS: tuple[str, ...] = ("onnxruntime", "executorch-xnnpack", "eager",
                                 "onnxruntime-int8", "executorch-xnnpack-int8",
                                 "onnxruntime-int8-dynamic", "executorch-xnnpack-int8-dynamic")


def by_name(names: list[str] | None) -> list[Config]:
    """The configurations named (all of CONFIGS when `names` is empty; the
    OPTIONAL_CONFIGS only by name), in table order."""
    if not names:
        return list(CONFIGS)
    known = {c.name: c for c in CONFIGS + OPTIONAL_CONFIGS}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown configuration(s) {unknown}; known: {', '.join(known)}")
    return [c for c in CONFIGS + OPTIONAL_CONFIGS if c.name in names]
