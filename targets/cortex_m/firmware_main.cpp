// The Cortex-M firmware: runs the embedded program once on its embedded
// inputs and reports through semihosting (docs/cortex-m.md):
//   output <i> <dtype> <numel>         then its bytes as hex, 32 per line
//   hex <bytes>
//   stats key=value ...                 memory and time
// Everything lives in static buffers sized at build time: the planned
// arenas and the method allocator's pool (from the program,
// scripts/embed_program.py) and the kernels' scratch
// (TORCHEDGE_FW_TEMP_BYTES). Exit status 0 only when every step succeeded.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "extension/data_loader/buffer_data_loader.h"
#include "kernels/selective/register_selected_kernels.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"
#include "runtime/platform/bare_metal/bare_metal_platform.h"
#include "runtime/platform/bare_metal/semihosting.h"
#include "targets/cortex_m/firmware.h"
#include "targets/cortex_m/model_arenas.h"

#ifndef TORCHEDGE_FW_TEMP_BYTES
#define TORCHEDGE_FW_TEMP_BYTES 1024
#endif
#ifndef TORCHEDGE_FW_CPU_HZ
#define TORCHEDGE_FW_CPU_HZ 20000000u  // QEMU's mps2-an505 SYSCLK (20 MHz)
#endif

using namespace torchedge;

extern "C" __attribute__((noinline)) void torchedge_marker_begin() { asm volatile("" ::: "memory"); }
extern "C" __attribute__((noinline)) void torchedge_marker_end() { asm volatile("" ::: "memory"); }

namespace {

/// A bump allocator that remembers its peak (the temp allocator is reset
/// after every kernel, so used() alone says nothing after execute()).
class PeakAllocator final : public MemoryAllocator {
 public:
  PeakAllocator(void* base, size_t size) : MemoryAllocator(base, size) {}
  void* allocate(size_t nbytes, size_t alignment) override {
    void* p = MemoryAllocator::allocate(nbytes, alignment);
    if (used() > peak_) peak_ = used();
    return p;
  }
  size_t peak() const { return peak_; }

 private:
  size_t peak_ = 0;
};

alignas(16) uint8_t g_temp_pool[TORCHEDGE_FW_TEMP_BYTES];

void print(const char* format, ...) __attribute__((format(printf, 1, 2)));
void print(const char* format, ...) {
  char line[384];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof(line), format, args);
  va_end(args);
  semihosting::write0(line);
}

int fail(const char* what, Error error) {
  print("error: %s: %s: ", what, error_name(error));
  semihosting::write0(last_error_message());
  semihosting::write0("\n");
  return 1;
}

void print_bytes(const uint8_t* data, size_t nbytes) {
  static const char kHex[] = "0123456789abcdef";
  char line[4 + 64 + 2];
  for (size_t i = 0; i < nbytes; i += 32) {
    size_t n = nbytes - i < 32 ? nbytes - i : 32, k = 0;
    memcpy(line, "hex ", 4);
    k = 4;
    for (size_t j = 0; j < n; ++j) {
      line[k++] = kHex[data[i + j] >> 4];
      line[k++] = kHex[data[i + j] & 15];
    }
    line[k++] = '\n';
    line[k] = '\0';
    semihosting::write0(line);
  }
}

}  // namespace

int main() {
  bare_metal_platform_init(TORCHEDGE_FW_CPU_HZ);
  asm volatile("cpsie i" ::: "memory");
  Error error = register_selected_kernels();
  if (error != Error::Ok) return fail("registering kernels", error);

  BufferDataLoader loader(firmware::kProgram, firmware::kProgramBytes);
  auto program = Program::load(&loader);
  if (!program.ok()) return fail("Program::load", program.error());
  auto meta = program->method_meta("forward");
  if (!meta.ok()) return fail("method_meta", meta.error());

  Span<uint8_t> arenas[firmware::kMaxArenas];
  const size_t num_arenas = firmware::model_arenas(arenas);
  PlannedMemory planned(Span<Span<uint8_t>>(arenas, num_arenas));
  const Span<uint8_t> method_pool = firmware::method_pool();
  MemoryAllocator method_allocator(method_pool.data(), method_pool.size());
  PeakAllocator temp_allocator(g_temp_pool, sizeof(g_temp_pool));
  MemoryManager memory{&method_allocator, &planned, &temp_allocator};
  auto method = program->load_method("forward", &memory);
  if (!method.ok()) return fail("load_method", method.error());

  if (method->num_inputs() != firmware::kNumInputs) {
    print("error: the method takes %u inputs, %u are embedded\n", unsigned(method->num_inputs()),
          unsigned(firmware::kNumInputs));
    return 1;
  }
  // Inputs: tensors over the embedded bytes (set_input copies them into
  // the planned arena). Metadata storage for ranks up to 8.
  constexpr int kMaxRank = 8;
  for (size_t i = 0; i < firmware::kNumInputs; ++i) {
    auto info = meta->input_tensor_info(i);
    if (!info.ok()) return fail("input_tensor_info", info.error());
    if (info->sizes.size() > size_t{kMaxRank} || info->nbytes != firmware::kInputs[i].nbytes) {
      print("error: input %u: %u bytes embedded, %u planned\n", unsigned(i),
            unsigned(firmware::kInputs[i].nbytes), unsigned(info->nbytes));
      return 1;
    }
    Tensor::SizesType sizes[kMaxRank], strides[kMaxRank];
    uint8_t order[kMaxRank];
    for (size_t d = 0; d < info->sizes.size(); ++d) {
      sizes[d] = info->sizes[d];
      order[d] = info->dim_order[d];
    }
    Tensor input(info->dtype, static_cast<int>(info->sizes.size()), sizes, order, strides,
                 const_cast<void*>(firmware::kInputs[i].data));
    error = method->set_input(i, EValue(&input));
    if (error != Error::Ok) return fail("set_input", error);
  }

  const uint64_t start = bare_metal_cycles();
  torchedge_marker_begin();
  error = method->execute();
  torchedge_marker_end();
  const uint64_t cycles = bare_metal_cycles() - start;
  if (error != Error::Ok) return fail("execute", error);

  for (size_t i = 0; i < method->num_outputs(); ++i) {
    auto out = method->output(i);
    if (!out.ok()) return fail("output", out.error());
    if (!(*out)->is_tensor()) continue;
    const Tensor& t = (*out)->to_tensor();
    print("output %u %s %u\n", unsigned(i), to_string(t.dtype()), unsigned(t.numel()));
    print_bytes(static_cast<const uint8_t*>(t.data()), t.nbytes());
  }
  size_t arena_bytes = 0;
  for (size_t i = 0; i < num_arenas; ++i) arena_bytes += arenas[i].size();
  print("stats model=%s program_bytes=%u arena_bytes=%u method_allocator_used=%u "
        "method_allocator_bytes=%u temp_peak=%u temp_bytes=%u stack_high_water=%u stack_bytes=%u "
        "heap_requests=%u systick_cycles=%lu\n",
        firmware::kModelName, unsigned(firmware::kProgramBytes), unsigned(arena_bytes),
        unsigned(method_allocator.used()), unsigned(method_pool.size()),
        unsigned(temp_allocator.peak()), unsigned(sizeof(g_temp_pool)),
        unsigned(firmware::stack_high_water_bytes()), unsigned(firmware::stack_bytes()),
        unsigned(firmware::heap_requests()), static_cast<unsigned long>(cycles));
  return firmware::heap_requests() == 0 ? 0 : 1;
}
