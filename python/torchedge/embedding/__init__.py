"""Sentence embeddings from text with no Python at run time.

    from torchedge import embedding
    result = embedding.export(out="minilm.pte")        # bundled all-MiniLM-L6-v2
    embedder = embedding.Embedder(result.pte)          # C++ tokenizer + runtime
    vectors = embedder.encode(["A cat sits.", "A dog runs."])   # [2, 384] float32
    vectors @ vectors.T                                # cosine similarities

The C++ side (extension/embedding, CLI torchedge_embed) tokenizes with the
WordPiece tokenizer of extension/llm/tokenizer and runs the program; the
Embedder calls exactly that code through the bindings. docs/embeddings.md.
"""

from torchedge.embedding.export import ExportResult, export
from torchedge.embedding.model import SentenceEmbedding, bundled_minilm, mean_pool_normalize

__all__ = ["Embedder", "ExportResult", "SentenceEmbedding", "bundled_minilm", "export",
           "mean_pool_normalize"]


def __getattr__(name: str):
    # The Embedder needs the C++ bindings; export works without them.
    if name == "Embedder":
        from torchedge.embedding.embedder import Embedder

        return Embedder
    raise AttributeError(f"module 'torchedge.embedding' has no attribute {name!r}")
