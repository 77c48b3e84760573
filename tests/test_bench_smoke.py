"""The benchmark harness (torchedge.bench), end to end on one tiny model and
piece by piece on made-up measurements.

A unit test of the harness: it checks what the suite runs and writes, never
how fast anything is.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from torchedge.bench import CONFIGS, BenchOptions, Plan, run, write_outputs
from torchedge.bench.aggregate import combine, int8_speedups, ratios
from torchedge.bench.configs import by_name
from torchedge.bench.environment import REPO, Environment
from torchedge.bench.measure import compare_outputs
from torchedge.bench.report import int8_speedup_text, mac_rates_line, markdown_report, ratio_table_text

CLI = REPO / "build" / "torchedge_run"


def _round(config: str, latencies: list[float], rss: int = 10 << 20, ok: bool = True) -> dict:
    return {"model": "m", "config": config, "threads": 1, "precision": "fp32", "status": "ok",
            "latencies_ms": latencies, "load_ms": 5.0, "peak_rss_bytes": rss,
            "threads_effective": 1, "load_average": 1.0,
            "accuracy": {"ok": ok, "max_abs_err": 0.0 if ok else 1.0,
                         "max_rel_err": 0.0 if ok else 1.0, "tolerance": 1e-3}}


def test_rounds_pool_their_runs_and_a_failed_round_fails_the_result():
    config = by_name(["eager"])[0]
    pooled = combine(config, 1, None, [_round("eager", [3.0, 1.0]), _round("eager", [2.0, 4.0], rss=20 << 20)])
    assert pooled["status"] == "ok"
    assert pooled["iterations"] == 4 and pooled["median_ms"] == 2.5 and pooled["min_ms"] == 1.0
    assert pooled["peak_rss_bytes"] == 20 << 20
    failed = {"model": "m", "config": "eager", "threads": 1, "precision": "fp32",
              "status": "failed", "reason": "exit code 1"}
    assert combine(config, 1, None, [_round("eager", [1.0]), failed])["status"] == "failed"


def test_ratio_uses_the_fastest_torchedge_configuration_that_matches_eager():
    configs = by_name([])
    results = [combine(c, 1, None, [r]) for c, r in [
        (by_name(["torchedge-portable"])[0], _round("torchedge-portable", [8.0])),
        # faster, but wrong outputs: must not count as torchedge's best
        (by_name(["torchedge-xnnpack"])[0], _round("torchedge-xnnpack", [1.0], ok=False)),
        (by_name(["onnxruntime"])[0], _round("onnxruntime", [4.0])),
        (by_name(["eager"])[0], _round("eager", [32.0])),
    ]]
    (row,) = ratios(results, configs)
    assert row["torchedge_best"] == "torchedge-portable"
    assert row["peers"]["onnxruntime"]["ratio"] == pytest.approx(2.0)
    assert row["peers"]["onnxruntime"]["meets_target"] is False
    assert row["peers"]["eager"]["ratio"] == pytest.approx(0.25)
    assert row["peers"]["eager"]["meets_target"] is True
    assert "executorch-xnnpack" not in row["peers"]


def test_audio_models_are_held_to_their_own_eager_target():
    configs = by_name([])

    def run(model: str, ours: float) -> list[dict]:
        rounds = [(by_name(["torchedge-optimized"])[0], _round("torchedge-optimized", [ours])),
                  (by_name(["eager"])[0], _round("eager", [10.0]))]
        return [combine(c, 1, None, [{**r, "model": model}]) for c, r in rounds]

    # 0.6x eager: misses the zoo's 0.5, meets the audio models' 0.7.
    (zoo,) = ratios(run("m", 6.0), configs)
    assert zoo["peers"]["eager"]["target"] == 0.5 and zoo["peers"]["eager"]["meets_target"] is False
    results = run("hf_wav2vec2", 6.0)
    (audio,) = ratios(results, configs)
    assert audio["peers"]["eager"]["target"] == 0.7 and audio["peers"]["eager"]["meets_target"] is True
    assert "0.60 (10.0 ms, ok at ≤ 0.7)" in ratio_table_text({"results": results, "ratios": [audio]})
    (slow,) = ratios(run("hf_whisper_encoder", 7.5), configs)
    assert slow["peers"]["eager"]["meets_target"] is False


def test_int8_speedup_divides_the_best_float_by_the_best_int8_configuration():
    configs = by_name([])
    runs = [("torchedge-portable", [30.0, 20.0], "fp32"), ("torchedge-optimized", [10.0, 9.0], "fp32"),
            ("torchedge-int8", [6.0, 5.0], "int8"), ("torchedge-int8-w7", [5.0, 4.0], "int8"),
            ("onnxruntime-int8", [2.0], "int8")]
    results = [combine(by_name([name])[0], 1, None, [{**_round(name, lat), "precision": p}])
               for name, lat, p in runs]
    (s,) = int8_speedups(results, ratios(results, configs))
    assert (s["float_config"], s["int8_config"]) == ("torchedge-optimized", "torchedge-int8-w7")
    assert s["speedup"] == pytest.approx(9.5 / 4.5) and s["meets_target"] is True
    assert s["speedup_of_minimums"] == pytest.approx(9.0 / 4.0)
    # 8 ms int8 against 9.5 ms float: 1.19x, under the 1.8x target.
    slow = [r if r["precision"] == "fp32" else {**r, "median_ms": 8.0, "min_ms": 8.0} for r in results
            if r["config"] != "onnxruntime-int8"]
    (s,) = int8_speedups(slow, ratios(slow, configs))
    assert s["speedup"] == pytest.approx(9.5 / 8.0) and s["meets_target"] is False
    data = {"results": slow, "ratios": ratios(slow, configs)}
    assert "1.19x (MISSED)" in int8_speedup_text(data)
    # No int8 configuration ran: no row, no table.
    floats = [r for r in results if r["precision"] == "fp32"]
    assert int8_speedups(floats, ratios(floats, configs)) == []
    assert int8_speedup_text({"results": floats, "ratios": ratios(floats, configs)}) == ""


def test_mac_rates_line_states_the_host_ceiling_or_that_it_was_not_measured():
    host = {"cpu": "AMD EPYC", "cpu_id": "AuthenticAMD family 23 model 1 stepping 2; avx2 fma",
            "mac_rates_gmacs_per_core": {"fma": 20.0, "int16": 20.0, "u8s8": 19.0}}
    line = mac_rates_line(host)
    assert "family 23" in line and "float FMA 20.0 GMAC/s" in line
    assert "(1.00x)" in line and "(0.95x)" in line
    assert "not measured" in mac_rates_line({"cpu": "AMD EPYC"})


def test_compare_outputs_flags_wrong_values_and_shapes():
    ref = [np.array([1.0, -2.0], dtype=np.float32)]
    assert compare_outputs([ref[0] + 1e-6], ref, 1e-3)["ok"]
    assert not compare_outputs([ref[0] + 1.0], ref, 1e-3)["ok"]
    assert not compare_outputs([ref[0].reshape(2, 1)], ref, 1e-3)["ok"]
    assert not compare_outputs([], ref, 1e-3)["ok"]


def test_iterations_are_capped_only_for_slow_configurations():
    plan = Plan(iterations=20, min_iterations=5, max_seconds=10.0)
    assert plan.capped_for(None).iterations == 20
    assert plan.capped_for(100.0).iterations == 20      # 20 x 0.1 s fits in 10 s
    assert plan.capped_for(1000.0).iterations == 10
    assert plan.capped_for(60_000.0).iterations == 5    # never below min_iterations


def test_bench_runs_every_configuration_on_a_tiny_model(tmp_path):
    assert CLI.is_file(), f"{CLI} is missing: build it first (make build)"
    options = BenchOptions(models=["small_cnn"], threads=[1], rounds=1,
                           plan=Plan(iterations=2, warmup=1, warmup_seconds=0.0, min_iterations=1, max_seconds=0),
                           out_dir=tmp_path)
    data = run(options, log=lambda _: None)
    peers_python = data["host"]["peers_python"]
    paths = write_outputs(data, tmp_path, peers_python, chart=True, log=lambda _: None)

    loaded = json.loads(paths["json"].read_text())
    assert {"schema", "host", "options", "configs", "models", "results", "ratios"} <= set(loaded)
    assert loaded["models"]["small_cnn"]["flops"] > 0
    results = {r["config"]: r for r in loaded["results"]}
    assert sorted(results) == sorted(c.name for c in CONFIGS)
    for r in loaded["results"]:
        precision = by_name([r["config"]])[0].precision  # fp32, or int8 for the quantized ones
        assert (r["model"], r["threads"], r["precision"]) == ("small_cnn", 1, precision)
        assert r["status"] in ("ok", "unavailable", "failed")
        if r["status"] == "ok":
            assert len(r["latencies_ms"]) == 2 and r["iterations"] == 2
            assert r["median_ms"] > 0 and r["load_ms"] >= 0
            assert r["peak_rss_bytes"] > 0 and r["file_bytes"] > 0 and r["gflops_per_s"] > 0
            assert r["accuracy"]["ok"], r["accuracy"]
        else:
            assert r["reason"]

    assert results["torchedge-portable"]["status"] == "ok"
    assert results["eager"]["status"] == "ok"
    # The delegate runs, or says why it cannot: a delegate that lowers but
    # then fails is a failure here.
    assert results["torchedge-xnnpack"]["status"] in ("ok", "unavailable"), results["torchedge-xnnpack"]
    expected_peer_status = "ok" if Environment.discover().peers_python else "unavailable"
    assert results["onnxruntime"]["status"] == expected_peer_status, results["onnxruntime"]
    assert results["executorch-xnnpack"]["status"] == expected_peer_status, results["executorch-xnnpack"]
    # Each child's own peak RSS, not the forking parent's: the bare C++ CLI is
    # far smaller than a process holding torch.
    assert results["torchedge-portable"]["peak_rss_bytes"] < results["eager"]["peak_rss_bytes"] / 4

    rows = {r["precision"]: r for r in loaded["ratios"]}
    assert sorted(rows) == ["fp32", "int8"]  # ratios never mix precisions
    row = rows["fp32"]
    assert row["torchedge_best"] in ("torchedge-portable", "torchedge-optimized", "torchedge-xnnpack")
    best_ms = results[row["torchedge_best"]]["median_ms"]
    assert row["peers"]["eager"]["ratio"] == pytest.approx(best_ms / results["eager"]["median_ms"])
    int8 = rows["int8"]
    if int8["torchedge_best"] is not None:
        assert int8["torchedge_best"] in {c.name for c in CONFIGS
                                          if c.family == "torchedge" and c.precision == "int8"}
        assert "eager" not in int8["peers"] and "onnxruntime" not in int8["peers"]

    markdown = paths["markdown"].read_text()
    assert "small_cnn" in markdown and "## Ratios" in markdown
    assert markdown == markdown_report(loaded)
    assert "small_cnn" in ratio_table_text(loaded)
    assert loaded["host"]["cpu_id"]
    if (CLI.parent / "int8_mac_peak").exists():  # x86-64 builds: the host's int8 / float rates
        assert set(loaded["host"]["mac_rates_gmacs_per_core"]) == {"fma", "int16", "u8s8"}
    if int8["torchedge_best"] is not None:  # float and int8 both ran: the speed-up section
        assert "## int8 against float in torchedge" in markdown
    if peers_python:  # .venv-peers holds matplotlib
        assert paths["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
