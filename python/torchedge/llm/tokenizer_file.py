"""The tokenizer file written beside an exported .pte.

The C++ runner reads its tokenizer from GGUF metadata (extension/llm/tokenizer).
`export(..., out="m.pte")` writes `m.tokenizer.gguf`: a GGUF with no tensors
holding the source's `tokenizer.*` keys (vocabulary, merges, token types,
special token ids, pre-tokenizer name, chat template) and the general and
architecture scalars, about 1-2 MB instead of the whole checkpoint, so a
.pte and its tokenizer travel together.
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


def write_tokenizer_gguf_from_hf(directory: Path | str, destination: Path | str) -> Path:
    """The tokenizer of a Hugging Face checkpoint directory (tokenizer.json,
    tokenizer_config.json, chat_template.jinja) as a tensor-free GGUF with the
    keys write_tokenizer_gguf copies, for byte-level BPE tokenizers.
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
    decoder = (spec.get("decoder") or {}).get("type")
    if model.get("type") != "BPE" or decoder != "ByteLevel":
        raise CheckpointError(f"{spec_file}: only byte-level BPE tokenizers are supported, got model "
                              f"{model.get('type')} with decoder {decoder}")
    pre = _pre_tokenizer_name(spec.get("pre_tokenizer"))
    ids = dict(model.get("vocab", {}))
    added = {t["content"]: t for t in spec.get("added_tokens", [])}
    ids.update({content: t["id"] for content, t in added.items()})
    count = max(ids.values()) + 1
    tokens: list[str | None] = [None] * count
    for text, index in ids.items():
        tokens[index] = text
    if any(t is None for t in tokens):
        raise CheckpointError(f"{spec_file}: the vocabulary has gaps (ids 0..{count - 1} are not all used)")
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
