"""Backend delegation: hand supported subgraphs to a backend ahead of time.

    edge = torchedge.to_edge(ep).to_backend(SomePartitioner())
    print(edge.delegation_report)

A Partitioner decides, node by node (seeing dtypes, shapes and attributes),
what its backend supports; to_backend fuses each connected group of
supported nodes into one partition, asks the backend's `preprocess` for a
blob, and replaces the group with a call to a LoweredModule. The emitter
writes that call as an ET12 DelegateCall with the blob in a segment; the
runtime hands the blob to the backend registered under the same id.
"""

from torchedge.backends.backend_details import (
    BackendDetails, CompileSpec, DelegateSubgraph, PreprocessResult)
from torchedge.backends.lowered_module import LoweredModule
from torchedge.backends.partitioner import DelegationReport, Partitioner
from torchedge.backends.to_backend import to_backend

__all__ = [
    "BackendDetails",
    "CompileSpec",
    "DelegateSubgraph",
    "DelegationReport",
    "LoweredModule",
    "Partitioner",
    "PreprocessResult",
    "to_backend",
]
