#include "runtime/platform/bare_metal/semihosting.h"

namespace torchedge {
namespace semihosting {
namespace {

constexpr uint32_t kSysWrite0 = 0x04;
constexpr uint32_t kSysExit = 0x18;
// AArch32 SYS_EXIT takes the reason itself in r1 (not a parameter block).
constexpr uint32_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit: status 0
constexpr uint32_t kRunTimeError = 0x20023;     // ADP_Stopped_RunTimeErrorUnknown: status 1

uint32_t call(uint32_t op, const void* arg) {
  register uint32_t r0 asm("r0") = op;
  register const void* r1 asm("r1") = arg;
  asm volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

}  // namespace

void write0(const char* text) { call(kSysWrite0, text); }

void exit(bool success) {
  call(kSysExit, reinterpret_cast<const void*>(success ? kApplicationExit : kRunTimeError));
  for (;;) {
  }
}

}  // namespace semihosting
}  // namespace torchedge
