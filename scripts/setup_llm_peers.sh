#!/usr/bin/env bash
# Idempotent: builds llama.cpp's own llama-bench, llama-perplexity,
# llama-tokenize and llama-simple from the vendor/llama.cpp of the
# llama-cpp-python sdist pinned in requirements-llm-peers.txt, for make
# bench-llm. The binaries are cached in .venv-peers/llama.cpp/bin with a stamp
# of the version and the CMake flags; a second run with the same stamp does
# nothing. About ten minutes on 2 cores the first time.
#
# Flags (shared/PEERS.md): GGML_NATIVE=OFF with the ISA flags listed
# explicitly, each only where /proc/cpuinfo has it, so the same script serves
# an AVX-512 Zen 4 or Xeon and an AVX2-only Zen 1/3. AMX int8 stays off: with
# it llama.cpp segfaults in its first decode on AMX hosts. OpenMP off: ggml's
# own thread pool, as the Python binding's build uses.
set -euo pipefail
cd "$(dirname "$0")/.."

ROOT=.venv-peers/llama.cpp
BIN=$ROOT/bin
TARGETS=(llama-bench llama-perplexity llama-tokenize llama-simple)
JOBS=${JOBS:-2}

spec=$(grep -E '^llama-cpp-python==' requirements-llm-peers.txt)
version=${spec#llama-cpp-python==}

cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { [[ "$cpu_flags" == *" $1 "* ]]; }
on_if() { if has "$2"; then echo "-D$1=ON"; else echo "-D$1=OFF"; fi; }

isa=(
  -DGGML_NATIVE=OFF
  "$(on_if GGML_AVX avx)"
  "$(on_if GGML_AVX2 avx2)"
  "$(on_if GGML_BMI2 bmi2)"
  "$(on_if GGML_FMA fma)"
  "$(on_if GGML_F16C f16c)"
  "$(on_if GGML_AVX_VNNI avx_vnni)"
  "$(on_if GGML_AVX512_VBMI avx512vbmi)"
  "$(on_if GGML_AVX512_VNNI avx512_vnni)"
  "$(on_if GGML_AVX512_BF16 avx512_bf16)"
  -DGGML_AMX_INT8=OFF
  -DGGML_AMX_TILE=OFF
  -DGGML_AMX_BF16=OFF
  -DGGML_OPENMP=OFF
)
# ggml's AVX512 switch means F, BW, DQ, CD and VL together.
if has avx512f && has avx512bw && has avx512vl && has avx512dq && has avx512cd; then
  isa+=(-DGGML_AVX512=ON)
else
  isa+=(-DGGML_AVX512=OFF -DGGML_AVX512_VBMI=OFF -DGGML_AVX512_VNNI=OFF -DGGML_AVX512_BF16=OFF)
fi

cmake_args=(
  -G Ninja
  -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF
  -DLLAMA_BUILD_TESTS=OFF
  -DLLAMA_BUILD_SERVER=OFF
  -DLLAMA_BUILD_APP=OFF
  -DLLAMA_BUILD_EXAMPLES=ON
  -DLLAMA_OPENSSL=OFF
  "${isa[@]}"
)
if command -v ccache >/dev/null; then
  cmake_args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

stamp_text="llama-cpp-python==$version ${cmake_args[*]} targets=${TARGETS[*]}"
STAMP=$BIN/.stamp
have_all=1
for t in "${TARGETS[@]}"; do [ -x "$BIN/$t" ] || have_all=0; done
if [ "$have_all" = 1 ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$stamp_text" ]; then
  exit 0
fi

echo "setup: building llama.cpp (llama-cpp-python==$version) into $BIN"
PY=python3
[ -x .venv/bin/python ] && PY=.venv/bin/python
sdist_dir=$ROOT/sdist
sdist=$sdist_dir/llama_cpp_python-$version.tar.gz
if [ ! -f "$sdist" ]; then
  mkdir -p "$sdist_dir"
  # --no-binary for this package only: with :all: pip would also build the
  # sdist's build requirements (cmake itself) from source to read metadata.
  "$PY" -m pip download -q --no-deps --no-binary llama-cpp-python "$spec" -d "$sdist_dir"
fi
src=$ROOT/src/llama_cpp_python-$version
if [ ! -f "$src/vendor/llama.cpp/CMakeLists.txt" ]; then
  mkdir -p "$ROOT/src"
  tar -xzf "$sdist" -C "$ROOT/src"
fi

build=$ROOT/build
cmake -S "$src/vendor/llama.cpp" -B "$build" "${cmake_args[@]}" >"$ROOT/cmake-configure.log"
cmake --build "$build" -j "$JOBS" --target "${TARGETS[@]}"
mkdir -p "$BIN"
for t in "${TARGETS[@]}"; do cp "$build/bin/$t" "$BIN/$t"; done
echo "$stamp_text" >"$STAMP"
echo "setup: llama.cpp binaries in $BIN"
