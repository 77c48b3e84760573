"""The tokenizer file written beside an exported .pte.

The C++ runner reads its tokenizer from GGUF metadata (extension/llm/tokenizer).
`export(..., out="m.pte")` writes `m.tokenizer.gguf`: a GGUF with no tensors
holding the source's `tokenizer.*` keys (vocabulary, merges, token types,
special token ids, pre-tokenizer name, chat template) and the general and
architecture scalars, about 1-2 MB instead of the whole checkpoint, so a
.pte and its tokenizer travel together.

A Hugging Face tokenizer.json converts too: byte-level BPE (model "gpt2")
and WordPiece (model "bert": BertNormalizer flags, BertPreTokenizer, the
[CLS] ... [SEP] post-processor and the truncation length; keys in
WORDPIECE_KEYS and extension/llm/tokenizer/gguf_tokenizer.h).
"""

from __future__ import annotations

from pathlib import Path

KEEP_PREFIXES = ("tokenizer.", "general.")


def tokenizer_path_for(pte_path: Path | str) -> Path:
    """m.pte -> m.tokenizer.gguf"""
    path = Path(pte_path)
    return path.with_name(path.stem + ".tokenizer.gguf")


def write_tokenizer_gguf(source: Path | str, destination: Path | str) -> Path:
    """Copies the tokenizer (and general/architecture scalar) keys of GGUF
    `source` into a tensor-free GGUF at `destination`; returns it."""
    import gguf

    reader = gguf.GGUFReader(str(source))
    arch_field = reader.fields.get("general.architecture")
    arch = arch_field.contents() if arch_field is not None else "llama"
    writer = gguf.GGUFWriter(str(destination), arch)
    for key, field in reader.fields.items():
        if key.startswith("GGUF.") or key == "general.architecture":
            continue  # the header fields and the arch the writer adds itself
        scalar_arch_key = key.startswith(f"{arch}.") and field.types[0] != gguf.GGUFValueType.ARRAY
        if not (key.startswith(KEEP_PREFIXES) or scalar_arch_key):
            continue
        vtype = field.types[0]
        sub_type = field.types[-1] if vtype == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(key, field.contents(), vtype, sub_type=sub_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(destination)


def _special_text(value) -> str | None:
    """A tokenizer_config.json special-token entry: a string or {"content": ...}."""
    if isinstance(value, dict):
        return value.get("content")
    return value if isinstance(value, str) else None


def _pre_tokenizer_name(spec: dict | None) -> str:
    """The GGUF pre-tokenizer name of a tokenizer.json pre_tokenizer, as the
    C++ tokenizer knows them: plain byte-level (gpt2), or byte-level after an
    individual-digit split (smollm)."""
    from torchedge.errors import CheckpointError

    steps = spec.get("pretokenizers", []) if spec and spec.get("type") == "Sequence" else [spec]
    kinds = [(s or {}).get("type") for s in steps]
    if kinds == ["ByteLevel"] and steps[0].get("use_regex", True):
        return "gpt2"
    if kinds == ["Digits", "ByteLevel"] and steps[0].get("individual_digits"):
        return "smollm"
    raise CheckpointError(f"tokenizer.json: pre-tokenizer {kinds} is not supported (byte-level, or "
                          "individual digits then byte-level)")


def _vocabulary(model: dict, spec: dict, spec_file) -> tuple[dict, dict, list[str]]:
    """(text -> id, added tokens by text, tokens by id) of a tokenizer.json
    model and its added tokens; every id from 0 to the largest must be used."""
    ids = dict(model.get("vocab", {}))
    added = {t["content"]: t for t in spec.get("added_tokens", [])}
    ids.update({content: t["id"] for content, t in added.items()})
    count = max(ids.values()) + 1
    tokens: list = [None] * count
    for text, index in ids.items():
        tokens[index] = text
    if any(t is None for t in tokens):
        raise CheckpointError(f"{spec_file}: the vocabulary has gaps (ids 0..{count - 1} are not all used)")
    return ids, added, tokens


def write_tokenizer_gguf_from_hf(directory: Path | str, destination: Path | str) -> Path:
    """The tokenizer of a Hugging Face checkpoint directory (tokenizer.json,
    tokenizer_config.json, chat_template.jinja) as a tensor-free GGUF with the
    keys write_tokenizer_gguf copies, for byte-level BPE and WordPiece tokenizers.
    CheckpointError naming what is missing or unsupported."""
    import json

    import gguf

    from torchedge.errors import CheckpointError

    directory = Path(directory)
    spec_file = directory / "tokenizer.json"
    if not spec_file.is_file():
        raise CheckpointError(f"{directory}: no tokenizer.json")
    spec = json.loads(spec_file.read_text(encoding="utf-8"))
    model = spec.get("model", {})
    if model.get("type") == "WordPiece":
        return _write_wordpiece(directory, spec, destination)
    decoder = (spec.get("decoder") or {}).get("type")
    if model.get("type") != "BPE" or decoder != "ByteLevel":
        raise CheckpointError(f"{spec_file}: only byte-level BPE and WordPiece tokenizers are supported, got model "
                              f"{model.get('type')} with decoder {decoder}")
    pre = _pre_tokenizer_name(spec.get("pre_tokenizer"))
    ids, added, tokens = _vocabulary(model, spec, spec_file)
    types = [(3 if added[t].get("special") else 4) if t in added else 1 for t in tokens]
    merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    config_file = directory / "tokenizer_config.json"
    config = json.loads(config_file.read_text(encoding="utf-8")) if config_file.is_file() else {}
    template_file = directory / "chat_template.jinja"
    template = template_file.read_text(encoding="utf-8") if template_file.is_file() else config.get("chat_template")

    writer = gguf.GGUFWriter(str(destination), "llama")
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre(pre)
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    for key, adder in (("bos_token", writer.add_bos_token_id), ("eos_token", writer.add_eos_token_id),
                       ("pad_token", writer.add_pad_token_id), ("unk_token", writer.add_unk_token_id)):
        text = _special_text(config.get(key))
        if text is not None and text in ids:
            adder(ids[text])
    writer.add_add_bos_token(bool(config.get("add_bos_token", False)))
    if isinstance(template, str) and template:
        writer.add_chat_template(template)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(destination)


# torchedge's keys for a WordPiece tokenizer (llama.cpp's model name "bert"
# and id keys; the normalizer, WordPiece and truncation keys are ours).
WORDPIECE_KEYS = {
    "clean_text": "tokenizer.bert.clean_text",
    "handle_chinese_chars": "tokenizer.bert.handle_chinese_chars",
    "strip_accents": "tokenizer.bert.strip_accents",
    "lowercase": "tokenizer.bert.lowercase",
    "prefix": "tokenizer.wordpiece.continuing_subword_prefix",
    "max_chars": "tokenizer.wordpiece.max_input_chars_per_word",
    "max_length": "tokenizer.truncation.max_length",
}


def _read_json(path: Path) -> dict:
    import json

    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def wordpiece_max_length(directory: Path | str) -> int:
    """The length a BERT checkpoint's inputs are truncated to, special tokens
    included: sentence-transformers' max_seq_length (sentence_bert_config.json)
    if given, else tokenizer_config.json's model_max_length, each capped by
    the model's max_position_embeddings (512 when config.json lacks it)."""
    directory = Path(directory)
    positions = int(_read_json(directory / "config.json").get("max_position_embeddings", 512))
    for value in (_read_json(directory / "sentence_bert_config.json").get("max_seq_length"),
                  _read_json(directory / "tokenizer_config.json").get("model_max_length")):
        if isinstance(value, (int, float)) and 2 < value < 1_000_000:
            return min(int(value), positions)
    return positions


def _wordpiece_special_ids(spec: dict, spec_file: Path) -> tuple[int, int]:
    """([CLS], [SEP]) ids of a BERT post-processor: TemplateProcessing with
    single = [CLS] $A [SEP], or BertProcessing."""
    from torchedge.errors import CheckpointError

    post = spec.get("post_processor") or {}
    if post.get("type") == "BertProcessing":
        return int(post["cls"][1]), int(post["sep"][1])
    if post.get("type") == "TemplateProcessing":
        single = post.get("single", [])
        shape = ["SpecialToken" if "SpecialToken" in p else "Sequence" for p in single]
        if shape == ["SpecialToken", "Sequence", "SpecialToken"]:
            specials = post.get("special_tokens", {})
            first, last = (single[0]["SpecialToken"]["id"], single[2]["SpecialToken"]["id"])
            return int(specials[first]["ids"][0]), int(specials[last]["ids"][0])
    raise CheckpointError(f"{spec_file}: post-processor {post.get('type')} is not supported "
                          "(BertProcessing, or TemplateProcessing '[CLS] $A [SEP]')")


def _write_wordpiece(directory: Path, spec: dict, destination: Path | str) -> Path:
    import gguf

    from torchedge.errors import CheckpointError

    spec_file = directory / "tokenizer.json"
    model = spec["model"]
    normalizer = spec.get("normalizer") or {}
    pre = (spec.get("pre_tokenizer") or {}).get("type")
    if normalizer.get("type") != "BertNormalizer" or pre != "BertPreTokenizer":
        raise CheckpointError(f"{spec_file}: WordPiece needs BertNormalizer and BertPreTokenizer, got "
                              f"{normalizer.get('type')} and {pre}")
    ids, added, tokens = _vocabulary(model, spec, spec_file)
    unk = model.get("unk_token", "[UNK]")
    if unk not in ids:
        raise CheckpointError(f"{spec_file}: the unknown token {unk!r} is not in the vocabulary")
    cls_id, sep_id = _wordpiece_special_ids(spec, spec_file)
    types = [(3 if added[t].get("special") else 4) if t in added else 1 for t in tokens]
    lowercase = bool(normalizer.get("lowercase", True))
    strip = normalizer.get("strip_accents")
    strip_accents = lowercase if strip is None else bool(strip)
    config = _read_json(directory / "tokenizer_config.json")

    writer = gguf.GGUFWriter(str(destination), "bert")
    writer.add_tokenizer_model("bert")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_unk_token_id(ids[unk])
    writer.add_bos_token_id(cls_id)
    writer.add_sep_token_id(sep_id)
    for key, adder in (("pad_token", writer.add_pad_token_id), ("mask_token", writer.add_mask_token_id)):
        text = _special_text(config.get(key))
        if text is not None and text in ids:
            adder(ids[text])
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(True)
    writer.add_bool(WORDPIECE_KEYS["clean_text"], bool(normalizer.get("clean_text", True)))
    writer.add_bool(WORDPIECE_KEYS["handle_chinese_chars"], bool(normalizer.get("handle_chinese_chars", True)))
    writer.add_bool(WORDPIECE_KEYS["strip_accents"], strip_accents)
    writer.add_bool(WORDPIECE_KEYS["lowercase"], lowercase)
    writer.add_string(WORDPIECE_KEYS["prefix"], model.get("continuing_subword_prefix", "##"))
    writer.add_uint32(WORDPIECE_KEYS["max_chars"], int(model.get("max_input_chars_per_word", 100)))
    writer.add_uint32(WORDPIECE_KEYS["max_length"], wordpiece_max_length(directory))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return Path(destination)
