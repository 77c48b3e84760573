"""Writes the fuzzers' seed corpora to DIR/<harness>/ (make fuzz calls it).

program, module: small programs covering the format's features (the built-in
small models, torch.cond jumps, dynamic shapes, mutable state, int8 and
4-bit linear layers, an XNNPACK delegate, several methods), each well under
the harness's max_len; xnnpack_blob: the delegate blobs of XNNPACK programs;
tokenizer: tensor-free tokenizer files (byte-level BPE; WordPiece when the
embedding work's converter is present).
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import torch
from torch import nn

import torchedge
from torchedge import models
from torchedge.backends import LoweredModule, to_backend
from torchedge.backends.xnnpack import XnnpackPartitioner

MAX_SEED_BYTES = 256 << 10


class _Small(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.fc = nn.Linear(4 * 4 * 4, 8)

    def forward(self, x):
        return torch.softmax(self.fc(torch.relu(self.conv(x)).flatten(1)), -1)


def _save(out: Path, name: str, data: bytes) -> None:
    if len(data) <= MAX_SEED_BYTES:
        (out / name).write_bytes(data)


def programs(out: Path) -> list[bytes]:
    seeds = []
    for name in models.available():
        try:
            spec = models.get(name)
            if sum(p.numel() for p in spec.module.parameters()) > 50_000:
                continue
            pte = torchedge.lower(spec.module, spec.lower_inputs(), methods=list(spec.methods))
        except Exception:  # a model the seed set need not have
            continue
        _save(out, f"{name}.pte", bytes(pte.buffer))
    x = torch.randn(1, 3, 4, 4)
    ep = torch.export.export(_Small().eval(), (x,))
    edge = torchedge.to_edge(ep)
    program = edge.exported_program()
    to_backend(program, XnnpackPartitioner(delegate_light_groups=True))
    for node in program.graph.nodes:
        if isinstance(node.target, LoweredModule):
            seeds.append(bytes(node.target.processed))
    try:
        delegated = torchedge.to_edge(ep).to_backend(XnnpackPartitioner()).to_pte()
        _save(out, "small_xnnpack.pte", bytes(delegated.buffer))
    except Exception as e:  # noqa: BLE001
        print(f"seed corpus: no XNNPACK program ({e})", file=sys.stderr)
    _save(out, "small_cnn_fc.pte", bytes(torchedge.lower(_Small().eval(), (x,)).buffer))
    # State, control flow and dynamic shapes (tests/dynamic_state_models.py).
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from dynamic_state_models import build

    for name in ("cnn", "size_arithmetic", "counter", "index_put_cache", "copy_cache",
                 "histogram", "data_cond", "nested_cond", "shape_cond", "prefill_cache"):
        module, args, dynamic_shapes = build(name)
        ep = torch.export.export(module, args, dynamic_shapes=dynamic_shapes)
        _save(out, f"{name}.pte", bytes(torchedge.to_edge(ep).to_pte().buffer))
    # int8 and 4-bit linear layers, the KV-cache attention (a tiny decoder).
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "llm"))
    from tiny_llama import tiny_llama

    from torchedge.llm.export import build_decoder, export_decoder

    for quantize in (None, "8da4w", "int8"):
        decoder = build_decoder(tiny_llama(vocab=64, layers=1), quantize, max_context=16)
        _save(out, f"tiny_llm_{quantize or 'fp32'}.pte",
              bytes(export_decoder(decoder, max_prefill=8).buffer))
    return seeds


def vulkan_blobs() -> list[bytes]:
    """The Vulkan delegate's blobs of the small zoo models (convolutions,
    pools, linears, attention, elementwise and movement shaders; the larger
    ones' blobs carry megabytes of weights), no device needed."""
    from torchedge.backends.vulkan import VulkanPartitioner

    blobs = []
    for name in ("small_cnn", "transformer_block"):
        try:
            spec = models.get(name)
            inputs = spec.example_inputs["forward"]
            program = torchedge.to_edge(torch.export.export(spec.module, inputs)).exported_program()
            to_backend(program, VulkanPartitioner())
        except Exception as e:  # noqa: BLE001  a model the seed set need not have
            print(f"seed corpus: no Vulkan blob of {name} ({e})", file=sys.stderr)
            continue
        blobs += [bytes(n.target.processed) for n in program.graph.nodes
                  if isinstance(n.target, LoweredModule)]
    return blobs


def tokenizers(out: Path) -> None:
    import gguf

    writer = gguf.GGUFWriter(str(out / "byte_level_bpe.gguf"), "llama")
    tokens = [bytes([b]).decode("latin-1") for b in range(256)] + ["he", "ll", "hell", "hello",
                                                                   "<|im_start|>", "<|im_end|>"]
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("smollm")
    writer.add_token_list(tokens)
    writer.add_token_types([1] * 260 + [3, 3])
    writer.add_token_merges(["h e", "l l", "he ll", "hell o"])
    writer.add_bos_token_id(260)
    writer.add_eos_token_id(261)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def data_files(out: Path) -> None:
    """.ptd files: a small MLP's weights, and entries of several dtypes and ranks."""
    import torch

    import torchedge
    from torchedge.serialize.flat_tensor import NamedTensor, TensorLayout, serialize_ptd

    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    pte = torchedge.lower(model.eval(), (torch.randn(2, 8),), external_data=True,
                          prepack_weights=False)
    _save(out, "mlp.ptd", pte.data)
    entries = [NamedTensor("a", bytes(range(24)), TensorLayout(6, (2, 3), (1, 0))),
               NamedTensor("b", bytes(8), TensorLayout(4, (1,), (0,))),
               NamedTensor("c", b"opaque bytes")]
    _save(out, "mixed.ptd", serialize_ptd(entries, segment_alignment=16))


def main() -> None:
    warnings.filterwarnings("ignore")
    root = Path(sys.argv[1])
    dirs = {h: root / h for h in ("program", "module", "xnnpack_blob", "tokenizer", "ptd",
                                  "vulkan_blob")}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    blobs = programs(dirs["program"])
    for i, blob in enumerate(blobs):
        _save(dirs["xnnpack_blob"], f"blob_{i}.bin", blob)
    for i, blob in enumerate(vulkan_blobs()):
        _save(dirs["vulkan_blob"], f"blob_{i}.bin", blob)
    for p in dirs["program"].iterdir():
        (dirs["module"] / p.name).write_bytes(p.read_bytes())
    tokenizers(dirs["tokenizer"])
    data_files(dirs["ptd"])
    for name, d in dirs.items():
        print(f"seed corpus {name}: {len(list(d.iterdir()))} files in {d}")


if __name__ == "__main__":
    main()
