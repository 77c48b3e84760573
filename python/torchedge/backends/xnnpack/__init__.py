"""The XNNPACK CPU delegate (float32, and int8 for PT2E-quantized programs), ahead-of-time half.

    from torchedge.backends.xnnpack import XnnpackPartitioner
    edge = torchedge.to_edge(ep).to_backend(XnnpackPartitioner())

XnnpackPartitioner picks the operators this XNNPACK (Debian's 2022-02-16
snapshot) can run; XnnpackBackend.preprocess writes each partition as a
"TEX1" blob (blob_writer.py) for the runtime backend registered as
"XnnpackBackend" (backends/xnnpack/).
"""

from torchedge.backends.xnnpack.partitioner import XnnpackPartitioner
from torchedge.backends.xnnpack.preprocess import XnnpackBackend

__all__ = ["XnnpackBackend", "XnnpackPartitioner"]
