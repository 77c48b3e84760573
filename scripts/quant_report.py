"""Quantization report: the accuracy, SQNR and size tables of docs/quantization.md.

    .venv/bin/python scripts/quant_report.py                 # everything (~several minutes)
    .venv/bin/python scripts/quant_report.py --no-zoo        # digits accuracy and file sizes only

1. Accuracy per flow on models trained on scikit-learn's digits (float /
   eager-quantized / runtime-quantized, and runtime~eager agreement).
2. SQNR (dB) of quantized outputs against float on zoo models with random
   weights: static int8 PT2E on the zoo CNNs, 8- and 7-bit weights (calibrated on 4 random
   images), dynamic int8 linear on the transformers (BERT-style encoder,
   ViT-Tiny); eager and runtime, and runtime against eager.
3. .pte sizes: float vs int8 vs 4-bit.
Runtime columns read "missing: <kernels>" when the runtime lacks a kernel.
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
import warnings
from typing import Any, Optional

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "quantization"))  # digits.py

import digits  # noqa: E402

import torchedge  # noqa: E402
import torchedge.runtime  # noqa: E402
from torchedge import models  # noqa: E402
from torchedge import quantization as tq  # noqa: E402
from torchedge.quantization.embedding_quantization import quantize_embeddings  # noqa: E402


def _runtime(program: torchedge.PteProgram) -> tuple[Optional[Any], str]:
    missing = sorted(set(program.operators["forward"]) - set(torchedge.runtime.registered_kernels()))
    if missing:
        return None, "missing: " + ", ".join(missing)
    return torchedge.runtime.load(program.buffer), ""


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def accuracy_table() -> tuple[str, list[list[str]]]:
    data = digits.load_digits()
    torch.set_num_threads(1)
    trained = digits.trained_models(data)
    torch.set_num_threads(os.cpu_count() or 1)
    rows, sizes = [], []
    cases = ([("cnn", f) for f in ("static", "qat", "static_w7", "qat_w7")]
             + [("mlp", f) for f in digits.FLOWS])
    for model_name, flow in cases:
        flat = model_name == "mlp"
        batches, labels = data.batches("test", flat), data.labels()
        model = trained[model_name]
        quantized = digits.quantize(flow, model, data, flat)
        float_acc = digits.accuracy(model, batches, labels)
        eager_acc = digits.accuracy(quantized.reference, batches, labels)
        runtime, why = _runtime(quantized.program)
        if runtime is not None:
            report = tq.compare(model, quantized.reference, runtime, batches, labels=labels)
            run_acc = f"{report.top1['accuracy runtime']:.4f}"
            agree = f"{report.top1['top-1 agreement runtime~eager-quantized']:.4f}"
            noise = f"{report.reference_vs_float.sqnr_db:.1f}"
        else:
            run_acc, agree, noise = why, "-", "-"
        rows.append([model_name, flow, f"{float_acc:.4f}", f"{eager_acc:.4f}", run_acc, agree, noise])
        sizes.append([f"digits {model_name}", flow, str(len(quantized.program.buffer))])
    for model_name in ("cnn", "mlp"):
        program = digits.float_program(trained[model_name], data, model_name == "mlp")
        sizes.insert(0, [f"digits {model_name}", "float", str(len(program.buffer))])
    header = ["model", "flow", "float acc", "eager-quantized acc", "runtime-quantized acc",
              "runtime~eager agreement", "SQNR eager vs float logits (dB)"]
    return _table(header, rows), sizes


def _zoo_case(name: str, flow: str) -> tuple[list[str], list[list[str]]]:
    spec = models.get(name)
    model, inputs = spec.module, spec.inputs()
    float_size = len(torchedge.to_edge(torch.export.export(model, inputs)).to_pte().buffer)
    if flow in ("static", "static_w7"):
        torch.manual_seed(1)
        calibration = [tuple(torch.randn_like(t) for t in inputs) for _ in range(4)]
        config = tq.static_config(weight_bits=7 if flow == "static_w7" else 8)
        ep = tq.quantize_pt2e(copy.deepcopy(model), inputs, calibration, config=config)
    elif flow == "dynamic":
        ep = tq.quantize_pt2e(copy.deepcopy(model), inputs, config=tq.dynamic_config())
    else:  # dynamic linear layers and int8 embedding tables
        source = quantize_embeddings(copy.deepcopy(model))
        ep = tq.quantize_pt2e(source, inputs, config=tq.dynamic_config())
    program = torchedge.to_edge(ep).to_pte()
    torch.manual_seed(2)
    evaluation = ([tuple(torch.randn_like(t) for t in inputs)] if flow.startswith("static")
                  else [inputs])
    reference = ep.module()
    runtime, why = _runtime(program)
    if runtime is not None:
        report = tq.compare(model, reference, runtime, evaluation)
        cells = [f"{report.reference_vs_float.sqnr_db:.1f}", f"{report.runtime_vs_float.sqnr_db:.1f}",
                 f"{report.runtime_vs_reference.sqnr_db:.1f}"]
    else:
        with torch.no_grad():
            y_float, y_eager = (torch.cat([t.reshape(-1) for t in pytree_leaves(m(*evaluation[0]))])
                                for m in (model, reference))
        cells = [f"{tq.sqnr_db(y_float, y_eager):.1f}", why, "-"]
    label = {"static": "int8 static PT2E", "static_w7": "int8 static PT2E, 7-bit weights",
             "dynamic": "int8 dynamic linear",
             "dynamic_embeddings": "int8 dynamic linear + int8 embeddings"}[flow]
    sizes = [[name, "float", str(float_size)], [name, label, str(len(program.buffer))]]
    return [name, label] + cells, sizes


def pytree_leaves(value: Any) -> list[torch.Tensor]:
    return [t.detach().float() for t in torch.utils._pytree.tree_leaves(value) if isinstance(t, torch.Tensor)]


# Transformers take dynamic int8 linear layers (activations quantized per call).
TRANSFORMERS = frozenset({"bert_minilm", "vit_tiny", "llama_decoder", "whisper_encoder"})


def zoo_table(names: list[str]) -> tuple[str, list[list[str]]]:
    rows, sizes = [], []
    for name in names:
        flows = ["static", "static_w7"]
        if name in TRANSFORMERS:
            has_embeddings = any(isinstance(m, torch.nn.Embedding) for m in models.get(name).module.modules())
            flows = ["dynamic"] + (["dynamic_embeddings"] if has_embeddings else [])
        start = time.time()
        for flow in flows:
            row, case_sizes = _zoo_case(name, flow)
            rows.append(row)
            sizes += [size for size in case_sizes if size not in sizes]
        print(f"  ({name}: {time.time() - start:.0f} s)", file=sys.stderr)
    header = ["model", "flow", "SQNR eager vs float (dB)", "SQNR runtime vs float (dB)",
              "SQNR runtime vs eager (dB)"]
    return _table(header, rows), sizes


def wide_mlp_sizes() -> list[list[str]]:
    """A 256-512-512-256 MLP (random weights): float vs int8 vs 4-bit, batch 1."""
    torch.manual_seed(0)
    layers = [torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512), torch.nn.ReLU(),
              torch.nn.Linear(512, 256)]
    model = torch.nn.Sequential(*layers).eval()
    x = (torch.randn(1, 256),)

    def size(m: Any) -> str:
        ep = m if isinstance(m, torch.export.ExportedProgram) else torch.export.export(m, x)
        return str(len(torchedge.to_edge(ep).to_pte().buffer))

    rows = [["wide MLP", "float", size(model)],
            ["wide MLP", "int8 static PT2E", size(tq.quantize_pt2e(copy.deepcopy(model), x, [x]))]]
    for scheme, group in (("int8_weight_only", 0), ("int4_weight_only", 128), ("8da4w", 32)):
        quantized = tq.quantize_linear_weights(copy.deepcopy(model), scheme, group_size=group or 32)
        rows.append(["wide MLP", scheme + (f" g{group}" if group else ""), size(quantized)])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-zoo", action="store_true", help="skip the zoo SQNR table")
    parser.add_argument("--zoo", nargs="*", default=["mobilenet_v2", "mobilenet_v3_small", "resnet18",
                                                      "resnet50", "efficientnet_b0", "bert_minilm",
                                                      "vit_tiny"])
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    start = time.time()
    accuracy, sizes = accuracy_table()
    print("## Accuracy on digits (360 test images)\n")
    print(accuracy)
    if not args.no_zoo:
        zoo, zoo_sizes = zoo_table(args.zoo)
        sizes += zoo_sizes
        print("\n## SQNR on zoo models (random weights)\n")
        print(zoo)
    sizes += wide_mlp_sizes()
    floats = {row[0]: int(row[2]) for row in sizes if row[1] == "float"}
    rows = [row + [f"{floats[row[0]] / int(row[2]):.2f}x" if row[0] in floats else "-"] for row in sizes]
    print("\n## .pte file sizes\n")
    print(_table(["model", "flow", "bytes", "float / this"], rows))
    print(f"\n(report took {time.time() - start:.0f} s)")


if __name__ == "__main__":
    main()
