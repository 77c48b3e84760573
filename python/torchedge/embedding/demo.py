"""`make demo MODEL=minilm`: real all-MiniLM-L6-v2 sentence embeddings.

    python -m torchedge.embedding.demo [--out out] [--int8] [--threads N] ["sentence" ...]

Exports the bundled checkpoint (out/minilm.pte + out/minilm.tokenizer.gguf),
embeds the sentences with the C++ tokenizer and runtime (Embedder), prints
their cosine-similarity matrix and each sentence's cosine with the eager
reference (transformers' BertModel, Hugging Face tokenizers, mean pooling),
then runs the torchedge_embed CLI on the same sentences: text in, matrix
out, no Python.
"""

from __future__ import annotations

import argparse
import subprocess
import warnings
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[3]
CLI = REPO / "build" / "torchedge_embed"
SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "A man is riding a horse.",
    "A woman is playing violin.",
    "Un homme mange de la nourriture.",
    "Quantum computers use qubits instead of bits.",
]


def eager_reference(sentences: list[str]) -> torch.Tensor:
    """transformers + tokenizers, sentence-transformers' pooling."""
    from tokenizers import Tokenizer

    from torchedge.embedding.model import SentenceEmbedding, bundled_minilm

    directory = bundled_minilm()
    tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    encodings = tokenizer.encode_batch(sentences)
    ids = torch.tensor([e.ids for e in encodings])
    mask = torch.tensor([e.attention_mask for e in encodings])
    with torch.no_grad():
        return SentenceEmbedding.from_checkpoint(directory)(ids, mask)


def print_matrix(vectors: torch.Tensor, sentences: list[str]) -> None:
    matrix = vectors @ vectors.T
    for i, row in enumerate(matrix):
        print(f"[{i:2d}] " + " ".join(f"{x:6.3f}" for x in row.tolist()) + f"  {sentences[i][:50]}")


def main() -> None:
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sentences", nargs="*", help="sentences (default: a built-in set)")
    parser.add_argument("--out", default=str(REPO / "out"), help="where the .pte goes")
    parser.add_argument("--int8", action="store_true", help="dynamic int8 linear layers")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    sentences = args.sentences or SENTENCES

    from torchedge.embedding import Embedder, export

    name = "minilm-int8" if args.int8 else "minilm"
    result = export(out=Path(args.out) / f"{name}.pte", quantize="int8" if args.int8 else None)
    print(f"exported {result.pte} ({result.pte.stat().st_size / 1e6:.1f} MB) and {result.tokenizer}; "
          f"{result.dimension}-d embeddings, up to {result.max_length} tokens\n")

    vectors = Embedder(result.pte).encode(sentences)
    reference = eager_reference(sentences)
    cosines = torch.nn.functional.cosine_similarity(vectors.double(), reference.double(), dim=1)
    print("cosine similarity matrix (C++ tokenizer + runtime, via Python bindings):")
    print_matrix(vectors, sentences)
    print(f"\ncosine with eager PyTorch per sentence: min {cosines.min():.6f}, "
          f"mean {cosines.mean():.6f}\n")

    if not CLI.is_file():
        print(f"{CLI} is not built; run make build")
        return
    command = [str(CLI), "--model", str(result.pte), "--threads", str(args.threads),
               "--repeat", "5", *sentences]
    print("$ torchedge_embed --model " + str(result.pte) + " ... (no Python)")
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    print(run.stdout + run.stderr, end="")


if __name__ == "__main__":
    main()
