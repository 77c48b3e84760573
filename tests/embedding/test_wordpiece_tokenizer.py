"""The C++ WordPiece tokenizer (extension/llm/tokenizer) against Hugging
Face `tokenizers` on the bundled all-MiniLM-L6-v2 tokenizer.json: exact ids
on a corpus of varied sentences, a sweep of every Basic Multilingual Plane
code point, and the converter's keys and errors."""

from __future__ import annotations

import json
import unicodedata

import gguf
import pytest

from corpus import corpus
from torchedge.errors import CheckpointError
from torchedge.llm.tokenizer import Tokenizer
from torchedge.llm.tokenizer_file import WORDPIECE_KEYS, write_tokenizer_gguf_from_hf

# Scripts whose every code point must tokenize exactly as the reference:
# Latin, Greek, Cyrillic, Armenian, Hebrew; CJK ideographs; kana; Hangul.
EXACT_RANGES = [(0x0000, 0x05FF), (0x4E00, 0x9FFF), (0x3040, 0x30FF), (0xAC00, 0xD7A3)]
# Code points whose Unicode properties changed between Python 3.11's Unicode
# 14 and the (older: marks, format characters; newer: lower case) versions
# in the reference's Rust crates tokenize differently: 114 in the BMP today
# (503 over all code points; rare marks, format characters, new letters).
MAX_VERSION_MISMATCHES = 150


@pytest.fixture(scope="module")
def ours(tokenizer_file):
    return Tokenizer.from_gguf(tokenizer_file)


def test_corpus_ids_match_hugging_face(ours, hf_tokenizer):
    texts = corpus()
    assert len(texts) >= 200
    expected = [e.ids for e in hf_tokenizer.encode_batch(texts)]
    got = ours.encode_batch(texts, add_bos=True, add_eos=True)
    mismatches = [(t, g, e) for t, g, e in zip(texts, got, expected) if g != e]
    assert not mismatches, f"{len(mismatches)} of {len(texts)} differ; first: {mismatches[0]}"


def test_every_bmp_code_point(ours, hf_tokenizer):
    code_points = [c for c in range(0x10000) if not 0xD800 <= c <= 0xDFFF]
    texts = ["a" + chr(c) + "b" for c in code_points]
    got = ours.encode_batch(texts, add_bos=True, add_eos=True)
    expected = [e.ids for e in hf_tokenizer.encode_batch(texts)]
    differ = [c for c, g, e in zip(code_points, got, expected) if g != e]
    in_exact = [hex(c) for c in differ if any(lo <= c <= hi for lo, hi in EXACT_RANGES)]
    assert not in_exact, f"code points of common scripts tokenize differently: {in_exact[:20]}"
    print(f"{len(differ)} BMP code points differ")
    assert len(differ) <= MAX_VERSION_MISMATCHES, (
        f"{len(differ)} code points differ (categories "
        f"{sorted({unicodedata.category(chr(c)) for c in differ})})")


def test_decode_matches_hugging_face(ours, hf_tokenizer):
    text = "Hello, world! Naïve CAFÉ costs $3.50, isn't it?"
    ids = ours.encode(text, add_bos=True, add_eos=True)
    assert ours.decode(ids) == hf_tokenizer.decode(ids, skip_special_tokens=False)
    assert ours.decode(ids, skip_special=True) == hf_tokenizer.decode(ids, skip_special_tokens=True)


def test_file_keys(tokenizer_file):
    reader = gguf.GGUFReader(str(tokenizer_file))
    fields = {k: f.contents() for k, f in reader.fields.items() if not k.startswith("GGUF.")}
    assert fields["tokenizer.ggml.model"] == "bert"
    assert len(fields["tokenizer.ggml.tokens"]) == 30522
    assert fields["tokenizer.ggml.bos_token_id"] == 101  # [CLS]
    assert fields["tokenizer.ggml.seperator_token_id"] == 102  # [SEP]
    assert fields["tokenizer.ggml.unknown_token_id"] == 100
    assert fields[WORDPIECE_KEYS["lowercase"]] is True
    assert fields[WORDPIECE_KEYS["strip_accents"]] is True  # null in tokenizer.json: as lowercase
    assert fields[WORDPIECE_KEYS["max_length"]] == 256  # sentence_bert_config.json
    assert fields[WORDPIECE_KEYS["max_chars"]] == 100
    assert len(reader.tensors) == 0


def test_cased_tokenizer_keeps_case_and_accents(minilm_dir, tmp_path, hf_tokenizer):
    spec = json.loads((minilm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    spec["normalizer"]["lowercase"] = False
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    from tokenizers import Tokenizer as HfTokenizer

    hf = HfTokenizer.from_file(str(tmp_path / "tokenizer.json"))
    hf.no_padding()
    ours = Tokenizer.from_gguf(write_tokenizer_gguf_from_hf(tmp_path, tmp_path / "t.gguf"))
    for text in ["Café CRÈME", "Hello World", "İstanbul Ωmega"]:
        assert ours.encode(text, add_bos=True, add_eos=True) == hf.encode(text).ids


def test_unsupported_tokenizer_json_is_a_checkpoint_error(minilm_dir, tmp_path):
    spec = json.loads((minilm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    spec["pre_tokenizer"] = {"type": "Whitespace"}
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(CheckpointError, match="BertPreTokenizer"):
        write_tokenizer_gguf_from_hf(tmp_path, tmp_path / "t.gguf")
    spec = json.loads((minilm_dir / "tokenizer.json").read_text(encoding="utf-8"))
    spec["post_processor"] = {"type": "ByteLevel"}
    (tmp_path / "tokenizer.json").write_text(json.dumps(spec), encoding="utf-8")
    with pytest.raises(CheckpointError, match="post-processor"):
        write_tokenizer_gguf_from_hf(tmp_path, tmp_path / "t.gguf")
