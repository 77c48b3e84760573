// dot6_panel_pairs (dsp_dot.h) on the M33, in assembly: GCC 12 spills the
// six sums of a whole weight panel at -O2 (the C version ran 2 % more
// instructions than three rows), while the fourteen registers AAPCS leaves
// hold all of it: r0 activations, r1 weights, r2 quads left, r3 the sums'
// address, r4-r9 the six sums, r10/r11 the activation pair words, r12 one
// weight word, lr its SXTB16 halves. Per quad of K: LDRD of the activations,
// per row LDR + SXTB16 + SMLAD + SXTB16 ROR #8 + SMLAD, then SUBS/BNE:
// 33 instructions for 24 multiply-accumulates.
#include "kernels/cortex_m/support/dsp_dot.h"

#if defined(__ARM_FEATURE_DSP)

namespace torchedge {
namespace cortex_m {

__attribute__((naked)) void dot6_panel_pairs(const int16_t* /*xp*/, const int8_t* /*w*/,
                                             int32_t /*quads*/, int32_t* /*acc*/) {
  asm volatile(
      "push {r4-r11, lr}\n"
      "movs r4, #0\n"
      "movs r5, #0\n"
      "movs r6, #0\n"
      "movs r7, #0\n"
      "movs r8, #0\n"
      "movs r9, #0\n"
      "cmp r2, #0\n"
      "ble 2f\n"
      "1:\n"
      "ldrd r10, r11, [r0], #8\n"
      "ldr r12, [r1], #4\n"
      "sxtb16 lr, r12\n"
      "smlad r4, lr, r10, r4\n"
      "sxtb16 lr, r12, ror #8\n"
      "smlad r4, lr, r11, r4\n"
      "ldr r12, [r1], #4\n"
      "sxtb16 lr, r12\n"
      "smlad r5, lr, r10, r5\n"
      "sxtb16 lr, r12, ror #8\n"
      "smlad r5, lr, r11, r5\n"
      "ldr r12, [r1], #4\n"
      "sxtb16 lr, r12\n"
      "smlad r6, lr, r10, r6\n"
      "sxtb16 lr, r12, ror #8\n"
      "smlad r6, lr, r11, r6\n"
      "ldr r12, [r1], #4\n"
      "sxtb16 lr, r12\n"
      "smlad r7, lr, r10, r7\n"
      "sxtb16 lr, r12, ror #8\n"
      "smlad r7, lr, r11, r7\n"
      "ldr r12, [r1], #4\n"
      "sxtb16 lr, r12\n"
      "smlad r8, lr, r10, r8\n"
      "sxtb16 lr, r12, ror #8\n"
      "smlad r8, lr, r11, r8\n"
      "ldr r12, [r1], #4\n"
      "sxtb16 lr, r12\n"
      "smlad r9, lr, r10, r9\n"
      "sxtb16 lr, r12, ror #8\n"
      "smlad r9, lr, r11, r9\n"
      "subs r2, r2, #1\n"
      "bne 1b\n"
      "2:\n"
      "stm r3, {r4-r9}\n"
      "pop {r4-r11, pc}\n");
}

}  // namespace cortex_m
}  // namespace torchedge

#endif
