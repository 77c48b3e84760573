"""Tokenizer files beside a .pte: a Hugging Face directory's tokenizer.json
becomes a GGUF the C++ tokenizer reads, encoding id for id as the Hugging Face
tokenizer of that directory does, and an exported checkpoint directory gets
its tokenizer file written."""

from __future__ import annotations

import json
import os

import pytest

import torchedge.llm as llm
from tiny_llama import tiny_llama
from torchedge.errors import CheckpointError
from torchedge.llm.tokenizer import Tokenizer
from torchedge.llm.tokenizer_file import tokenizer_path_for, write_tokenizer_gguf_from_hf

TEXTS = [
    "Hello, world! It's 2048 and we're testing 3.14159 digits.",
    "  leading spaces\tand\ttabs\n\nnew lines  ",
    "naïve café 日本語 🙂👍🏽 <|im_start|>user\nHi<|im_end|>",
    "def f(x):\n    return x ** 2  # square",
]


@pytest.fixture(scope="module")
def hf_directory(tmp_path_factory):
    from transformers import AutoTokenizer

    os.environ["HF_HUB_OFFLINE"] = "1"
    source = llm.bundled_smollm2()
    reference = AutoTokenizer.from_pretrained(str(source.parent), gguf_file=source.name)
    directory = tmp_path_factory.mktemp("hf_tokenizer")
    reference.save_pretrained(str(directory))
    return directory, reference


def test_tokenizer_json_encodes_as_hugging_face(hf_directory, tmp_path):
    directory, reference = hf_directory
    tokenizer = Tokenizer.from_gguf(str(write_tokenizer_gguf_from_hf(directory, tmp_path / "t.gguf")))
    for text in TEXTS:
        assert tokenizer.encode(text) == reference(text, add_special_tokens=False).input_ids, text
        assert tokenizer.decode(tokenizer.encode(text)) == text
    assert tokenizer.chat_template.startswith("{% for message in messages %}")
    assert tokenizer.eos_id == reference.convert_tokens_to_ids("<|im_end|>")


def test_an_exported_checkpoint_directory_gets_its_tokenizer(hf_directory, tmp_path):
    directory, _ = hf_directory
    model = tiny_llama(seed=7, vocab=49152, layers=1)
    model.save_pretrained(str(directory))
    out = tmp_path / "tiny.pte"
    llm.export(directory, out=out, quantize=None, max_context=32, max_prefill=8)
    assert tokenizer_path_for(out).is_file()
    text = llm.generate(out, "Hi", max_new_tokens=4, stop_at_end_of_turn=False)
    assert isinstance(text, str)


def test_an_unsupported_tokenizer_json_is_named(tmp_path):
    (tmp_path / "tokenizer.json").write_text(json.dumps({"model": {"type": "Unigram"},
                                                         "decoder": {"type": "Metaspace"}}))
    with pytest.raises(CheckpointError, match="only byte-level BPE and WordPiece tokenizers are supported"):
        write_tokenizer_gguf_from_hf(tmp_path, tmp_path / "t.gguf")
    (tmp_path / "tokenizer.json").write_text(json.dumps({"model": {"type": "WordPiece"},
                                                         "decoder": {"type": "WordPiece"}}))
    with pytest.raises(CheckpointError, match="WordPiece needs BertNormalizer"):
        write_tokenizer_gguf_from_hf(tmp_path, tmp_path / "t.gguf")
    with pytest.raises(CheckpointError, match="no tokenizer.json"):
        write_tokenizer_gguf_from_hf(tmp_path / "missing", tmp_path / "t.gguf")
