"""VulkanBackend: the ahead-of-time half of the "VulkanBackend" delegate."""

from __future__ import annotations

from torchedge.backends.backend_details import (
    BackendDetails, CompileSpec, DelegateSubgraph, PreprocessResult)


class VulkanBackend(BackendDetails):
    """preprocess() lowers a partition to the "TVK1" blob (blob_writer.py).

    The runtime half (backends/vulkan/, registered under the same id)
    validates the blob, builds the pool, pipelines and command buffer once at
    load and replays the command buffer per run. Each op carries a debug
    handle; the returned map names the FX nodes of each, for the ETRecord.
    No compile specs are read.
    """

    backend_id = "VulkanBackend"

    @classmethod
    def preprocess(cls, subgraph: DelegateSubgraph,
                   compile_specs: list[CompileSpec]) -> PreprocessResult:
        from torchedge.backends.vulkan.lowering import lower_subgraph

        writer = lower_subgraph(subgraph)
        return PreprocessResult(writer.serialize(), dict(writer.debug_handle_map))
