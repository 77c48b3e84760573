"""results.json -> the Markdown report and the console ratio table."""

from __future__ import annotations

from typing import Any, Optional

from torchedge.bench.aggregate import INT8_SPEEDUP_TARGET, RATIO_TARGETS, int8_speedups

# The float32 peak of the reference machine the targets were set on (an
# AVX-512 Xeon). The report also divides by the FMA peak measured on the
# machine it runs on (build/fma_peak): on an AVX2-only CPU (AMD EPYC Zen 3:
# ~93-100 GFLOP/s per core; Zen 1: ~40) the quoted figure is out of reach.
PEAK_GFLOPS = {1: 213.0, 2: 427.0}


def _ms(x: Optional[float]) -> str:
    if x is None:
        return "-"
    return f"{x:.3g}" if x < 10 else f"{x:.1f}"


def _size(n: int) -> str:
    return f"{n / 2**10:.0f} KiB" if n < 2**20 else f"{n / 2**20:.1f} MiB"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def ratio_rows(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    peers = []
    for row in data["ratios"]:
        peers += [p for p in row["peers"] if p not in peers]
    header = ["model", "threads", "precision", "torchedge best"] + [
        f"/ {p} (target ≤ {RATIO_TARGETS[p]})" if p in RATIO_TARGETS else f"/ {p}" for p in peers]
    rows = []
    for row in data["ratios"]:
        best = (f"{row['torchedge_best']} {_ms(row['torchedge_ms'])} ms" if row["torchedge_best"]
                else "none ran correctly")
        cells = [row["model"], str(row["threads"]), row["precision"], best]
        for p in peers:
            e = row["peers"].get(p)
            if e is None:
                cells.append("peer not run")
            elif "ratio" not in e:
                cells.append(f"- (peer {_ms(e['peer_ms'])} ms)")
            else:
                if e.get("target") is None:  # no target for this peer: no verdict
                    cells.append(f"{e['ratio']:.2f} ({_ms(e['peer_ms'])} ms)")
                else:
                    mark = "ok" if e["meets_target"] else "MISSED"
                    if e["target"] != RATIO_TARGETS.get(p):  # this model's own target
                        mark += f" at ≤ {e['target']}"
                    cells.append(f"{e['ratio']:.2f} ({_ms(e['peer_ms'])} ms, {mark})")
        rows.append(cells)
    return header, rows


def ratio_table_text(data: dict[str, Any]) -> str:
    header, rows = ratio_rows(data)
    return _text_table(header, rows)


def int8_speedup_rows(data: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    header = ["model", "threads", "float (best torchedge)", "int8 (best torchedge)",
              f"speed-up, medians (target ≥ {INT8_SPEEDUP_TARGET})", "speed-up, minimums"]
    rows = []
    for s in int8_speedups(data["results"], data["ratios"]):
        mark = "ok" if s["meets_target"] else "MISSED"
        rows.append([s["model"], str(s["threads"]), f"{s['float_config']} {_ms(s['float_ms'])} ms",
                     f"{s['int8_config']} {_ms(s['int8_ms'])} ms", f"{s['speedup']:.2f}x ({mark})",
                     f"{s['speedup_of_minimums']:.2f}x"])
    return header, rows


def mac_rates_line(host: dict[str, Any]) -> str:
    """What the int8 speed-up can reach on this host: its measured int8 / float
    multiply-accumulate rates (recorded by newer runs only)."""
    rates = host.get("mac_rates_gmacs_per_core")
    cpu = host.get("cpu_id", host["cpu"])
    if not rates:
        return f"This host ({cpu}): int8 / float multiply-accumulate rates not measured (build/int8_mac_peak)."
    fma = rates["fma"]
    return (f"This host ({cpu}), per core (build/int8_mac_peak): float FMA {rates['fma']:.1f} GMAC/s, "
            f"exact int8 as int16 pairs {rates['int16']:.1f} ({rates['int16'] / fma:.2f}x), u8 x s8 "
            f"for 7-bit weights {rates['u8s8']:.1f} ({rates['u8s8'] / fma:.2f}x). A compute-bound "
            "int8 layer runs at most about the larger of these two ratios faster than its float "
            "twin (both precisions run 3x3 layers as Winograd), so the target needs a CPU whose "
            "int8 rate is well above its FMA rate (AVX-512 VNNI, AVX-VNNI).")


def _text_table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    fmt = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths))  # noqa: E731
    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def int8_speedup_text(data: dict[str, Any]) -> str:
    header, rows = int8_speedup_rows(data)
    return _text_table(header, rows) if rows else ""


def _latency_rows(data: dict[str, Any]) -> list[list[str]]:
    rows = []
    for r in data["results"]:
        if r["status"] != "ok":
            rows.append([r["model"], r["config"], str(r["threads"]), "-", "-", "-", "-", "-", "-", "-",
                         f"{r['status']} (see below)"])
            continue
        acc = r["accuracy"]
        err = (f"{acc['max_rel_err']:.1e}" if "max_rel_err" in acc else "-") + ("" if acc["ok"] else " MISMATCH")
        notes = [r["note"]] if r.get("note") else []
        if r["iterations"] < data["options"]["plan"]["iterations"]:
            notes.append(f"only {r['iterations']} runs (slow)")
        rows.append([r["model"], r["config"], str(r["threads"]), _ms(r["median_ms"]), _ms(r["min_ms"]),
                     str(r["iterations"]), _ms(r["load_ms"]), _size(r["peak_rss_bytes"]),
                     _size(r["file_bytes"]), err, "; ".join(notes)])
    return rows


def _gflops_rows(data: dict[str, Any], model: str) -> list[list[str]]:
    measured = data["host"].get("fma_peak_gflops_per_core")
    rows = []
    for r in data["results"]:
        if r["model"] == model and r["status"] == "ok" and "gflops_per_s" in r:
            quoted = PEAK_GFLOPS.get(r["threads"])
            share = f"{100 * r['gflops_per_s'] / quoted:.0f}%" if quoted else "-"
            row = [r["config"], str(r["threads"]), _ms(r["median_ms"]), f"{r['gflops_per_s']:.1f}", share]
            if measured:
                row.append(f"{100 * r['gflops_per_s'] / (measured * r['threads']):.0f}%")
            rows.append(row)
    return rows


def markdown_report(data: dict[str, Any]) -> str:
    host = data["host"]
    opts = data["options"]
    lines = [
        "# torchedge benchmark results",
        "",
        f"Run {data['created']} on {host['cpu']} ({host['logical_cpus']} logical CPUs), "
        f"load average {host['load_average_at_start'][0]:.1f} at start and "
        f"{host.get('load_average_at_end', [float('nan')])[0]:.1f} at end. "
        f"torch {host['torch']}; peers: "
        + ", ".join(f"{k} {v}" for k, v in sorted(host.get("peer_versions", {}).items())) + ".",
        "",
        f"Median of {opts['plan']['iterations']} timed runs (pooled over {opts['rounds']} interleaved "
        f"rounds, {opts['plan']['warmup']} warm-up runs and at least "
        f"{opts['plan'].get('warmup_seconds', 0):g} s of them per round) unless the table says fewer; every "
        "configuration in its own process. Load = the runtime's own load step (not process start); "
        "peak RSS = the whole child process (Python-hosted runtimes include the interpreter, and "
        "eager/ExecuTorch include torch). The machine is shared, so absolute numbers are noisy; "
        "ratios come from the same invocation.",
        "",
        "## Ratios: best torchedge configuration / peer (median latency, lower is better)",
        "",
    ]
    header, rows = ratio_rows(data)
    lines += _table(header, rows)
    header, rows = int8_speedup_rows(data)
    if rows:
        lines += ["", "## int8 against float in torchedge (float / int8 latency, higher is better)", ""]
        lines += _table(header, rows)
        lines += ["", mac_rates_line(host)]
    lines += ["", "## Latency, load time, memory, size", ""]
    lines += _table(["model", "config", "threads", "median ms", "min ms", "runs", "load ms",
                     "peak RSS", "file", "max rel err", "notes"], _latency_rows(data))
    for model in ("resnet50",):
        flops = data["models"].get(model, {}).get("flops")
        if flops:
            lines += ["", f"## Achieved GFLOP/s on {model} ({flops / 1e9:.2f} GFLOP per run, "
                          "convolutions and matrix products only)", ""]
            header = ["config", "threads", "median ms", "GFLOP/s", "of the issue's quoted peak (213/core)"]
            measured = data["host"].get("fma_peak_gflops_per_core")
            if measured:
                header.append(f"of the measured FMA peak ({measured:.0f}/core, build/fma_peak)")
            lines += _table(header, _gflops_rows(data, model))
    problems: dict[tuple[str, str, str], list[str]] = {}
    for r in data["results"]:
        if r["status"] != "ok":
            models = problems.setdefault((r["config"], r["status"], r["reason"]), [])
            if r["model"] not in models:
                models.append(r["model"])
    if problems:
        lines += ["", "## Not run", ""]
        for (config, status, reason), models in problems.items():
            short = " ".join(reason.split())[:600]
            lines.append(f"- {config} on {', '.join(models)}: {status}: {short}")
    lines += ["", "## Delegation", ""]
    for model, summary in data["models"].items():
        notes = summary.get("notes", {}) if isinstance(summary, dict) else {}
        ours = notes.get("torchedge_xnnpack_delegation")
        if ours:
            lines.append(f"- {model}: torchedge XNNPACK took {ours['delegated']} of {ours['nodes']} "
                         f"operator nodes; kept: {', '.join(ours['operators_kept']) or 'none'}")
        vk = notes.get("torchedge_vulkan_delegation")
        if vk:
            emulated = " (lavapipe: the GPU is emulated on the CPU; these are not GPU numbers)" \
                if vk.get("cpu_emulated") else ""
            lines.append(f"- {model}: torchedge Vulkan on {vk['device']}{emulated} took "
                         f"{vk['delegated']} of {vk['nodes']} operator nodes; kept: "
                         f"{', '.join(vk['operators_kept']) or 'none'}")
        vk16 = notes.get("torchedge_vulkan_fp16_delegation")
        if vk16:
            precision = "float16" if vk16.get("float16") else "float32 (the device lacks float16)"
            emulated = " (lavapipe: CPU-emulated, not GPU numbers)" if vk16.get("cpu_emulated") else ""
            lines.append(f"- {model}: torchedge Vulkan force_fp16 on {vk16['device']}{emulated} "
                         f"computed in {precision}; took {vk16['delegated']} of {vk16['nodes']} "
                         "operator nodes")
        fused = notes.get("torchedge_int8_fusion")
        if fused:
            lines.append(f"- {model}: torchedge int8 fused {fused['conv2d_int8']} conv2d_int8, "
                         f"{fused['depthwise_conv2d_int8']} depthwise_conv2d_int8, "
                         f"{fused.get('quantized_linear', 0)} quantized_linear, "
                         f"{fused['add_int8']} add_int8, "
                         f"{fused.get('conv2d_add_int8', 0)} conv2d_add_int8, "
                         f"{fused.get('int8_max_pool2d', 0)} max "
                         f"pools on int8; {fused['float_conv2d']} convolutions "
                         f"and {fused.get('float_linear', 0)} linear layers left float")
        et = notes.get("executorch_pte")
        if et:
            lines.append(f"- {model}: ExecuTorch XNNPACK: {et.get('delegate_calls')} delegate calls, "
                         f"{et.get('kernel_calls')} kernel calls outside "
                         f"({', '.join(et.get('operators_outside_delegate', [])) or 'none'})")
    return "\n".join(lines) + "\n"
