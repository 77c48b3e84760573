"""Fixtures of the MiniLM tests: the bundled checkpoint, its tokenizer file,
and one float32 and one int8 export per test session."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session")
def minilm_dir():
    from torchedge.embedding import bundled_minilm

    return bundled_minilm()


@pytest.fixture(scope="session")
def hf_tokenizer(minilm_dir):
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(minilm_dir / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


@pytest.fixture(scope="session")
def tokenizer_file(minilm_dir, tmp_path_factory):
    from torchedge.llm.tokenizer_file import write_tokenizer_gguf_from_hf

    return write_tokenizer_gguf_from_hf(minilm_dir, tmp_path_factory.mktemp("tok") / "minilm.tokenizer.gguf")


@pytest.fixture(scope="session")
def exported(tmp_path_factory):
    """{None: float32 ExportResult, "int8": dynamic int8 ExportResult}."""
    from torchedge.embedding import export

    out = tmp_path_factory.mktemp("minilm")
    return {q: export(out=out / f"minilm-{q or 'fp32'}.pte", quantize=q) for q in (None, "int8")}
