// torchedge/kernels/quantized/test/quant_test_harness.h
//
// What the quantized kernel tests share: the portable tests' TestTensor and
// Args (kernels/portable/test/nn_test_harness.h), the quantized kernels'
// declarations, and dtype codes as the emitter passes them (ScalarType
// arguments are Int EValues holding the wire value).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace native {
#define TE_QUANTIZED_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/quantized/quantized_kernels.inc"
#undef TE_QUANTIZED_KERNEL
}  // namespace native

namespace {

inline int64_t code(ScalarType t) { return static_cast<int64_t>(t); }

template <typename T>
std::vector<int64_t> as_int64(const std::vector<T>& v) {
  return std::vector<int64_t>(v.begin(), v.end());
}

inline std::vector<float> random_floats(size_t n, float lo, float hi, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

}  // namespace
}  // namespace torchedge
