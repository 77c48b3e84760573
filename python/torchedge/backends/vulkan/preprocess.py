"""VulkanBackend: the ahead-of-time half of the "VulkanBackend" delegate."""

from __future__ import annotations

from torchedge.backends.backend_details import (
    BackendDetails, CompileSpec, DelegateSubgraph, PreprocessResult)


FORCE_FP16_KEY = "force_fp16"


class VulkanBackend(BackendDetails):
    """preprocess() lowers a partition to the "TVK1" blob (blob_writer.py).

    The runtime half (backends/vulkan/, registered under the same id)
    validates the blob, builds the pool, pipelines and command buffer once at
    load and replays the command buffer per run. Each op carries a debug
    handle; the returned map names the FX nodes of each, for the ETRecord.

    Compile spec FORCE_FP16_KEY (b"\\x01", set by VulkanPartitioner(
    force_fp16=True)) marks float32 partitions for float16 compute on the
    device (float32 at the delegate boundary; float32 where the device has
    no float16). A float16 partition is float16 regardless.
    """

    backend_id = "VulkanBackend"

    @classmethod
    def preprocess(cls, subgraph: DelegateSubgraph,
                   compile_specs: list[CompileSpec]) -> PreprocessResult:
        from torchedge.backends.vulkan.lowering import lower_subgraph

        force_fp16 = any(s.key == FORCE_FP16_KEY and s.value not in (b"", b"\x00")
                         for s in compile_specs)
        writer = lower_subgraph(subgraph, float16_compute=force_fp16)
        return PreprocessResult(writer.serialize(), dict(writer.debug_handle_map))
