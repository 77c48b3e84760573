// Start-up of the mps2-an505 firmware (mps2_an505.ld): the vector table,
// the reset handler (copy .data, zero .bss, paint the stack, enable the FPU,
// run main, exit through semihosting) and the only newlib hook the image
// may reach, _sbrk, which refuses: the firmware has no heap, and a test
// that some code asked for one is the count this file keeps.
#include <cerrno>
#include <cstddef>
#include <cstdint>

#include "runtime/platform/bare_metal/bare_metal_platform.h"
#include "runtime/platform/bare_metal/semihosting.h"
#include "targets/cortex_m/firmware.h"

extern "C" {
extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_limit[], __stack_top[];
extern void (*__init_array_start[])();
extern void (*__init_array_end[])();
int main();
void reset_handler();
}

namespace {

volatile uint32_t g_heap_requests = 0;

void fault_handler() {
  torchedge::semihosting::write0("firmware: fault exception\n");
  torchedge::semihosting::exit(false);
}

void default_handler() {
  torchedge::semihosting::write0("firmware: unexpected exception\n");
  torchedge::semihosting::exit(false);
}

}  // namespace

// Armv8-M exceptions 0-15; the board's interrupts are not used.
using Handler = void (*)();
__attribute__((section(".vectors"), used)) const Handler kVectorTable[16] = {
    reinterpret_cast<Handler>(__stack_top),  // 0: initial main stack pointer
    reset_handler,                           // 1: reset
    default_handler,                         // 2: NMI
    fault_handler,                           // 3: HardFault
    fault_handler,                           // 4: MemManage
    fault_handler,                           // 5: BusFault
    fault_handler,                           // 6: UsageFault
    fault_handler,                           // 7: SecureFault
    nullptr, nullptr, nullptr,               // 8-10: reserved
    default_handler,                         // 11: SVCall
    default_handler,                         // 12: DebugMonitor
    nullptr,                                 // 13: reserved
    default_handler,                         // 14: PendSV
    systick_handler,                         // 15: SysTick
};

extern "C" void reset_handler() {
  for (uint32_t *src = __data_load, *dst = __data_start; dst < __data_end;) *dst++ = *src++;
  for (uint32_t* p = __bss_start; p < __bss_end;) *p++ = 0;
  // Paint the stack below the reset handler's own frame (firmware.h).
  uint32_t* sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  for (uint32_t* p = __stack_limit; p < sp - 16;) *p++ = torchedge::firmware::kStackPaint;
  // CP10/CP11 full access: the FPU (hard-float code runs from here on).
  volatile uint32_t* const cpacr = reinterpret_cast<volatile uint32_t*>(0xE000ED88);
  *cpacr |= 0xFu << 20;
  asm volatile("dsb\n isb" ::: "memory");
  for (void (**init)() = __init_array_start; init < __init_array_end; ++init) (*init)();
  torchedge::semihosting::exit(main() == 0);
}

namespace torchedge {
namespace firmware {

size_t stack_high_water_bytes() {
  const uint32_t* p = __stack_limit;
  while (p < __stack_top && *p == kStackPaint) ++p;
  return static_cast<size_t>(reinterpret_cast<const uint8_t*>(__stack_top) -
                             reinterpret_cast<const uint8_t*>(p));
}

size_t stack_bytes() {
  return static_cast<size_t>(reinterpret_cast<const uint8_t*>(__stack_top) -
                             reinterpret_cast<const uint8_t*>(__stack_limit));
}

uint32_t heap_requests() { return g_heap_requests; }

}  // namespace firmware
}  // namespace torchedge

// newlib's malloc grows its pool through _sbrk: every request fails.
extern "C" void* _sbrk(ptrdiff_t) {
  g_heap_requests = g_heap_requests + 1;
  errno = ENOMEM;
  return reinterpret_cast<void*>(-1);
}
