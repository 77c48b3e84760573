"""Upstream ExecuTorch as a third engine: its own Llama export
(executorch.examples.models.llama, XNNPACK, 8da4w linears in groups of 32 as
torchedge's, 4-bit embedding in groups of 32 as its llama_xnnpack.yaml, KV
cache with its custom SDPA) of the same GGUF's weights, run by its C++
TextLLMRunner.

Prepared once into out/bench-llm/upstream/ (the .pte is cached):
upstream_checkpoint.py (product interpreter: the GGUF dequantized into a
Meta-layout checkpoint, params.json, tokenizer.json, exact-length prompts),
then export_llama under .venv-peers (minutes on 2 cores). Each measured run
is upstream_run.py in a .venv-peers process of its own.

The export's prefill length is MAX_SEQ_LENGTH - 1 tokens per call (its
dynamic token dimension), so 513 admits the 512-token prompt in one call.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchedge.bench.llm.outputs import OutputError, last_json_object
from torchedge.bench.llm.process import MeasuredRun, run_measured

EXPORT_MODULE = "executorch.examples.models.llama.export_llama"
RUN_SCRIPT = Path(__file__).resolve().parent / "upstream_run.py"
GROUP_SIZE = 32
MAX_SEQ_LENGTH = 513
MAX_CONTEXT_LENGTH = 2048
EMBEDDING_QUANTIZE = "4,32"
PTE_NAME = f"smollm2-8da4w-g{GROUP_SIZE}-e4-xnnpack-s{MAX_SEQ_LENGTH}.pte"


@dataclass
class Upstream:
    peers_python: Path
    folder: Path

    @property
    def pte(self) -> Path:
        return self.folder / PTE_NAME

    def export_argv(self) -> list[str]:
        f = self.folder
        return [str(self.peers_python), "-m", EXPORT_MODULE, "--model", "smollm2",
                "-c", str(f / "checkpoint.pth"), "-p", str(f / "params.json"), "-kv",
                "--use_sdpa_with_kv_cache", "-X", "-qmode", "8da4w", "--group_size", str(GROUP_SIZE),
                "-E", EMBEDDING_QUANTIZE, "-d", "fp32", "--max_seq_length", str(MAX_SEQ_LENGTH),
                "--max_context_length", str(MAX_CONTEXT_LENGTH), "--output_name", str(self.pte)]

    def prepare(self, gguf: Path, prompts: tuple[int, ...], timeout_s: float) -> dict[str, Any]:
        """Exports the .pte unless it is there; {"status": "ok"} or why not."""
        if not self.peers_python.is_file():
            return {"status": "not run",
                    "reason": f"no peers interpreter at {self.peers_python} (make peers)"}
        self.folder.mkdir(parents=True, exist_ok=True)
        beside = [self.folder / f for f in ("params.json", "tokenizer.json", "prompts.json")]
        needs_checkpoint = not self.pte.is_file() and not (self.folder / "checkpoint.pth").is_file()
        if needs_checkpoint or not all(p.is_file() for p in beside):
            print("bench-llm: upstream ExecuTorch: writing its checkpoint", file=sys.stderr, flush=True)
            argv = [sys.executable, "-m", "torchedge.bench.llm.upstream_checkpoint", "--gguf", str(gguf),
                    "--out", str(self.folder), "--prompts", *[str(p) for p in prompts]]
            failure = run_measured(argv, timeout_s).failure()
            if failure:
                return {"status": "failed", "reason": f"checkpoint: {failure}"}
        if not self.pte.is_file():
            print(f"bench-llm: upstream ExecuTorch: exporting {self.pte} (minutes)", file=sys.stderr,
                  flush=True)
            run = run_measured(self.export_argv(), timeout_s, cwd=str(self.folder))
            (self.folder / "export.log").write_text(run.stdout + run.stderr)
            if run.failure() or not self.pte.is_file():
                tail = " ".join((run.stderr or run.stdout).strip().splitlines()[-3:])
                return {"status": "failed", "reason": f"export_llama: {run.failure() or tail}"}
            (self.folder / "checkpoint.pth").unlink(missing_ok=True)  # 0.5 GB, only the export reads it
        for prompt in prompts:
            text = json.loads((self.folder / "prompts.json").read_text())[str(prompt)]["text"]
            (self.folder / f"prompt{prompt}.txt").write_text(text, encoding="utf-8")
        return {"status": "ok", "pte": str(self.pte), "export": " ".join(self.export_argv()[1:])}

    def bench(self, threads: int, prompt: int, new_tokens: int,
              timeout_s: float) -> tuple[dict[str, Any], MeasuredRun]:
        argv = [str(self.peers_python), str(RUN_SCRIPT), "--pte", str(self.pte),
                "--tokenizer", str(self.folder / "tokenizer.json"),
                "--prompt-text", str(self.folder / f"prompt{prompt}.txt"),
                "--new-tokens", str(new_tokens), "--threads", str(threads)]
        run = run_measured(argv, timeout_s)
        failure = run.failure()
        if failure:
            raise OutputError(f"upstream runner: {failure}")
        answer = last_json_object(run.stdout)
        if answer is None:
            raise OutputError("upstream runner printed no JSON line")
        return answer, run
