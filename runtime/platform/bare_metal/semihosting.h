// torchedge/runtime/platform/bare_metal/semihosting.h
//
// Arm semihosting (the debugger/emulator services a bare-metal program
// reaches with `bkpt 0xab` on M-profile cores): console output and exit.
// Under QEMU they need `-semihosting-config enable=on,target=native`;
// without a debugger or emulator attached the breakpoint halts the core.
#pragma once

#include <cstdint>

namespace torchedge {
namespace semihosting {

/// Writes a NUL-terminated string to the host's console (SYS_WRITE0).
void write0(const char* text);

/// Ends the program (SYS_EXIT): QEMU exits with status 0 when `success`,
/// else 1. Does not return.
[[noreturn]] void exit(bool success);

}  // namespace semihosting
}  // namespace torchedge
