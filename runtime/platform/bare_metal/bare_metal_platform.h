// torchedge/runtime/platform/bare_metal/bare_metal_platform.h
//
// The platform hooks of runtime/platform/platform.h for a Cortex-M without
// an OS (bare_metal_platform.cpp replaces posix_platform.cpp in such a
// build): no files, no heap, no threads.
//  - clock: SysTick counting processor cycles, its 24-bit wraps counted by
//    the SysTick interrupt (systick_handler, which the vector table must
//    point at); platform_now_ns() converts with the frequency given to
//    bare_metal_platform_init();
//  - log: one line per message through Arm semihosting (semihosting.h);
//  - abort: semihosting exit with failure.
#pragma once

#include <cstdint>

namespace torchedge {

/// Starts SysTick at `cpu_hz` (the processor clock). Call once, before
/// platform_now_ns() is used; interrupts must be enabled.
void bare_metal_platform_init(uint32_t cpu_hz);

/// Processor cycles since bare_metal_platform_init() (SysTick ticks).
uint64_t bare_metal_cycles();

}  // namespace torchedge

/// The SysTick exception handler (counts wraps); for the vector table.
extern "C" void systick_handler();
