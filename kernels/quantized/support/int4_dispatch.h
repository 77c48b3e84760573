// torchedge/kernels/quantized/support/int4_dispatch.h
//
// Runs the 4-bit linear inner loops on the ISA quant_isa() picks, with the
// output columns split across the shared thread pool
// (kernels/optimized/threadpool: set_num_threads; 1 thread by default).
#pragma once

#include "kernels/quantized/support/int4_linear.h"

namespace torchedge {
namespace quantized {

void run_int4_linear_f32(const FloatRows& x, const Int4Weight& w, const float* bias, float* out);
void run_int8_int4_linear(const Int8Rows& x, const Int4Weight& w, const float* bias, float* out);

/// Columns per thread-pool chunk so that a chunk does >= ~64K MACs.
inline int64_t column_grain(int64_t m, int64_t k) {
  const int64_t macs_per_column = (m > 0 ? m : 1) * (k > 0 ? k : 1);
  const int64_t grain = (int64_t{1} << 16) / macs_per_column;
  return grain < 1 ? 1 : grain;
}

}  // namespace quantized
}  // namespace torchedge
