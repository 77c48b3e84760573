"""XnnpackBackend: the ahead-of-time half of the "XnnpackBackend" delegate."""

from __future__ import annotations

from torchedge.backends.backend_details import (
    BackendDetails, CompileSpec, DelegateSubgraph, PreprocessResult)
from torchedge.backends.xnnpack.lowering import lower_subgraph


class XnnpackBackend(BackendDetails):
    """preprocess() lowers a partition to the "TEX1" blob (blob_writer.py).

    The runtime half (backends/xnnpack/, registered under the same id)
    builds an XNNPACK subgraph from the blob once at load and runs it. No
    compile specs are read yet; the thread count is a runtime setting
    (torchedge._C.set_num_threads, torchedge_run --threads).

    Every blob node carries a debug handle (blob_writer.py); the returned
    debug_handle_map names the FX nodes of each, for the ETRecord.
    """

    backend_id = "XnnpackBackend"

    @classmethod
    def preprocess(cls, subgraph: DelegateSubgraph,
                   compile_specs: list[CompileSpec]) -> PreprocessResult:
        writer = lower_subgraph(subgraph)
        return PreprocessResult(writer.serialize(), dict(writer.debug_handle_map))
