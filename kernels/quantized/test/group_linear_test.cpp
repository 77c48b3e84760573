// linear_q4a / linear_q8c (support/group_linear.h): the activation
// quantizer against eager's formula written out (ties, zero, NaN/inf and
// subnormal groups) on every ISA; every ISA's loops (scalar, AVX2, AVX-512
// VNNI where the CPU has them; GEMV for up to 3-4 rows, GEMM above) against a
// double-precision reference on the same integers, over odd N, K = 32 ..
// 1536, every group size, M = 1 .. 7 and 37, bias or not, both activation
// widths, 1 and 2 threads (which must give the same bits); extreme codes
// (vpmaddubsw's saturation bounds); the registered kernels at ranks 1-3
// and their argument errors. Tolerance: 1e-5 of sum |x * w| (float
// summation order only: the integer sums are exact).
#include <algorithm>
#include <limits>
#include <string>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/group_linear.h"
#include "kernels/quantized/test/quant_test_harness.h"
#include "runtime/core/error_message.h"
#include "runtime/core/half.h"

namespace torchedge {
namespace {

using quantized::GroupWeightFormat;
using quantized::QuantIsa;

std::vector<QuantIsa> available_isas() {
  std::vector<QuantIsa> isas = {QuantIsa::kScalar};
  if (quantized::quant_isa() != QuantIsa::kScalar) isas.push_back(QuantIsa::kAvx2);
  if (quantized::quant_isa() == QuantIsa::kAvx512Vnni) isas.push_back(QuantIsa::kAvx512Vnni);
  return isas;
}

uint16_t half_bits(float f) { return Half(f).bits; }
float half_value(uint16_t bits) {
  Half h;
  h.bits = bits;
  return static_cast<float>(h);
}

// Eager's quantize_activations_per_group for one group, written out.
void eager_group(const float* x, int64_t g, int8_t* q, float* s) {
  float amax = 0.0f;
  bool nan = false;
  for (int64_t i = 0; i < g; ++i) {
    nan = nan || !(std::fabs(x[i]) < std::numeric_limits<float>::infinity());
    amax = std::max(amax, std::fabs(x[i]));
  }
  *s = nan ? std::numeric_limits<float>::quiet_NaN() : amax / 127.0f;
  const float d = *s > 0.0f ? *s : 1.0f;
  for (int64_t i = 0; i < g; ++i) {
    q[i] = nan ? 0
               : static_cast<int8_t>(std::min(127.0f, std::max(-127.0f, std::nearbyint(x[i] / d))));
  }
}

// A problem: weights in either format, float input, and the reference.
struct Problem {
  GroupWeightFormat format;
  int64_t m, k, n, g;
  int bits;
  std::vector<uint8_t> codes;          // q4a [n, k/2]; q8c int8 [n, k]
  std::vector<uint16_t> scales, mins;  // q4a [n, k/g]
  std::vector<float> row_scales;       // q8c [n]
  std::vector<float> x, bias;
  bool with_bias;

  Problem(GroupWeightFormat f, int64_t m_, int64_t k_, int64_t n_, int64_t g_, int bits_,
          bool with_bias_, uint32_t seed)
      : format(f), m(m_), k(k_), n(n_), g(g_), bits(bits_), with_bias(with_bias_) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> byte(0, 255), q8(-127, 127);
    if (f == GroupWeightFormat::kAffine4) {
      codes.resize(n * k / 2);
      for (uint8_t& b : codes) b = static_cast<uint8_t>(byte(gen));
      for (float v : random_floats(n * (k / g), 0.001f, 0.05f, seed + 1)) {
        scales.push_back(half_bits(v));
      }
      for (float v : random_floats(n * (k / g), -0.4f, 0.1f, seed + 2)) {
        mins.push_back(half_bits(v));
      }
    } else {
      codes.resize(n * k);
      for (uint8_t& b : codes) b = static_cast<uint8_t>(static_cast<int8_t>(q8(gen)));
      row_scales = random_floats(n, 0.001f, 0.02f, seed + 1);
    }
    x = random_floats(m * k, -2.0f, 3.0f, seed + 3);
    bias = random_floats(n, -1.0f, 1.0f, seed + 4);
  }

  quantized::GroupLinearCall call(float* out) const {
    quantized::GroupLinearWeight w{
        format, codes.data(), scales.data(), mins.data(), row_scales.data(), n, k, g};
    return {x.data(), m, bits, w, with_bias ? bias.data() : nullptr, out};
  }
  double weight(int64_t row, int64_t col) const {
    if (format == GroupWeightFormat::kInt8Channel) {
      return static_cast<int8_t>(codes[row * k + col]) * static_cast<double>(row_scales[row]);
    }
    const int q = (codes[row * (k / 2) + col / 2] >> ((col & 1) * 4)) & 0xF;
    const int64_t j = row * (k / g) + col / g;
    return q * static_cast<double>(half_value(scales[j])) + half_value(mins[j]);
  }

  // The effective activations (xq * s for 8 bits) and the double reference.
  void reference(std::vector<double>* want, std::vector<double>* magnitude) const {
    std::vector<double> xe(m * k);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t j = 0; j < k / g; ++j) {
        const float* xg = x.data() + r * k + j * g;
        std::vector<int8_t> q(g);
        float s = 0.0f;
        eager_group(xg, g, q.data(), &s);
        for (int64_t i = 0; i < g; ++i) {
          xe[r * k + j * g + i] = bits == 8 ? q[i] * static_cast<double>(s) : xg[i];
        }
      }
    }
    want->assign(m * n, 0.0);
    magnitude->assign(m * n, 0.0);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        double acc = with_bias ? bias[c] : 0.0, mag = std::fabs(acc);
        for (int64_t i = 0; i < k; ++i) {
          const double p = xe[r * k + i] * weight(c, i);
          acc += p;
          mag += std::fabs(p);
        }
        (*want)[r * n + c] = acc;
        (*magnitude)[r * n + c] = mag;
      }
    }
  }
};

std::vector<float> run(const Problem& p, QuantIsa isa, size_t threads) {
  std::vector<float> out(p.m * p.n, NAN);
  EXPECT_EQ(set_num_threads(threads), Error::Ok);
  const quantized::GroupLinearCall call = p.call(out.data());
  std::vector<uint8_t> scratch(quantized::group_linear_scratch_bytes(call, isa, threads) + 64);
  void* aligned =
      reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t{63});
  quantized::run_group_linear(call, isa, threads, aligned);
  EXPECT_EQ(set_num_threads(1), Error::Ok);
  return out;
}

std::string describe(const Problem& p, QuantIsa isa) {
  return std::string(p.format == GroupWeightFormat::kAffine4 ? "q4a" : "q8c") + " " +
         quantized::quant_isa_name(isa) + " bits=" + std::to_string(p.bits) +
         " m=" + std::to_string(p.m) + " k=" + std::to_string(p.k) + " n=" + std::to_string(p.n) +
         " g=" + std::to_string(p.g);
}

void check_every_isa(const Problem& p) {
  std::vector<double> want, magnitude;
  p.reference(&want, &magnitude);
  for (QuantIsa isa : available_isas()) {
    const std::vector<float> one = run(p, isa, 1), two = run(p, isa, 2);
    for (size_t i = 0; i < one.size(); ++i) {
      ASSERT_NEAR(one[i], want[i], 1e-5 * magnitude[i] + 1e-6) << describe(p, isa) << " at " << i;
      // Any split of the work gives the same bits.
      ASSERT_EQ(std::memcmp(&one[i], &two[i], sizeof(float)), 0)
          << describe(p, isa) << " 2 threads at " << i;
    }
  }
}

TEST(GroupLinear, QuantizerMatchesEagerOnEveryIsa) {
  const int64_t k = 256, g = 32;
  std::vector<float> x = random_floats(3 * k, -5.0f, 5.0f, 1);
  for (int64_t i = 0; i < g; ++i) {
    x[i] = static_cast<float>(i % 9 - 4) * 0.25f;  // ties at s = 0.5 ...
  }
  x[5] = 63.5f;                                            // ... amax 63.5
  for (int64_t i = g; i < 2 * g; ++i) x[i] = 0.0f;         // a zero group
  x[2 * g + 3] = std::numeric_limits<float>::quiet_NaN();  // NaN group
  x[3 * g + 7] = -std::numeric_limits<float>::infinity();  // inf group
  for (int64_t i = 4 * g; i < 5 * g; ++i) x[i] = 1e-44f * static_cast<float>(i % 3);  // subnormal
  x[5 * g] = 1e30f;  // one huge value
  for (QuantIsa isa : available_isas()) {
    std::vector<int8_t> q(3 * k, 99);
    std::vector<float> s(3 * k / g);
    std::vector<int32_t> sums(3 * k / g);
    quantized::quantize_rows_per_group(x.data(), 3, k, g, q.data(), s.data(), sums.data(), isa);
    for (int64_t j = 0; j < 3 * k / g; ++j) {
      std::vector<int8_t> want(g);
      float want_s = 0.0f;
      eager_group(x.data() + j * g, g, want.data(), &want_s);
      ASSERT_TRUE(std::isnan(want_s) ? std::isnan(s[j]) : s[j] == want_s) << "group " << j;
      int32_t sum = 0;
      for (int64_t i = 0; i < g; ++i) {
        ASSERT_EQ(q[j * g + i], want[i])
            << quantized::quant_isa_name(isa) << " group " << j << " at " << i;
        sum += want[i];
      }
      ASSERT_EQ(sums[j], sum);
    }
    EXPECT_EQ(q[5], 127);
    EXPECT_EQ(q[0], -2);  // -1.0 / 0.5
    EXPECT_EQ(q[1], -2);  // -0.75 / 0.5 = -1.5 -> -2 (ties to even)
    EXPECT_EQ(q[3], 0);   // -0.25 / 0.5 = -0.5 -> 0
  }
}

TEST(GroupLinear, EveryIsaMatchesReference) {
  uint32_t seed = 1;
  for (GroupWeightFormat f : {GroupWeightFormat::kAffine4, GroupWeightFormat::kInt8Channel}) {
    for (int bits : {8, 32}) {
      for (int64_t m : {1, 2, 3, 4, 5, 7, 37}) {
        for (int64_t k : {32, 96, 576}) {
          const int64_t n = 1 + (seed * 13) % 41;  // 1..41: partial strips and blocks
          check_every_isa(Problem(f, m, k, n, 32, bits, seed % 2 == 0, seed));
          ++seed;
        }
      }
      for (int64_t g : {64, 128, 256}) {
        check_every_isa(Problem(f, 1, 512, 19, g, bits, true, seed++));
        check_every_isa(Problem(f, 6, 768, 35, g, bits, false, seed++));
      }
      // Weights over 128 KiB: the GEMV splits them at 2 threads (601 rows:
      // chunks of whole 4-row blocks and a last single row).
      for (int64_t m : {1, 3}) check_every_isa(Problem(f, m, 576, 601, 32, bits, m == 1, seed++));
      check_every_isa(Problem(f, 1, 1536, 67, 32, bits, true, seed++));  // SmolLM2's down proj
      check_every_isa(Problem(f, 3, 1536, 33, 32, bits, false, seed++));
      check_every_isa(Problem(f, 37, 1536, 40, 32, bits, true, seed++));
    }
  }
}

// Codes and activations at the bounds: q4a 15 x +-127, q8c -128 / 127 x
// +-127, where vpmaddubsw's pair sums are largest.
TEST(GroupLinear, ExtremeCodes) {
  for (GroupWeightFormat f : {GroupWeightFormat::kAffine4, GroupWeightFormat::kInt8Channel}) {
    for (int64_t m : {1, 9}) {
      Problem p(f, m, 256, 21, 256, 8, true, 7);
      for (size_t i = 0; i < p.codes.size(); ++i) {
        p.codes[i] = f == GroupWeightFormat::kAffine4
                         ? 0xFF
                         : static_cast<uint8_t>(i % 3 == 0 ? 0x80 : 0x7F);
      }
      for (int64_t i = 0; i < m * 256; ++i) p.x[i] = (i / 2) % 2 == 0 ? 4.0f : -4.0f;
      check_every_isa(p);
    }
  }
}

TEST(GroupLinear, NonFiniteInputGivesNan) {
  for (QuantIsa isa : available_isas()) {
    for (int64_t m : {1, 6}) {
      Problem p(GroupWeightFormat::kAffine4, m, 64, 5, 32, 8, false, 3);
      p.x[40] = std::numeric_limits<float>::infinity();  // row 0, group 1
      const std::vector<float> out = run(p, isa, 1);
      for (int64_t c = 0; c < 5; ++c) {
        EXPECT_TRUE(std::isnan(out[c])) << quantized::quant_isa_name(isa);
      }
      for (int64_t i = 5; i < m * 5; ++i) EXPECT_FALSE(std::isnan(out[i]));
    }
  }
}

// The registered kernels: ranks 1-3 equal run_group_linear on the same rows.
TEST(GroupLinear, KernelsAtEveryRank) {
  const Problem p4(GroupWeightFormat::kAffine4, 6, 64, 9, 32, 8, true, 11);
  const Problem p8(GroupWeightFormat::kInt8Channel, 6, 64, 9, 32, 32, false, 12);
  const std::vector<std::vector<int32_t>> shapes = {{64}, {6, 64}, {2, 3, 64}};
  for (const std::vector<int32_t>& shape : shapes) {
    const int64_t m = shape.size() == 1 ? 1 : 6;
    for (const Problem* base : {&p4, &p8}) {
      Problem p = *base;
      p.m = m;
      p.x.resize(m * 64);
      std::vector<double> want, magnitude;
      p.reference(&want, &magnitude);
      TestTensor x(ScalarType::Float, shape);
      x.fill(p.x);
      std::vector<int32_t> out_shape = shape;
      out_shape.back() = 9;
      TestTensor out(ScalarType::Float, out_shape);
      TestTensor b(ScalarType::Float, {9});
      b.fill(p.bias);
      Error e;
      if (p.format == GroupWeightFormat::kAffine4) {
        TestTensor w(ScalarType::Byte, {9, 32});
        w.fill(p.codes);
        TestTensor s(ScalarType::Half, {9, 2}), mn(ScalarType::Half, {9, 2});
        s.fill(p.scales);
        mn.fill(p.mins);
        e = Args().t(x).t(w).t(s).t(mn).i(32).i(p.bits).t(b).t(out).run(native::linear_q4a_out);
      } else {
        TestTensor w(ScalarType::Char, {9, 64});
        std::vector<int8_t> q(p.codes.begin(), p.codes.end());
        w.fill(q);
        TestTensor s(ScalarType::Float, {9});
        s.fill(p.row_scales);
        e = Args().t(x).t(w).t(s).i(32).i(p.bits).none().t(out).run(native::linear_q8c_out);
      }
      ASSERT_EQ(e, Error::Ok) << last_error_message();
      EXPECT_EQ(out.shape(), out_shape);
      const std::vector<float> got = out.values<float>();
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_NEAR(got[i], want[i], 1e-5 * magnitude[i] + 1e-6);
      }
    }
  }
}

TEST(GroupLinear, BadArguments) {
  TestTensor x(ScalarType::Float, {2, 64}), out(ScalarType::Float, {2, 3});
  TestTensor w(ScalarType::Byte, {3, 32}), s(ScalarType::Half, {3, 2}),
      mn(ScalarType::Half, {3, 2});
  auto q4a = [&](Args args) { return args.run(native::linear_q4a_out); };
  EXPECT_EQ(q4a(Args().t(x).t(w).t(s).t(mn).i(32).i(8).none().t(out)), Error::Ok)
      << last_error_message();
  EXPECT_EQ(q4a(Args().t(x).t(w).t(s).t(mn).i(48).i(8).none().t(out)), Error::InvalidArgument);
  EXPECT_EQ(q4a(Args().t(x).t(w).t(s).t(mn).i(32).i(4).none().t(out)), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("activation_bits must be 8 or 32"),
            std::string::npos);
  TestTensor x_bad(ScalarType::Float, {2, 60});
  EXPECT_EQ(q4a(Args().t(x_bad).t(w).t(s).t(mn).i(32).i(8).none().t(out)), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("input must be float32 [..., 64]"),
            std::string::npos)
      << last_error_message();
  TestTensor s32(ScalarType::Float, {3, 2}), s_shape(ScalarType::Half, {3, 1});
  EXPECT_EQ(q4a(Args().t(x).t(w).t(s32).t(mn).i(32).i(8).none().t(out)), Error::InvalidArgument);
  EXPECT_NE(std::string(last_error_message()).find("scales must be float16 [3, 2]"),
            std::string::npos)
      << last_error_message();
  EXPECT_EQ(q4a(Args().t(x).t(w).t(s).t(s_shape).i(32).i(8).none().t(out)), Error::InvalidArgument);
  TestTensor bias_bad(ScalarType::Float, {4});
  EXPECT_EQ(q4a(Args().t(x).t(w).t(s).t(mn).i(32).i(8).t(bias_bad).t(out)), Error::InvalidArgument);
  TestTensor w8(ScalarType::Char, {3, 32});
  EXPECT_EQ(q4a(Args().t(x).t(w8).t(s).t(mn).i(32).i(8).none().t(out)), Error::InvalidArgument);
  EXPECT_EQ(q4a(Args().t(x).t(w).t(s).t(mn).i(32).i(8).none()), Error::InvalidArgument);  // arity
  EXPECT_EQ(Args().t(x).t(w).t(s).t(mn).i(32).i(8).none().t(out).run(native::linear_q4a_out, false),
            Error::MemoryAllocationFailed);

  auto q8c = [&](Args args) { return args.run(native::linear_q8c_out); };
  TestTensor wq(ScalarType::Char, {3, 64}), rs(ScalarType::Float, {3});
  EXPECT_EQ(q8c(Args().t(x).t(wq).t(rs).i(64).i(32).none().t(out)), Error::Ok)
      << last_error_message();
  EXPECT_EQ(q8c(Args().t(x).t(wq).t(rs).i(128).i(8).none().t(out)), Error::InvalidArgument);
  EXPECT_EQ(q8c(Args().t(x).t(w).t(rs).i(32).i(8).none().t(out)), Error::InvalidArgument);  // uint8
  TestTensor rs_bad(ScalarType::Float, {3, 1});
  EXPECT_EQ(q8c(Args().t(x).t(wq).t(rs_bad).i(32).i(8).none().t(out)), Error::InvalidArgument);
  TestTensor out_int(ScalarType::Int, {2, 3});
  EXPECT_EQ(q8c(Args().t(x).t(wq).t(rs).i(32).i(8).none().t(out_int)), Error::InvalidType);
  TestTensor x_int(ScalarType::Int, {2, 64});
  EXPECT_EQ(q8c(Args().t(x_int).t(wq).t(rs).i(32).i(8).none().t(out)), Error::InvalidArgument);
}

// K = 0 gives the bias; M = 0 and N = 0 write nothing.
TEST(GroupLinear, EmptyShapes) {
  TestTensor x(ScalarType::Float, {2, 0}), w(ScalarType::Char, {3, 0}), s(ScalarType::Float, {3});
  TestTensor b(ScalarType::Float, {3}), out(ScalarType::Float, {2, 3});
  b.fill(std::vector<float>{1.0f, 2.0f, 3.0f});
  ASSERT_EQ(Args().t(x).t(w).t(s).i(32).i(8).t(b).t(out).run(native::linear_q8c_out), Error::Ok)
      << last_error_message();
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  TestTensor x0(ScalarType::Float, {0, 32}), w0(ScalarType::Char, {3, 32}),
      out0(ScalarType::Float, {0, 3});
  EXPECT_EQ(Args().t(x0).t(w0).t(s).i(32).i(8).none().t(out0).run(native::linear_q8c_out),
            Error::Ok);
}

}  // namespace
}  // namespace torchedge
