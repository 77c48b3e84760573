// The SIMD per-tensor quantize/dequantize (support/per_tensor_simd.h)
// against the scalar loops the registered kernels otherwise run
// (quantize_run, dequantize_run_in_out_dtype), bit for bit: lengths 0..100
// and around the 32/8-element blocks, misaligned pointers, exact ties, values
// far outside the range, +-inf, NaN, -0.0, NaN/inf inverse scales, and
// several scales, zero points and (narrowed) ranges. Skipped where the
// dispatchers have no SIMD path (no AVX2, TORCHEDGE_ISA=scalar).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/quantized/support/dequantize_loops.h"
#include "kernels/quantized/support/per_tensor_simd.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/support/quantize_loops.h"

namespace torchedge {
namespace {

using quantized::QuantizeParams;

bool have_simd() {
#if defined(TORCHEDGE_QUANTIZED_ARM)
  return optimized::best_arm_isa() >= optimized::ArmIsa::kNeon;
#else
  return quantized::quant_isa() >= quantized::QuantIsa::kAvx2;
#endif
}

std::string no_simd() {
  return std::string("no AVX2 / NEON path on this CPU / TORCHEDGE_ISA (quant_isa: ") +
         quantized::quant_isa_name(quantized::quant_isa()) + ")";
}

// Random values spread over ~4x the quantized range, with the special values
// sprinkled in, and exact ties x * inv == k + 0.5 when inv is a power of two.
std::vector<float> quantize_inputs(size_t n, float scale, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> wide(-600.0f, 600.0f);
  std::uniform_int_distribution<int> pick(0, 15), k(-300, 300);
  const float inf = std::numeric_limits<float>::infinity();
  const float specials[] = {std::nanf(""), -std::nanf(""), inf, -inf, -0.0f, 0.0f,
                            3e38f,         -3e38f,         1e-40f, -1e-40f};
  std::vector<float> v(n);
  for (float& x : v) {
    const int kind = pick(gen);
    if (kind == 0) {
      x = specials[static_cast<size_t>(k(gen) + 300) % (sizeof(specials) / sizeof(float))];
    } else if (kind < 5) {
      x = (static_cast<float>(k(gen)) + 0.5f) * scale;  // a tie for power-of-two scales
    } else {
      x = wide(gen) * scale;
    }
  }
  return v;
}

template <typename Q>
void check_quantize(const std::vector<float>& in, size_t offset, const QuantizeParams<float>& p) {
  const size_t n = in.size() - offset;
  std::vector<Q> want(n + 1, Q(0x5a)), got(n + 1, Q(0x5a));  // + 1: an untouched guard
  quantized::quantize_run<float, Q, float, quantized::RoundOrder::kRoundThenShift>(
      in.data() + offset, want.data(), n, p);
  ASSERT_TRUE(quantized::quantize_per_tensor_simd(in.data() + offset, got.data(), n, p));
  for (size_t i = 0; i <= n; ++i) {
    ASSERT_EQ(int(got[i]), int(want[i]))
        << "n=" << n << " i=" << i << " x=" << in[offset + i] << " inv=" << p.inv_scale
        << " zp=" << p.zero_point << " range=[" << p.quant_min << ", " << p.quant_max << "]";
  }
}

template <typename Q>
void quantize_sweep(const std::vector<int>& zero_points,
                    const std::vector<std::pair<int, int>>& ranges) {
  const double scales[] = {0.5, 1.0 / 255, 0.0173, 0.1, 2.0, 0.25, -0.2, 1e-39};
  uint32_t seed = 1;
  for (double scale : scales) {
    for (int zp : zero_points) {
      for (const auto& range : ranges) {
        const QuantizeParams<float> p{static_cast<float>(1.0 / scale), static_cast<float>(zp),
                                      static_cast<float>(range.first),
                                      static_cast<float>(range.second)};
        for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{31},
                         size_t{33}, size_t{63}, size_t{100}, size_t{1001}, size_t{1037}}) {
          check_quantize<Q>(quantize_inputs(n + 1, static_cast<float>(scale), seed++), 1, p);
        }
      }
    }
  }
  // Every length 0..100 once, at the aligned and a misaligned start.
  const QuantizeParams<float> p{2.0f, static_cast<float>(zero_points[0]),
                                static_cast<float>(ranges[0].first),
                                static_cast<float>(ranges[0].second)};
  for (size_t n = 0; n <= 100; ++n) {
    const std::vector<float> in = quantize_inputs(n + 3, 0.5f, seed++);
    check_quantize<Q>(in, 0, p);
    check_quantize<Q>(in, 3, p);
  }
}

TEST(PerTensorSimd, QuantizeInt8MatchesScalar) {
  if (!have_simd()) GTEST_SKIP() << no_simd();
  quantize_sweep<int8_t>({0, -128, 127, 5}, {{-128, 127}, {-127, 127}, {-8, 7}, {10, 20}});
}

TEST(PerTensorSimd, QuantizeUint8MatchesScalar) {
  if (!have_simd()) GTEST_SKIP() << no_simd();
  quantize_sweep<uint8_t>({128, 0, 255, 3}, {{0, 255}, {0, 15}, {100, 101}});
}

TEST(PerTensorSimd, QuantizeNanParamsGiveZero) {
  if (!have_simd()) GTEST_SKIP() << no_simd();
  const std::vector<float> in = quantize_inputs(77, 1.0f, 99);
  const float nan = std::nanf(""), inf = std::numeric_limits<float>::infinity();
  check_quantize<int8_t>(in, 0, {nan, 0.0f, -128.0f, 127.0f});
  check_quantize<int8_t>(in, 0, {1.0f, nan, -128.0f, 127.0f});
  check_quantize<uint8_t>(in, 0, {inf, 3.0f, 0.0f, 255.0f});
  check_quantize<uint8_t>(in, 0, {-inf, -0.0f, 0.0f, 255.0f});
}

TEST(PerTensorSimd, QuantizeDeclinesRangesOutsideTheDtype) {
  std::vector<float> in(40, 1.0f);
  std::vector<int8_t> out(40);
  EXPECT_FALSE(quantized::quantize_per_tensor_simd(in.data(), out.data(), 40,
                                                   {1.0f, 0.0f, -129.0f, 127.0f}));
  EXPECT_FALSE(quantized::quantize_per_tensor_simd(in.data(), out.data(), 40,
                                                   {1.0f, 0.0f, 5.0f, 4.0f}));
}

template <typename Q>
void check_dequantize(const std::vector<Q>& in, size_t offset, double scale, double zp) {
  const size_t n = in.size() - offset;
  std::vector<float> want(n + 1, 42.0f), got(n + 1, 42.0f);
  quantized::dequantize_run_in_out_dtype<Q, float>(in.data() + offset, want.data(), n, scale, zp);
  ASSERT_TRUE(quantized::dequantize_per_tensor_simd(in.data() + offset, got.data(), n, scale, zp));
  for (size_t i = 0; i <= n; ++i) {
    uint32_t w = 0, g = 0;
    std::memcpy(&w, &want[i], 4);
    std::memcpy(&g, &got[i], 4);
    ASSERT_EQ(g, w) << "n=" << n << " i=" << i << " q=" << int(in[offset + i])
                    << " scale=" << scale << " zp=" << zp;
  }
}

template <typename Q>
void dequantize_sweep(const std::vector<double>& zero_points) {
  const double inf = std::numeric_limits<double>::infinity();
  const double scales[] = {0.1, 1.0 / 255, 0.0173, 1.0, -0.3, 1e-45, 3e38, inf, std::nan("")};
  std::mt19937 gen(7);
  std::uniform_int_distribution<int> d(std::numeric_limits<Q>::min(),
                                       std::numeric_limits<Q>::max());
  auto random_q = [&](size_t n) {
    std::vector<Q> v(n);
    for (Q& x : v) x = static_cast<Q>(d(gen));
    return v;
  };
  std::vector<Q> every(256);  // every value once, then lengths 0..100
  for (int i = 0; i < 256; ++i) every[i] = static_cast<Q>(i);
  for (double scale : scales) {
    for (double zp : zero_points) {
      check_dequantize<Q>(every, 0, scale, zp);
      for (size_t n : {size_t{0}, size_t{5}, size_t{8}, size_t{40}, size_t{1003}}) {
        check_dequantize<Q>(random_q(n + 1), 1, scale, zp);
      }
    }
  }
  for (size_t n = 0; n <= 100; ++n) check_dequantize<Q>(random_q(n + 2), 2, 0.05, zero_points[0]);
}

TEST(PerTensorSimd, DequantizeInt8MatchesScalar) {
  if (!have_simd()) GTEST_SKIP() << no_simd();
  dequantize_sweep<int8_t>({0, -128, 127, 3, 0.5, -0.0, std::nan("")});
}

TEST(PerTensorSimd, DequantizeUint8MatchesScalar) {
  if (!have_simd()) GTEST_SKIP() << no_simd();
  dequantize_sweep<uint8_t>({128, 0, 255, 0.25, 1e300});
}

}  // namespace
}  // namespace torchedge
