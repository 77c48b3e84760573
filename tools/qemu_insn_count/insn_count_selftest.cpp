// Runs a loop of a known instruction count between the markers, twice
// (regions add up): under the plugin, `marked` must be exactly 2 * 2001
// (one mov, then 1000 x subs + b.ne) and regions 2 (CMakeLists.txt checks
// the plugin's line).
#include "extension/runner/insn_markers.h"

namespace {
void counted_loop() {
  torchedge::insn_count_begin();
  __asm__ volatile(
      "mov x9, #1000\n"
      "1: subs x9, x9, #1\n"
      "b.ne 1b\n" ::: "x9", "cc");
  torchedge::insn_count_end();
}
}  // namespace

int main() {
  counted_loop();
  counted_loop();
  return 0;
}
