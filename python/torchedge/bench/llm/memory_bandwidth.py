"""This host's memory read bandwidth, the ceiling for LLM decode (every
token reads all the weights once).

The product's own yardstick is build/memory_bandwidth (the 4-bit linear
kernels' bench folder; 256-bit loads on 1 and 2 threads); the harness reads
its lines with parse_tool_output. Where it is not built, this module is the
fallback child:

    python -m torchedge.bench.llm.memory_bandwidth --threads 2

printing one JSON line: {"threads", "buffer_mib", "read_gb_s", "copy_gb_s"}.
read: torch.sum over a float32 buffer 16x the size of this host's L3 (the
sum's arithmetic is far cheaper than its loads, so it runs at the speed of
memory); best of several passes. copy: Tensor.copy_ between two such
buffers, counting bytes read plus bytes written. Measured in its own process
so the timed buffers are never resident in the harness.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

PASSES = 7
_TOOL_LINE = re.compile(r"^(\d+) threads? ?: +([0-9.]+) GB/s over (\d+) MiB, +([0-9.]+) GB/s over (\d+) MiB",
                        re.MULTILINE)


def parse_tool_output(text: str) -> dict[int, dict]:
    """build/memory_bandwidth's lines, by thread count:
    {"read_gb_s", "buffer_mib", "cached_read_gb_s"}."""
    return {int(m.group(1)): {"read_gb_s": float(m.group(2)), "buffer_mib": int(m.group(3)),
                              "cached_read_gb_s": float(m.group(4)), "source": "build/memory_bandwidth"}
            for m in _TOOL_LINE.finditer(text)}


def measure(threads: int, buffer_mib: int) -> dict:
    import torch

    torch.set_num_threads(threads)
    elements = buffer_mib * (1 << 20) // 4
    src = torch.ones(elements, dtype=torch.float32)
    dst = torch.empty_like(src)
    nbytes = src.numel() * src.element_size()
    read_s, copy_s = [], []
    src.sum()
    dst.copy_(src)
    for _ in range(PASSES):
        start = time.perf_counter()
        src.sum()
        read_s.append(time.perf_counter() - start)
        start = time.perf_counter()
        dst.copy_(src)
        copy_s.append(time.perf_counter() - start)
    return {"threads": threads, "buffer_mib": buffer_mib, "source": "torch.sum",
            "read_gb_s": nbytes / min(read_s) / 1e9, "copy_gb_s": 2 * nbytes / min(copy_s) / 1e9}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--buffer-mib", type=int, default=512)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.threads, args.buffer_mib)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
