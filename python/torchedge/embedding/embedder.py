"""Sentence embeddings through the C++ library (extension/embedding): the
WordPiece tokenizer and the runtime that the torchedge_embed CLI runs, so
what Python measures is what runs without Python.

    embedder = Embedder("minilm.pte")                  # minilm.tokenizer.gguf beside it
    vectors = embedder.encode(["A cat sits.", "A dog runs."])   # torch.float32 [2, 384]
    embedder.similarity(vectors)                       # cosine matrix [2, 2]
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence, Union

import torch

from torchedge import _C
from torchedge.llm.tokenizer_file import tokenizer_path_for
from torchedge.runtime import _translate

Text = Union[str, bytes]


class Embedder:
    """A loaded sentence-embedding program and its tokenizer.

    model: a .pte from torchedge.embedding.export; tokenizer: its tokenizer
    file (default m.tokenizer.gguf beside m.pte). max_length: truncate to
    fewer tokens than the file says (0 / None: the file's). portable: run the
    portable reference kernels instead of the optimized ones. Raises
    TorchEdgeRuntimeError (NotFound naming a missing file, InvalidProgram for
    a file that is not an embedding model or a BERT tokenizer)."""

    def __init__(self, model: Union[str, os.PathLike], tokenizer: Optional[Union[str, os.PathLike]] = None,
                 *, max_length: Optional[int] = None, portable: bool = False) -> None:
        self.model_path = Path(model)
        self.tokenizer_path = Path(tokenizer) if tokenizer is not None else tokenizer_path_for(model)
        try:
            self._native = _C.Embedder(str(self.model_path), str(self.tokenizer_path),
                                       int(max_length or 0), bool(portable))
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    @property
    def max_length(self) -> int:
        """Tokens per sentence after truncation, [CLS] and [SEP] included."""
        return self._native.max_length

    def tokenize(self, text: Text) -> list[int]:
        """[CLS] ids [SEP] of `text` as the C++ library computes them."""
        try:
            return self._native.tokenize(text)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None

    def encode(self, sentences: Sequence[Text]) -> torch.Tensor:
        """Unit-length embeddings, float32 [len(sentences), dimension].
        ValueError for an empty list or a lone string (pass [text])."""
        if isinstance(sentences, (str, bytes)):
            raise ValueError("encode takes a list of sentences; wrap one sentence as [text]")
        sentences = list(sentences)
        if not sentences:
            raise ValueError("encode needs at least one sentence")
        try:
            data, dimension = self._native.embed_all(sentences)
        except _C.TorchEdgeError as e:
            raise _translate(e) from None
        return torch.frombuffer(bytearray(data), dtype=torch.float32).reshape(len(sentences), dimension)

    @staticmethod
    def similarity(a: torch.Tensor, b: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Cosine similarity matrix of unit-length embeddings (a @ b.T)."""
        return a @ (a if b is None else b).T
