// libFuzzer's custom mutator for the harnesses whose input is a flatbuffer
// (program, module, ptd): half of the mutations replace one flatbuffer
// field's value (flatbuffer_mutator.h), the other half are libFuzzer's own
// byte-level ones. TORCHEDGE_FUZZ_RAW=1 in the environment turns the field
// mutations off, to measure what they add (fuzz/README.md).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fuzz/flatbuffer_mutator.h"

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) {
  static const bool raw = getenv("TORCHEDGE_FUZZ_RAW") != nullptr;
  if (!raw && seed % 2 == 0 && torchedge::fuzz::mutate_flatbuffer_field(data, size, seed / 2)) {
    return size;
  }
  return LLVMFuzzerMutate(data, size, max_size);
}
