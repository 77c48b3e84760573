"""The edge dialect: Core ATen, view-free, verified for the torchedge runtime."""

from torchedge.edge import return_types  # noqa: F401 (names torch.return_types for saved programs)
from torchedge.edge.program import EdgeProgram, to_edge
from torchedge.edge.verifier import verify_edge_program

__all__ = ["EdgeProgram", "to_edge", "verify_edge_program"]
