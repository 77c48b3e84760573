"""Real all-MiniLM-L6-v2 sentence embeddings, text to vector through the C++
tokenizer and runtime (torchedge.embedding.Embedder, the torchedge_embed
CLI), against the eager reference: transformers' BertModel on Hugging Face
tokenizers' ids, sentence-transformers' mean pooling and L2 normalization.
Cosine >= 0.9999 for float32 and >= 0.99 for dynamic int8 on every sentence."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from corpus import EMBEDDING_SENTENCES
from torchedge.embedding import Embedder, export
from torchedge.errors import CheckpointError
from torchedge.runtime import TorchEdgeRuntimeError

pytestmark = pytest.mark.slow  # exports the real checkpoint twice (about 30 s)

CLI = Path(__file__).resolve().parents[2] / "build" / "torchedge_embed"
FP32_MIN_COSINE = 0.9999
INT8_MIN_COSINE = 0.99


@pytest.fixture(scope="module")
def reference(minilm_dir, hf_tokenizer):
    """Eager embeddings of EMBEDDING_SENTENCES, written independently of
    torchedge.embedding: padded batch, truncation to 256 tokens."""
    from transformers import BertModel

    model = BertModel.from_pretrained(str(minilm_dir)).eval()
    hf_tokenizer.enable_truncation(256)
    hf_tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    try:
        encodings = hf_tokenizer.encode_batch(EMBEDDING_SENTENCES)
    finally:
        hf_tokenizer.no_padding()
        hf_tokenizer.no_truncation()
    ids = torch.tensor([e.ids for e in encodings])
    mask = torch.tensor([e.attention_mask for e in encodings])
    with torch.no_grad():
        hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
    weights = mask.unsqueeze(-1).float()
    pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
    return F.normalize(pooled, p=2, dim=1)


def _cosines(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.cosine_similarity(a.double(), b.double(), dim=1)


@pytest.mark.parametrize("quantize,bound", [(None, FP32_MIN_COSINE), ("int8", INT8_MIN_COSINE)])
def test_embeddings_match_eager(exported, reference, quantize, bound):
    assert len(EMBEDDING_SENTENCES) >= 20
    vectors = Embedder(exported[quantize].pte).encode(EMBEDDING_SENTENCES)
    assert vectors.shape == (len(EMBEDDING_SENTENCES), 384)
    cosines = _cosines(vectors, reference)
    print(f"{quantize or 'fp32'}: min cosine {cosines.min():.6f}, mean {cosines.mean():.6f} "
          f"over {len(cosines)} sentences")
    assert cosines.min() >= bound, EMBEDDING_SENTENCES[int(cosines.argmin())]
    assert torch.allclose(vectors.norm(dim=1), torch.ones(len(vectors)), atol=1e-5)


def test_padded_batch_in_the_runtime_equals_single_sentences(exported, reference, hf_tokenizer):
    """The program's batch and token dimensions are dynamic and padding is
    masked out of the mean: a padded batch gives each sentence's vector."""
    import torchedge.runtime

    program = torchedge.runtime.load(exported[None].pte)
    texts = EMBEDDING_SENTENCES[:3]
    rows = [hf_tokenizer.encode(t).ids for t in texts]
    width = max(map(len, rows))
    ids = torch.tensor([r + [0] * (width - len(r)) for r in rows])
    mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    batch = program.forward(ids, mask)
    assert _cosines(batch, reference[:3]).min() >= FP32_MIN_COSINE


def test_long_text_is_truncated_as_the_reference_truncates(exported, hf_tokenizer):
    embedder = Embedder(exported[None].pte)
    text = "Tokenizers cut long inputs; " * 120
    hf_tokenizer.enable_truncation(256)
    try:
        expected = hf_tokenizer.encode(text).ids
    finally:
        hf_tokenizer.no_truncation()
    assert embedder.max_length == 256
    assert embedder.tokenize(text) == expected and len(expected) == 256
    assert embedder.encode([text]).shape == (1, 384)
    short = Embedder(exported[None].pte, max_length=16)
    assert len(short.tokenize(text)) == 16


def _write_bpe_tokenizer(path: Path) -> None:
    import gguf

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_tokenizer_model("gpt2")
    writer.add_token_list(["a", "b", "ab"])
    writer.add_token_merges(["a b"])
    writer.add_bos_token_id(0)
    writer.add_eos_token_id(1)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_bad_input_gives_clear_errors(exported, tmp_path):
    pte = exported[None].pte
    with pytest.raises(TorchEdgeRuntimeError, match="NotFound.*missing.pte"):
        Embedder(tmp_path / "missing.pte", exported[None].tokenizer)
    with pytest.raises(TorchEdgeRuntimeError, match="NotFound.*nope.gguf"):
        Embedder(pte, tmp_path / "nope.gguf")
    bpe = tmp_path / "bpe.tokenizer.gguf"
    _write_bpe_tokenizer(bpe)
    with pytest.raises(TorchEdgeRuntimeError, match="InvalidProgram.*needs a BERT"):
        Embedder(pte, bpe)
    with pytest.raises(TorchEdgeRuntimeError, match="max_length 1000"):
        Embedder(pte, max_length=1000)
    embedder = Embedder(pte)
    with pytest.raises(ValueError, match="at least one sentence"):
        embedder.encode([])
    with pytest.raises(ValueError, match="list of sentences"):
        embedder.encode("one string")
    assert embedder.encode([""]).shape == (1, 384)  # [CLS] [SEP] alone still embeds
    with pytest.raises(CheckpointError, match="no such checkpoint"):
        export(tmp_path / "no-checkpoint", out=tmp_path / "x.pte")
    with pytest.raises(ValueError, match="quantize"):
        export(out=tmp_path / "x.pte", quantize="int4")
    with pytest.raises(ValueError, match="max_length"):
        export(out=tmp_path / "x.pte", max_length=100000)


def test_cli_prints_the_cosine_matrix(exported):
    if not CLI.is_file():
        pytest.fail(f"{CLI} is not built (make build)")
    texts = EMBEDDING_SENTENCES[:3]
    run = subprocess.run([str(CLI), "--model", str(exported[None].pte), *texts],
                         capture_output=True, text=True, check=False, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = [line for line in run.stdout.splitlines() if re.match(r"\[\s*\d+\]", line)]
    matrix = torch.tensor([[float(x) for x in row.split("]", 1)[1].split()[:3]] for row in rows])
    vectors = Embedder(exported[None].pte).encode(texts)
    assert torch.allclose(matrix, vectors @ vectors.T, atol=1e-3)
    assert "ms per sentence" in run.stdout
    bad = subprocess.run([str(CLI), "--model", str(exported[None].pte)], capture_output=True,
                         text=True, check=False, timeout=60)
    assert bad.returncode == 2 and "no sentences" in bad.stderr


def test_export_for_shorter_inputs_writes_that_length(tmp_path):
    result = export(out=tmp_path / "short.pte", max_length=32)
    embedder = Embedder(result.pte)
    assert result.max_length == embedder.max_length == 32
    assert len(embedder.tokenize("word " * 100)) == 32
    assert embedder.encode(["word " * 100]).shape == (1, 384)
