// torchedge_minimal_run FILE.pte [METHOD]
//
// The smallest host runner: FileDataLoader + Program + Method over the
// portable and prim kernels only (no Module, no optimized kernels, no
// delegates, no ETDump), so its stripped size is the runtime's own cost.
// Built twice: torchedge_minimal_run registers every portable and prim
// kernel; torchedge_selective_run (a build configured with
// -DTORCHEDGE_SELECTED_OPS=ops.yaml) registers the selected ones only
// (docs/selective-build.md compares their sizes).
//
// Inputs are filled with a fixed pattern (floats (37 i mod 101) / 50 - 1,
// integers and bools i mod 2), so two builds can be compared on their
// printed outputs: per output its dtype, element count, an FNV-1a hash of
// its bytes and its first values. Exit status 1 with the runtime's message
// on any error.
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "extension/data_loader/file_data_loader.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

#if defined(TORCHEDGE_MINIMAL_RUN_SELECTED)
#include "kernels/selective/register_selected_kernels.h"
#else
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim/prim_kernels.h"
#endif

namespace {

using namespace torchedge;

constexpr size_t kTempBytes = size_t{16} << 20;
const char* g_program_name = "torchedge_minimal_run";

int fail(const char* what, Error error) {
  fprintf(stderr, "%s: %s: %s: %s\n", g_program_name, what, error_name(error),
          last_error_message());
  return 1;
}

Error register_kernels_of_this_build() {
#if defined(TORCHEDGE_MINIMAL_RUN_SELECTED)
  return register_selected_kernels();
#else
  TE_RETURN_IF_ERROR(register_portable_kernels());
  return register_prim_kernels();
#endif
}

void fill_pattern(ScalarType dtype, void* data, size_t numel) {
  for (size_t i = 0; i < numel; ++i) {
    switch (dtype) {
      case ScalarType::Float: static_cast<float*>(data)[i] = float(i * 37 % 101) / 50.0f - 1.0f; break;
      case ScalarType::Long: static_cast<int64_t*>(data)[i] = int64_t(i % 2); break;
      case ScalarType::Int: static_cast<int32_t*>(data)[i] = int32_t(i % 2); break;
      case ScalarType::Bool: static_cast<bool*>(data)[i] = (i % 2) != 0; break;
      default: memset(data, 0, numel * element_size(dtype)); return;
    }
  }
}

uint64_t fnv1a(const void* data, size_t nbytes) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < nbytes; ++i) h = (h ^ static_cast<const uint8_t*>(data)[i]) * 1099511628211ull;
  return h;
}

void print_output(size_t index, const Tensor& t) {
  printf("output %zu: %s numel=%zu fnv1a=%016" PRIx64, index, to_string(t.dtype()), t.numel(),
         fnv1a(t.data(), t.nbytes()));
  for (size_t i = 0; i < t.numel() && i < 4; ++i) {
    if (t.dtype() == ScalarType::Float) printf(" %.6g", static_cast<const float*>(t.data())[i]);
  }
  printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s FILE.pte [METHOD]\n", argv[0]);
    return 2;
  }
  g_program_name = argv[0];
  const char* method_name = argc == 3 ? argv[2] : "forward";
  Error error = register_kernels_of_this_build();
  if (error != Error::Ok) return fail("registering kernels", error);
  auto loader = FileDataLoader::open(argv[1]);
  if (!loader.ok()) return fail(argv[1], loader.error());
  auto program = Program::load(&loader.get());
  if (!program.ok()) return fail(argv[1], program.error());
  auto meta = program->method_meta(method_name);
  if (!meta.ok()) return fail(method_name, meta.error());

  std::vector<std::vector<uint8_t>> arenas(meta->num_planned_buffers());
  std::vector<Span<uint8_t>> spans;
  for (size_t i = 0; i < arenas.size(); ++i) {
    arenas[i].resize(meta->planned_buffer_size(i).get());
    spans.push_back({arenas[i].data(), arenas[i].size()});
  }
  std::vector<uint64_t> method_pool(meta->method_allocator_bytes() / 8 + 1);
  std::vector<uint64_t> temp_pool(kTempBytes / 8);
  MemoryAllocator method_allocator(method_pool.data(), method_pool.size() * 8);
  MemoryAllocator temp_allocator(temp_pool.data(), kTempBytes);
  PlannedMemory planned({spans.data(), spans.size()});
  MemoryManager memory{&method_allocator, &planned, &temp_allocator};
  auto method = program->load_method(method_name, &memory);
  if (!method.ok()) return fail("load_method", method.error());

  // One buffer per tensor input, filled with the pattern, copied in by set_input.
  std::vector<std::vector<uint8_t>> input_data(method->num_inputs());
  std::vector<Tensor> inputs(method->num_inputs());
  std::vector<std::vector<int32_t>> sizes(method->num_inputs()), strides(method->num_inputs());
  std::vector<std::vector<uint8_t>> orders(method->num_inputs());
  for (size_t i = 0; i < method->num_inputs(); ++i) {
    auto info = meta->input_tensor_info(i);
    if (!info.ok()) return fail("input_tensor_info (only tensor inputs are supported)", info.error());
    sizes[i].assign(info->sizes.begin(), info->sizes.end());
    orders[i].assign(info->dim_order.begin(), info->dim_order.end());
    strides[i].resize(sizes[i].size());
    input_data[i].resize(info->nbytes + 1);
    inputs[i] = Tensor(info->dtype, static_cast<int>(sizes[i].size()), sizes[i].data(),
                       orders[i].data(), strides[i].data(), input_data[i].data());
    fill_pattern(info->dtype, input_data[i].data(), inputs[i].numel());
    error = method->set_input(i, EValue(&inputs[i]));
    if (error != Error::Ok) return fail("set_input", error);
  }
  error = method->execute();
  if (error != Error::Ok) return fail("execute", error);
  for (size_t i = 0; i < method->num_outputs(); ++i) {
    auto out = method->output(i);
    if (!out.ok()) return fail("output", out.error());
    if ((*out)->is_tensor()) print_output(i, (*out)->to_tensor());
  }
  return 0;
}
