"""Per-node times of an ONNX model under ONNX Runtime (CPU), to compare with
`torchedge_run model.pte --profile` layer by layer.

    .venv-peers/bin/python scripts/ort_layer_profile.py MODEL.onnx INPUT.npy \
        [--threads 1] [--runs 20] [--top 60]

MODEL.onnx: e.g. out/<bench>/artifacts/resnet50/model.onnx, written by
`python -m torchedge.bench`; INPUT.npy: the model's input (the same
artifacts folder has input_0.npy). Prints the median of the last `--runs`
runs per node, slowest first, with input and output shapes. Needs
onnxruntime (the peers' venv, scripts/setup_peers.sh), so it is not part of
the product or its tests.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import tempfile
import time

import numpy as np
import onnxruntime as ort


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("input")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--top", type=int, default=60)
    args = parser.parse_args()

    options = ort.SessionOptions()
    options.intra_op_num_threads = args.threads
    options.inter_op_num_threads = 1
    options.enable_profiling = True
    options.profile_file_prefix = os.path.join(tempfile.mkdtemp(), "ort_profile")
    session = ort.InferenceSession(args.model, options, providers=["CPUExecutionProvider"])
    x = np.load(args.input)
    feed = {session.get_inputs()[0].name: x}
    for _ in range(10):  # warm-up
        session.run(None, feed)
    latencies = []
    for _ in range(args.runs):
        start = time.perf_counter()
        session.run(None, feed)
        latencies.append(time.perf_counter() - start)
    print(f"latency over {args.runs} runs: min {min(latencies) * 1e3:.3f} ms, "
          f"median {np.median(latencies) * 1e3:.3f} ms")
    with open(session.end_profiling()) as f:
        events = json.load(f)
    per_node = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            per_node[e["name"]].append(e)
    rows = []
    for name, calls in per_node.items():
        durations = sorted(c["dur"] for c in calls[-args.runs:])
        first = calls[0]["args"]
        rows.append((durations[len(durations) // 2], first.get("op_name"), name,
                     first.get("input_type_shape"), first.get("output_type_shape")))
    rows.sort(key=lambda r: -r[0])
    print(f"sum of node medians: {sum(r[0] for r in rows)} us")
    for us, op, name, inputs, outputs in rows[:args.top]:
        shapes = [list(s.values())[0] for s in (inputs or [])]
        out = [list(s.values())[0] for s in (outputs or [])]
        print(f"{us:9d} us  {op:<12} {name[:40]:<40} {shapes[:2]} -> {out}")


if __name__ == "__main__":
    main()
