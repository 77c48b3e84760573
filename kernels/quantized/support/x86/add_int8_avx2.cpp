// AVX2 path of torchedge::add_int8.out (contract: support/int8_add.h): the
// scalar path's float operations, 32 elements at a time (Int8AddAvx2 of
// int8_add_avx2.h, shared with conv2d_add_int8's epilogue). The tail goes
// through the scalar path. Compiled with -mavx2 -mfma (and
// -ffp-contract=off: nothing fused).
#include <immintrin.h>

#include "kernels/quantized/support/int8_add.h"
#include "kernels/quantized/support/x86/int8_add_avx2.h"

namespace torchedge {
namespace quantized {

void int8_add_avx2(const Int8AddProblem& p, int64_t begin, int64_t end) {
  const Int8AddAvx2 add(p);
  int64_t i = begin;
  auto eight = [&](int64_t at) {
    return add.eight(Int8AddAvx2::load8(p.a + at), Int8AddAvx2::load8(p.b + at));
  };
  for (; i + 32 <= end; i += 32) {
    const __m256i v = Int8AddAvx2::pack32(eight(i), eight(i + 8), eight(i + 16), eight(i + 24));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p.out + i), v);
  }
  if (i < end) int8_add_scalar(p, i, end);
}

}  // namespace quantized
}  // namespace torchedge
