"""out/bench-llm/results.json, results.md and chart.png from one run's data.

The chart is drawn by plot_chart.py under the peers' interpreter
(.venv-peers holds matplotlib; the product never imports it), as `make
bench` draws out/bench/chart.png.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Optional

COLUMNS = (("pp128_tok_s", "pp128 tok/s"), ("pp512_tok_s", "pp512 tok/s"),
           ("tg128_tok_s", "tg128 tok/s"), ("ttft_ms", "TTFT ms"), ("peak_rss_mb", "peak RSS MB"))
PLOT_SCRIPT = Path(__file__).resolve().parent / "plot_chart.py"


def _number(value: Optional[float]) -> str:
    if value is None:
        return "-"
    return f"{value:.0f}" if abs(value) >= 100 else f"{value:.1f}" if abs(value) >= 10 else f"{value:.2f}"


def _one_line(text: str, limit: int = 200) -> str:
    """A status or reason fit for a table cell: its first and last lines, at most `limit` characters."""
    lines = [line.strip() for line in str(text).strip().splitlines() if line.strip()]
    first = lines[0] if lines else ""
    last = lines[-1] if len(lines) > 1 else ""
    line = f"{first} ... {last}" if last else first
    return line if len(line) <= limit else line[:limit - 3] + "..."


def results_table(data: dict[str, Any]) -> str:
    head = ["engine", "threads"] + [title for _, title in COLUMNS] + ["file MB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in data["rows"]:
        if row["status"] != "ok":
            cells = [row["engine"], str(row["threads"]), _one_line(row["status"])] + [""] * (len(head) - 3)
        else:
            cells = [row["engine"], str(row["threads"])]
            for metric, _ in COLUMNS:
                median, best = row["median"].get(metric), row["best"].get(metric)
                cells.append(f"{_number(median)} ({_number(best)})" if median is not None else "-")
            cells.append(_number(row.get("file_mb")))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ratio_table(data: dict[str, Any]) -> str:
    if not data["ratios"]:
        return "No ratios: torchedge or its peers did not run."
    head = ["torchedge / peer", "threads"] + [title.replace(" tok/s", "") for _, title in COLUMNS] + ["file"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for entry in data["ratios"]:
        cells = [entry.get("peer", "llama.cpp"), str(entry["threads"])]
        cells += [f"{entry['median'][m]:.2f}" if m in entry["median"] else "-" for m, _ in COLUMNS]
        cells.append(f"{entry['file_mb']:.2f}" if "file_mb" in entry else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def ceiling_table(data: dict[str, Any]) -> str:
    lines = ["| engine | threads | weight MB / token | ms / token | GB/s read | host read GB/s | "
             "fraction of ceiling | ceiling tok/s |", "|---|---|---|---|---|---|---|---|"]
    for e in data["decode_ceiling"]:
        lines.append(f"| {e['engine']} | {e['threads']} | {e['weight_bytes'] / 1e6:.1f} | "
                     f"{e['ms_per_token']:.2f} | {e['achieved_gb_s']:.2f} | "
                     f"{_number(e.get('bandwidth_gb_s'))} | "
                     f"{_number(e.get('fraction_of_ceiling'))} | {_number(e.get('ceiling_tok_s'))} |")
    return "\n".join(lines)


def perplexity_lines(data: dict[str, Any]) -> list[str]:
    ppl = data["perplexity"]
    if "status" in ppl:
        return [f"- {ppl['status']}"]
    lines = []
    for engine in ("llama.cpp", "torchedge"):
        r = ppl.get(engine, {})
        if r.get("status") == "ok":
            extra = f" +/- {r['plus_minus']:.4f}" if "plus_minus" in r else ""
            tokens = f"{r['tokens']} tokens, " if r.get("tokens") else ""
            lines.append(f"- {engine}: PPL {r['perplexity']:.4f}{extra} ({tokens}{r.get('chunks', '?')} "
                         f"chunks of {r.get('context', ppl['context'])}, {r.get('scored', '?')} scored)")
        else:
            reason = f" because {_one_line(r['reason'])}" if r.get("reason") else ""
            lines.append(f"- {engine}: {r.get('status', 'not run')}{reason}")
    return lines


def _loads(loads: Optional[list[float]]) -> str:
    return "/".join(f"{x:.1f}" for x in loads) if loads else "?"


def results_markdown(data: dict[str, Any]) -> str:
    host, model, corpus = data["host"], data["model"], data["corpus"]
    ue = data["upstream_executorch"]
    upstream = ("upstream ExecuTorch Llama: " + ("ran: " + ue.get("export", "") if ue["status"] == "ok"
                                                 else ue["status"] + (f" because {ue['reason']}"
                                                                      if ue.get("reason") else "")))
    parts = [
        "# bench-llm: SmolLM2-135M-Instruct, torchedge against llama.cpp and upstream ExecuTorch",
        f"Host: {host['cpu']} ({host['cpu_id']}), {host['logical_cpus']} logical CPUs, load average "
        f"{_loads(host.get('load_average_at_start'))} at the start, "
        f"{_loads(host['load_average_at_end'])} at the end (other tenants slow multi-thread runs most). "
        f"llama.cpp: {host['llama_cpp_build'] or 'not built'}.",
        f"GGUF: {model['gguf']} ({model['gguf_bytes'] / 1e6:.1f} MB). "
        f".pte: {model['pte']} ({_number(model['pte_bytes'] / 1e6) if model['pte_bytes'] else 'absent'} MB).",
        f"{data['options']['rounds']} rounds, alternating engines, each run in its own process; "
        "cells are median (best).",
        "", results_table(data), "",
        "torchedge / peer, of medians (tok/s: above 1 is torchedge faster; TTFT, RSS, "
        "file: below 1 is torchedge smaller):", "", ratio_table(data), "",
        "Decode against the memory-bandwidth ceiling (weight bytes read per token over the "
        "time per token, against this host's measured read bandwidth):", "", ceiling_table(data), "",
        f"Perplexity on the corpus ({corpus['chars']} characters of standard-library "
        f"docstrings, Python {corpus['python']}, sha256 {corpus['sha256'][:12]}):",
        *perplexity_lines(data), "",
        "Notes:", *[f"- {n}" for n in data["notes"]], f"- {upstream}",
    ]
    return "\n".join(parts) + "\n"


def summary_text(data: dict[str, Any]) -> str:
    return "\n".join([results_table(data), "", ratio_table(data), "", ceiling_table(data), "",
                      *perplexity_lines(data)])


def write_outputs(data: dict[str, Any], out_dir: Path, peers_python: Optional[Path],
                  chart: bool) -> dict[str, str]:
    out_dir.mkdir(parents=True, exist_ok=True)
    results = out_dir / "results.json"
    results.write_text(json.dumps(data, indent=1) + "\n")
    markdown = out_dir / "results.md"
    markdown.write_text(results_markdown(data))
    paths = {"results": str(results), "table": str(markdown)}
    if not chart:
        return paths
    png = out_dir / "chart.png"
    if peers_python is None or not Path(peers_python).is_file():
        paths["chart"] = f"not drawn: no peers interpreter at {peers_python} (make peers)"
        return paths
    try:
        subprocess.run([str(peers_python), str(PLOT_SCRIPT), "--results", str(results),
                        "--out", str(png)], check=True, capture_output=True, text=True, timeout=300)
        paths["chart"] = str(png)
    except subprocess.CalledProcessError as e:
        tail = " ".join(e.stderr.strip().splitlines()[-2:])
        paths["chart"] = f"not drawn: {tail}"
    except subprocess.TimeoutExpired:
        paths["chart"] = "not drawn: timed out"
    return paths
