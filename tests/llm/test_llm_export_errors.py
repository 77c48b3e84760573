"""torchedge.llm.export rejects bad sources with errors that name the fault."""

from __future__ import annotations

import pytest
import torch
import transformers

import torchedge.llm as llm
from tiny_llama import tiny_llama
from torchedge.errors import ExportError
from torchedge.llm.export import build_decoder


def test_a_truncated_gguf_is_an_export_error(tmp_path):
    source = llm.bundled_smollm2()
    truncated = tmp_path / "truncated.gguf"
    with open(source, "rb") as f:
        truncated.write_bytes(f.read(300_000))  # the header, part of the vocabulary
    with pytest.raises(ExportError, match="truncated.gguf: not a readable GGUF file"):
        llm.export(truncated, out=tmp_path / "x.pte")
    assert not (tmp_path / "x.pte").exists()


def test_a_file_that_is_not_gguf_is_an_export_error(tmp_path):
    bogus = tmp_path / "bogus.gguf"
    bogus.write_bytes(b"not a gguf file at all" * 10)
    with pytest.raises(ExportError, match="bogus.gguf: not a readable GGUF file"):
        llm.export(bogus)


def test_a_missing_source_is_an_export_error(tmp_path):
    with pytest.raises(ExportError, match="no such GGUF file"):
        llm.export(tmp_path / "missing.gguf")
    with pytest.raises(ExportError, match="expected a .gguf file or a checkpoint directory"):
        llm.export(tmp_path)


def test_an_unsupported_architecture_is_named():
    config = transformers.GPT2Config(n_layer=1, n_embd=32, n_head=2, vocab_size=64)
    with pytest.raises(ExportError, match="GPT2LMHeadModel is not supported"):
        build_decoder(transformers.GPT2LMHeadModel(config))


def test_options_are_checked():
    model = tiny_llama()
    with pytest.raises(ValueError, match="exceeds the model's max_position_embeddings"):
        build_decoder(model, max_context=100_000)
    with pytest.raises(ValueError, match="quantize must be one of"):
        build_decoder(model, quantize="int3")
    with pytest.raises(ValueError, match="out must name a .pte file"):
        llm.export(model, out="model.bin")


def test_the_callers_model_is_not_modified():
    model = tiny_llama()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    build_decoder(model, quantize="8da4w", max_context=32)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items())
    assert type(model.model.layers[0].self_attn.q_proj) is torch.nn.Linear


def test_a_checkpoint_directory_exports_like_the_model(tmp_path):
    model = tiny_llama(seed=6, architecture="qwen2")
    model.save_pretrained(tmp_path / "checkpoint")
    pte = llm.export(tmp_path / "checkpoint", out=tmp_path / "qwen2.pte", quantize=None, max_context=32,
                     max_prefill=8, full_logits=True)
    import torchedge

    program = torchedge.runtime.load(pte.buffer)
    ids = torch.tensor([[5, 9, 17, 33]])
    with torch.no_grad():
        expected = model(ids).logits
    assert ((program.forward(ids, torch.tensor([0])) - expected).abs().max() / expected.abs().max()) < 1e-4
