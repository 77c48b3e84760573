// Platform hooks for bare-metal Cortex-M (bare_metal_platform.h).
#include "runtime/platform/bare_metal/bare_metal_platform.h"

#include <cstdio>

#include "runtime/platform/bare_metal/semihosting.h"
#include "runtime/platform/platform.h"

namespace torchedge {
namespace {

// SysTick registers (Armv8-M System Control Space).
volatile uint32_t* const kSystCsr = reinterpret_cast<volatile uint32_t*>(0xE000E010);
volatile uint32_t* const kSystRvr = reinterpret_cast<volatile uint32_t*>(0xE000E014);
volatile uint32_t* const kSystCvr = reinterpret_cast<volatile uint32_t*>(0xE000E018);
constexpr uint32_t kReload = 0xFFFFFF;  // the full 24-bit range: fewest interrupts
constexpr uint32_t kEnable = 1u << 0, kTickInt = 1u << 1, kProcessorClock = 1u << 2;

volatile uint32_t g_wraps = 0;
uint32_t g_cpu_hz = 1;

}  // namespace

void bare_metal_platform_init(uint32_t cpu_hz) {
  g_cpu_hz = cpu_hz == 0 ? 1 : cpu_hz;
  *kSystRvr = kReload;
  *kSystCvr = 0;
  g_wraps = 0;
  *kSystCsr = kEnable | kTickInt | kProcessorClock;
}

uint64_t bare_metal_cycles() {
  // Re-read when a wrap lands between reading the count and the counter.
  for (;;) {
    const uint32_t wraps = g_wraps;
    const uint32_t value = *kSystCvr;
    if (wraps == g_wraps) {
      return (static_cast<uint64_t>(wraps) << 24) + (kReload - value);
    }
  }
}

uint64_t platform_now_ns() { return bare_metal_cycles() * 1000000000ull / g_cpu_hz; }

void platform_log(LogLevel level, const char* message) {
  static const char* const kNames[] = {"D", "I", "E", "F"};
  char line[544];  // the 512-byte message and its prefix, on the stack (no heap)
  snprintf(line, sizeof(line), "[torchedge %s] %s\n", kNames[static_cast<int>(level)], message);
  semihosting::write0(line);
}

void platform_abort() { semihosting::exit(false); }

}  // namespace torchedge

extern "C" void systick_handler() { torchedge::g_wraps = torchedge::g_wraps + 1; }
