// torchedge/targets/cortex_m/firmware.h
//
// What the firmware's start-up (startup.cpp) and its main (firmware_main.cpp)
// share, and what the generated model file (scripts/embed_program.py)
// defines: the program as a const array in flash, its inputs, and the sizes
// of the static buffers the method runs in.
#pragma once

#include <cstddef>
#include <cstdint>

namespace torchedge {
namespace firmware {

/// The word the reset handler paints the stack with; the high-water mark is
/// the deepest word no longer holding it.
constexpr uint32_t kStackPaint = 0xC0FFEE11u;

/// Bytes of the main stack used at the deepest point so far, and its size.
size_t stack_high_water_bytes();
size_t stack_bytes();

/// Times something asked newlib for heap (always refused); 0 expected.
uint32_t heap_requests();

// ---- defined by the generated model file --------------------------------
struct EmbeddedInput {
  const void* data;
  size_t nbytes;
};

extern const uint8_t kProgram[];  // the .pte, 64-byte aligned
extern const size_t kProgramBytes;
extern const EmbeddedInput kInputs[];  // raw bytes per method input
extern const size_t kNumInputs;
extern const char kModelName[];

}  // namespace firmware
}  // namespace torchedge

/// Marker calls around execute(): the instruction-counting QEMU plugin
/// (targets/cortex_m/qemu_plugin/insn_count.c) counts between them.
extern "C" void torchedge_marker_begin();
extern "C" void torchedge_marker_end();
