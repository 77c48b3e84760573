"""The Vulkan GPU delegate (float32/float16 compute shaders), ahead-of-time half.

    from torchedge.backends.vulkan import VulkanPartitioner
    edge = torchedge.to_edge(ep).to_backend(VulkanPartitioner())
    print(edge.delegation_report)   # what stays on the CPU, and why

VulkanPartitioner picks the operators the delegate's shaders run;
VulkanBackend.preprocess writes each partition as a "TVK1" blob
(blob_writer.py) for the runtime backend registered as "VulkanBackend"
(backends/vulkan/, docs/vulkan.md).
"""

from torchedge.backends.vulkan.partitioner import VulkanPartitioner
from torchedge.backends.vulkan.preprocess import VulkanBackend

__all__ = ["VulkanBackend", "VulkanPartitioner"]
