#!/usr/bin/env bash
# Size of the core runtime without kernels: the .text of the core, platform,
# kernel-registry and executor libraries (the flatbuffers reader/verifier code
# they instantiate included), built for size (MinSizeRel, -ffunction-sections).
# Prints KiB per library and in total.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build-size
cmake -G Ninja -S . -B $BUILD -DCMAKE_BUILD_TYPE=MinSizeRel -DTORCHEDGE_BUILD_TESTS=OFF \
  -DTORCHEDGE_BUILD_PYBINDINGS=OFF -DCMAKE_CXX_FLAGS="-ffunction-sections -fdata-sections" >/dev/null
cmake --build $BUILD --target torchedge_core torchedge_platform torchedge_kernel torchedge_executor >/dev/null
total=0
for lib in core platform kernel executor; do
  archive=$BUILD/libtorchedge_$lib.a
  strip --strip-unneeded -o /tmp/torchedge_$lib.stripped.a "$archive"
  bytes=$(size -A /tmp/torchedge_$lib.stripped.a | awk '$1 ~ /^\.text/ {s += $2} END {print s + 0}')
  printf "%-10s %7.1f KiB\n" "$lib" "$(echo "$bytes / 1024" | bc -l)"
  total=$((total + bytes))
done
printf "%-10s %7.1f KiB (.text, stripped)\n" total "$(echo "$total / 1024" | bc -l)"
