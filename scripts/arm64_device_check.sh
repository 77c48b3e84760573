#!/usr/bin/env bash
# Runs the ARM64 build's C++ test suite and the benchmark runner on a real
# 64-bit ARM device (docs/arm64.md, "Real devices"), over ssh (a Linux board
# or phone shell) or adb (Android):
#
#   scripts/arm64_device_check.sh --ssh user@host [--port N]
#   scripts/arm64_device_check.sh --adb [SERIAL]
#   scripts/arm64_device_check.sh            # TORCHEDGE_DEVICE_SSH / TORCHEDGE_DEVICE_ADB,
#                                            # else the one device `adb devices` lists
#
# Options: --build DIR (default build-arm64: `make build-arm64`, or an NDK build
# configured with the NDK's toolchain file), --models DIR (the .pte files to
# benchmark; default DIR/test_models, which `make test-arm64` fills),
# --remote DIR (default /data/local/tmp/torchedge on adb, /tmp/torchedge over
# ssh), --iterations N (default 20), --require (exit 2 when no device is
# reachable; otherwise that is a notice and exit 0).
#
# What runs: every test `ctest --test-dir BUILD` registers, with its
# environment (GTEST_FILTER; QEMU_CPU is dropped: the device's own CPU
# features decide the kernel levels), the command minus the QEMU prefix;
# then `torchedge_run MODEL --json --threads 1` and `--threads 4` on each
# model, as make bench's torchedge configurations run it. The shared
# libraries the build links (XNNPACK, pthreadpool, cpuinfo from
# .arm64-sysroot) go beside the binaries (LD_LIBRARY_PATH). Prints one line
# per test and per model, a summary, and exits 1 when any test fails.
set -euo pipefail

build=build-arm64 models="" remote="" iterations=20 require=0 mode="" target="" port=22
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ssh) mode=ssh target="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    --adb) mode=adb; if [[ $# -gt 1 && "$2" != --* ]]; then target="$2"; shift; fi; shift ;;
    --build) build="$2"; shift 2 ;;
    --models) models="$2"; shift 2 ;;
    --remote) remote="$2"; shift 2 ;;
    --iterations) iterations="$2"; shift 2 ;;
    --require) require=1; shift ;;
    -h|--help) sed -n '2,29p' "$0"; exit 0 ;;
    *) echo "arm64_device_check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

no_device() {
  echo "arm64_device_check: no ARM64 device reachable ($1)"
  exit $(( require ? 2 : 0 ))
}

if [[ -z "$mode" ]]; then
  if [[ -n "${TORCHEDGE_DEVICE_SSH:-}" ]]; then
    mode=ssh target="$TORCHEDGE_DEVICE_SSH"
  elif [[ -n "${TORCHEDGE_DEVICE_ADB:-}" ]]; then
    mode=adb target="$TORCHEDGE_DEVICE_ADB"
  elif command -v adb >/dev/null && [[ $(adb devices | awk 'NR > 1 && $2 == "device"' | wc -l) -eq 1 ]]; then
    mode=adb
  else
    no_device "give --ssh user@host or --adb, or set TORCHEDGE_DEVICE_SSH / TORCHEDGE_DEVICE_ADB"
  fi
fi

case "$mode" in
  ssh)
    remote=${remote:-/tmp/torchedge}
    ssh_opts=(-p "$port" -o BatchMode=yes -o ConnectTimeout=10)
    dev_sh() { ssh "${ssh_opts[@]}" "$target" "$1"; }
    dev_push() { scp -q -P "$port" -o BatchMode=yes -r "$@" "$target:$remote/"; }
    ;;
  adb)
    command -v adb >/dev/null || no_device "adb is not installed"
    remote=${remote:-/data/local/tmp/torchedge}
    adb_cmd=(adb); [[ -n "$target" ]] && adb_cmd+=(-s "$target")
    dev_sh() { "${adb_cmd[@]}" shell "$1"; }
    dev_push() { "${adb_cmd[@]}" push "$@" "$remote/" >/dev/null; }
    ;;
esac

arch=$(dev_sh "uname -m" 2>/dev/null | tr -d '\r') || no_device "$mode $target does not answer"
[[ "$arch" == aarch64 || "$arch" == arm64 ]] || { echo "arm64_device_check: the device is $arch, not aarch64" >&2; exit 2; }
[[ -x "$build/torchedge_run" ]] || { echo "arm64_device_check: no $build/torchedge_run (make build-arm64)" >&2; exit 2; }
models=${models:-$build/test_models}

# The tests: name, environment, executable and arguments, from ctest's JSON
# (the command's QEMU prefix and QEMU_CPU dropped), fields split by the
# unit separator (not a tab: read would merge an empty environment).
tests=$(ctest --test-dir "$build" --show-only=json-v1 | python3 -c '
import json, os, sys
for t in json.load(sys.stdin)["tests"]:
    cmd = t.get("command") or []
    exe = next((i for i, a in enumerate(cmd) if os.path.basename(a) != "qemu-aarch64" and os.path.isfile(a)
                and not a.endswith(".so") and "/usr/aarch64-linux-gnu" not in a), None)
    if exe is None or "qemu" in t["name"]:
        continue  # the QEMU plugin test has no meaning on hardware
    env = [e for p in t.get("properties", []) if p["name"] == "ENVIRONMENT" for e in p["value"]
           if not e.startswith("QEMU_CPU=") and not e.startswith("TORCHEDGE_TEST_MODELS=")]
    print("\x1f".join([t["name"], " ".join(env), cmd[exe], " ".join(cmd[exe + 1:])]))
')

echo "device: $mode $target ($arch), remote folder $remote"
dev_sh "mkdir -p $remote/models"
libdir=.arm64-sysroot/usr/lib/aarch64-linux-gnu
libs=()
for lib in libXNNPACK.so.0 libpthreadpool.so.0 libcpuinfo.so.0; do
  [[ -e "$libdir/$lib" ]] && libs+=("$(readlink -f "$libdir/$lib")")
done
exes=$(cut -d $'\x1f' -f3 <<<"$tests" | sort -u)
# shellcheck disable=SC2086
dev_push "$build/torchedge_run" $exes
for lib in "${libs[@]}"; do
  dev_push "$lib"
  base=$(basename "$lib"); soname=${base%%.so.*}.so.0
  [[ "$base" != "$soname" ]] && dev_sh "ln -sf $remote/$base $remote/$soname"
done
shopt -s nullglob
model_files=("$models"/*.pte)
for m in "${model_files[@]}"; do
  if [[ "$mode" == adb ]]; then "${adb_cmd[@]}" push "$(readlink -f "$m")" "$remote/models/$(basename "$m")" >/dev/null
  else scp -q -P "$port" -o BatchMode=yes "$(readlink -f "$m")" "$target:$remote/models/$(basename "$m")"; fi
done
run_env="cd $remote && LD_LIBRARY_PATH=$remote TORCHEDGE_TEST_MODELS=$remote/models"

failed=0 passed=0
while IFS=$'\x1f' read -r name env exe args; do
  [[ -z "$name" ]] && continue
  start=$(date +%s)
  if dev_sh "$run_env $env ./$(basename "$exe") $args > $remote/$name.log 2>&1"; then
    passed=$((passed + 1)); status=passed
  else
    failed=$((failed + 1)); status="FAILED (log: $remote/$name.log)"
  fi
  echo "test $name: $status, $(( $(date +%s) - start )) s"
done <<<"$tests"

for m in "${model_files[@]}"; do
  for threads in 1 4; do
    out=$(dev_sh "$run_env ./torchedge_run models/$(basename "$m") --json --threads $threads \
                  --iterations $iterations --warmup-ms 200" 2>&1 | tr -d '\r') || out="error: $out"
    median=$(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); print(f"{d[\"median_ms\"]:.3f} ms")' \
             "$(tail -n 1 <<<"$out")" 2>/dev/null || echo "failed: $(tail -n 1 <<<"$out")")
    echo "bench $(basename "$m" .pte) threads=$threads: median $median"
  done
done
echo "tests: $passed passed, $failed failed"
exit $(( failed > 0 ))
