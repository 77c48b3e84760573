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
