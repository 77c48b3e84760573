// torchedge/kernels/cortex_m/support/dsp_dot.h
//
// The inner product of the Cortex-M int8 kernels: int16 activations
// (x - zero point, |x| <= 255) against int8 weights, int32 sum, exact.
//
// On a core with the DSP extension (__ARM_FEATURE_DSP: Cortex-M33/M4/M7)
// four products take one weight word and two activation words:
//   w02 = SXTB16(w), w13 = SXTB16(w ROR 8)        weights 0,2 and 1,3 as int16 pairs
//   x02 = PKHBT(x01, x23 << 16), x13 = PKHTB(x23, x01 >> 16)
//   acc = SMLAD(w02, x02, SMLAD(w13, x13, acc))   two 16x16 MACs each
// (SXTB16 and SMLAD through arm_acle.h's ACLE intrinsics). Elsewhere (the host, where the tests
// compare these kernels with kernels/quantized bit for bit) a plain loop
// computes the same exact sum. Products are at most 255 * 128, so any
// K below 2^16 fits int32 (the callers' kernels check K).
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#endif

namespace torchedge {
namespace cortex_m {

#if defined(__ARM_FEATURE_DSP)
/// SXTB16 of the word rotated by 8: bytes 1 and 3 as an int16 pair. One
/// instruction (GCC 12 emits a separate ROR for __sxtb16(__ror(v, 8))).
inline int16x2_t sxtb16_ror8(uint32_t v) {
  int16x2_t r;
  asm("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
  return r;
}
#endif

inline uint32_t load_word(const void* p) {
  uint32_t v;
  memcpy(&v, p, 4);  // LDR: Armv8-M Mainline allows unaligned word loads
  return v;
}

/// sum_{q < quads, j < 4} x[4q + j] * w_q[j], where w_q is the 4 bytes at
/// w + q * w_stride (weights in quads: the panel layout of
/// kernels/quantized/support/int8_conv.h, stride 24, or contiguous rows,
/// stride 4).
inline int32_t dot_s16_s8_quads(const int16_t* x, const int8_t* w, int32_t w_stride,
                                int32_t quads) {
  int32_t acc = 0;
#if defined(__ARM_FEATURE_DSP)
  for (int32_t q = 0; q < quads; ++q, x += 4, w += w_stride) {
    const uint32_t wv = load_word(w);
    const int16x2_t w02 = __sxtb16(wv);
    const int16x2_t w13 = sxtb16_ror8(wv);
    const uint32_t x01 = load_word(x), x23 = load_word(x + 2);
    // PKHBT / PKHTB (GCC 12's arm_acle.h has no intrinsic; it emits them for these).
    const int16x2_t x02 = static_cast<int16x2_t>((x01 & 0xFFFFu) | (x23 << 16));
    const int16x2_t x13 = static_cast<int16x2_t>((x23 & 0xFFFF0000u) | (x01 >> 16));
    acc = __smlad(w02, x02, acc);
    acc = __smlad(w13, x13, acc);
  }
#else
  for (int32_t q = 0; q < quads; ++q, x += 4, w += w_stride) {
    acc += x[0] * w[0] + x[1] * w[1] + x[2] * w[2] + x[3] * w[3];
  }
#endif
  return acc;
}

/// All six rows of one weight panel (support/int8_conv.h: per quad the six
/// rows' 4 bytes side by side, 24 bytes, so a panel is contiguous) against
/// one activation vector in "pair order" (4-byte aligned): per quad q,
/// xp[4q..4q+3] = x[4q], x[4q+2], x[4q+1], x[4q+3], the order SXTB16 yields
/// the weights in, so nothing is repacked per product. acc[i] = row i's
/// sum. On the M33 in assembly (panel_dot_m33.cpp).
#if defined(__ARM_FEATURE_DSP)
void dot6_panel_pairs(const int16_t* xp, const int8_t* w, int32_t quads, int32_t* acc);
#else
inline void dot6_panel_pairs(const int16_t* xp, const int8_t* w, int32_t quads, int32_t* acc) {
  for (int32_t r = 0; r < 6; ++r) acc[r] = 0;
  for (int32_t q = 0; q < quads; ++q, xp += 4) {
    for (int32_t r = 0; r < 6; ++r, w += 4) {
      acc[r] += xp[0] * w[0] + xp[2] * w[1] + xp[1] * w[2] + xp[3] * w[3];
    }
  }
}
#endif

/// sum_{k < count} x[k] * w[k] (contiguous; any count).
inline int32_t dot_s16_s8(const int16_t* x, const int8_t* w, int32_t count) {
  const int32_t quads = count / 4;
  int32_t acc = dot_s16_s8_quads(x, w, 4, quads);
  for (int32_t k = quads * 4; k < count; ++k) acc += x[k] * w[k];
  return acc;
}

}  // namespace cortex_m
}  // namespace torchedge
