# The front door. `make demo` and `make test` set everything up from a fresh
# clone (Debian packages, .venv, C++ build) and are safe to re-run.
VENV    := .venv
PY      := $(VENV)/bin/python
BUILD   := build
JOBS    ?= $(shell nproc)
empty   :=
space   := $(empty) $(empty)
PYGEN   := python/torchedge/serialize/_generated

# test-cortex-m, build-cortex-m: the Cortex-M33 firmware under QEMU (docs/cortex-m.md).
.PHONY: build-cortex-m test-cortex-m
.PHONY: all setup peers llm-peers build test test-cpp test-python demo bench llm-demo bench-llm clean fuzz fuzz-build test-fuzz-regressions tsan build-arm64 test-arm64

all: build

setup:
	@./scripts/setup.sh

peers:
	@./scripts/setup_peers.sh

llm-peers: peers
	@./scripts/setup_llm_peers.sh

$(BUILD)/build.ninja: CMakeLists.txt | setup
	cmake -G Ninja -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=$(abspath $(PY))

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)
	@mkdir -p $(PYGEN)
	@flatc --python -o $(PYGEN) schema/program.fbs schema/scalar_type.fbs
	@touch $(PYGEN)/__init__.py
	@$(PY) -c "import torchedge" 2>/dev/null || $(PY) -m pip install -q --no-deps --no-build-isolation -e .

test-cpp: build
	$(PY) scripts/export_test_models.py $(BUILD)/test_models
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# pytest-xdist spreads the tests over JOBS processes; loadgroup keeps the
# tests marked xdist_group(name) on one worker (tests/conftest.py says which
# and why). Each worker has its own temp folder and thread-count globals.
# The 25 slowest tests are listed at the end (docs/testing.md).
test-python: build peers
	$(PY) -m pytest -q tests -n $(JOBS) --dist loadgroup --durations=25

test: test-cpp test-python test-arm64 test-cortex-m

# MODEL=<name> picks any built-in or zoo model (e.g. make demo MODEL=resnet18);
# DEMO_ARGS passes other options (python -m torchedge.demo --help).
demo: build
	$(PY) -m torchedge.demo $(if $(MODEL),--model $(MODEL)) $(DEMO_ARGS)

# Not part of `make test`: the zoo on torchedge and its peers (docs/benchmarks.md).
# BENCH_ARGS passes options, e.g. make bench BENCH_ARGS="--models resnet18 --threads 1".
bench: build peers
	$(PY) -m torchedge.bench $(BENCH_ARGS)

# SmolLM2-135M-Instruct exported to a 4-bit .pte and chatting from the C++ runner
# (docs/llm.md); LLM_DEMO_ARGS passes options (python -m torchedge.llm.demo --help).
llm-demo: build
	$(PY) -m torchedge.llm.demo $(LLM_DEMO_ARGS)

# Not part of `make test`: torchedge against llama.cpp on the same GGUF (docs/llm.md).
bench-llm: build llm-peers
	$(PY) -m torchedge.bench.llm $(BENCH_LLM_ARGS)

clean:
	rm -rf $(BUILD) $(ARM64_BUILD) $(CM_BUILD) $(PYGEN)

# ---- ARM64 (docs/arm64.md): cross-built, tested under qemu-aarch64 ----------
# Only what the ARM64 tests run is built (no benchmarks, no Python bindings).
# ARM64_EMULATOR repeats the toolchain file's CMAKE_CROSSCOMPILING_EMULATOR.
ARM64_BUILD    := build-arm64
ARM64_LIBDIR   := $(abspath .arm64-sysroot)/usr/lib/aarch64-linux-gnu
ARM64_EMULATOR := qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:$(ARM64_LIBDIR)
ARM64_TARGETS  := torchedge_run core_test executor_test flat_tensor_test etdump_test \
                  portable_kernels_test prim_kernels_test optimized_kernels_test \
                  quantized_kernels_test xnnpack_backend_test extension_test llm_test embedding_test \
                  qemu_insn_count insn_count_selftest

$(ARM64_BUILD)/build.ninja: CMakeLists.txt cmake/aarch64-linux-gnu.cmake | setup
	cmake -G Ninja -S . -B $(ARM64_BUILD) -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
	  -DCMAKE_BUILD_TYPE=Release -DTORCHEDGE_BUILD_PYBINDINGS=OFF

build-arm64: setup $(ARM64_BUILD)/build.ninja
	cmake --build $(ARM64_BUILD) -j $(JOBS) --target $(ARM64_TARGETS)

# The ctest suite under QEMU (slow suites filtered: CMakeLists.txt, "Under
# QEMU") and the models test-cpp exported, ARM64 against the host runtime:
# those under 2 MB only (the transformers models take minutes each emulated).
test-arm64: build-arm64 test-cpp
	@rm -rf $(ARM64_BUILD)/test_models && mkdir -p $(ARM64_BUILD)/test_models
	@find $(abspath $(BUILD))/test_models -name '*.pte' -size -2048k -exec ln -s {} $(ARM64_BUILD)/test_models/ \;
	# Host suites, not cross-built: concurrency_test / exhaustion_test (stress_test: too slow
	# emulated), the selective build's tests (its ARM64 sizes: docs/selective-build.md), the
	# Cortex-M kernels' host check and the fuzzers' mutator test.
	ctest --test-dir $(ARM64_BUILD) --output-on-failure -j $(JOBS) \
	  -E "^(concurrency_test|exhaustion_test|selective_kernels_test|selective_build_test|cortex_m_kernels_test|fuzz_mutator_test)$$"
	$(PY) scripts/arm64_parity.py --host $(BUILD)/torchedge_run --arm64 $(ARM64_BUILD)/torchedge_run \
	  --emulator "$(ARM64_EMULATOR)" $(ARM64_BUILD)/test_models

# ---- fuzzing (fuzz/README.md): clang + libFuzzer + ASan/UBSan, its own build ----
FUZZ_BUILD   := build-fuzz
FUZZ_SECONDS ?= 60
FUZZERS      := program module xnnpack_blob tokenizer ptd vulkan_blob

$(FUZZ_BUILD)/build.ninja: CMakeLists.txt fuzz/CMakeLists.txt | setup
	cmake -G Ninja -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-14 -DTORCHEDGE_FUZZ=ON \
	  -DTORCHEDGE_BUILD_TESTS=OFF -DTORCHEDGE_BUILD_PYBINDINGS=OFF

fuzz-build: setup $(FUZZ_BUILD)/build.ninja
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(addsuffix _fuzzer,$(FUZZERS))

# Every harness for FUZZ_SECONDS each, from the seed corpora plus what earlier
# runs found (build-fuzz/corpus); a crash lands in fuzz/regressions/<harness>/.
fuzz: fuzz-build build
	$(PY) scripts/fuzz_seed_corpus.py $(FUZZ_BUILD)/seeds
	@for h in $(FUZZERS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$h fuzz/regressions/$$h; \
	  echo "fuzz: $$h for $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
	  $(FUZZ_BUILD)/$${h}_fuzzer $(FUZZ_BUILD)/corpus/$$h $(FUZZ_BUILD)/seeds/$$h \
	    -dict=fuzz/pte.dict -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	    -max_len=262144 -print_final_stats=1 \
	    -artifact_prefix=fuzz/regressions/$$h/ 2>&1 | tail -n 25 || exit 1; \
	done

# The checked-in regression corpora, replayed under the sanitizers (make test runs it).
test-fuzz-regressions: fuzz-build
	ctest --test-dir $(FUZZ_BUILD) --output-on-failure -R fuzz_regressions

# ---- ThreadSanitizer (docs/architecture.md, thread safety): clang, its own build ----
# 16 threads running Methods of one Program, Modules over one file, a shared
# pool, thread-count changes (extension/test/stress/concurrency_test.cpp);
# TORCHEDGE_STRESS_ITERATIONS scales the executions per thread.
TSAN_BUILD := build-tsan

$(TSAN_BUILD)/build.ninja: CMakeLists.txt | setup
	cmake -G Ninja -S . -B $(TSAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_COMPILER=clang++-14 "-DCMAKE_CXX_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" \
	  -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DTORCHEDGE_BUILD_PYBINDINGS=OFF

tsan: build $(TSAN_BUILD)/build.ninja
	cmake --build $(TSAN_BUILD) -j $(JOBS) --target stress_test
	@test -d $(BUILD)/test_models || $(PY) scripts/export_test_models.py $(BUILD)/test_models
	TSAN_OPTIONS="history_size=4" TORCHEDGE_TEST_MODELS=$(abspath $(BUILD))/test_models \
	  $(TSAN_BUILD)/stress_test --gtest_filter='ConcurrencyTest.*'

# ---- Cortex-M33 (docs/cortex-m.md): firmware per model, run under qemu-system-arm ----
# The models (DS-CNN keyword spotting and a small MLP, float32 and int8) are
# exported on the host with their eager and host-runtime references; each
# firmware carries only its model's kernels and dtypes (selective build).
CM_BUILD  := build-cortex-m
CM_MODELS := ds_cnn_kws_fp32 ds_cnn_kws_int8 tiny_mlp_fp32 tiny_mlp_int8

build-cortex-m: build
	$(PY) scripts/cortex_m_models.py $(CM_BUILD)/models
	cmake -G Ninja -S targets/cortex_m -B $(CM_BUILD) \
	  -DCMAKE_TOOLCHAIN_FILE=$(abspath cmake/arm-none-eabi-cortex-m33.cmake) \
	  -DPython3_EXECUTABLE=$(abspath $(PY)) -DTORCHEDGE_MODELS_DIR=$(abspath $(CM_BUILD))/models \
	  "-DTORCHEDGE_FW_MODELS=$(subst $(space),;,$(CM_MODELS))"
	cmake --build $(CM_BUILD) -j $(JOBS)

test-cortex-m: build-cortex-m
	ctest --test-dir $(CM_BUILD) --output-on-failure -j $(JOBS)
