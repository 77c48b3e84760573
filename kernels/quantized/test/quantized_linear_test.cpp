// torchedge::quantized_linear.out (int8 GEMM + requantization): every ISA
// path gives the same bytes as the scalar path (same exact int32 sums), and
// the result is within one quantization step of the unfused float
// reference dequantize -> linear -> quantize (as eager computes it).
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/quantized/support/int8_gemm.h"
#include "kernels/quantized/support/int8_gemm_dot.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

struct Case {
  int32_t m, k, n;
};

TEST(QuantizedLinear, MatchesDequantLinearQuantizeWithinOneStep) {
  const Case cases[] = {{1, 64, 7}, {3, 100, 33}, {17, 256, 9}, {4, 15, 5}};
  uint32_t seed = 1;
  for (const Case& c : cases) {
    std::mt19937 gen(seed++);
    std::uniform_int_distribution<int> i8(-128, 127), w8(-127, 127);
    std::vector<int8_t> xq(c.m * c.k), wq(c.n * c.k);
    for (int8_t& v : xq) v = static_cast<int8_t>(i8(gen));
    for (int8_t& v : wq) v = static_cast<int8_t>(w8(gen));
    const std::vector<float> ws = random_floats(c.n, 0.001f, 0.01f, seed);
    const std::vector<float> b = random_floats(c.n, -1.0f, 1.0f, seed + 7);
    const double in_scale = 0.05, out_scale = 0.4;
    const int64_t in_zp = 5, out_zp = -3;
    TestTensor x(ScalarType::Char, {c.m, c.k}), w(ScalarType::Char, {c.n, c.k});
    x.fill(xq);
    w.fill(wq);
    TestTensor s(ScalarType::Float, {c.n}), bias(ScalarType::Float, {c.n});
    s.fill(ws);
    bias.fill(b);
    TestTensor out(ScalarType::Char, {c.m, c.n});
    ASSERT_EQ(Args().t(x).d(in_scale).i(in_zp).t(w).t(s).t(bias).d(out_scale).i(out_zp).i(-128)
                  .i(127).t(out).run(native::quantized_linear_out),
              Error::Ok);
    const std::vector<int8_t> got = out.values<int8_t>();
    int off_by_one = 0;
    for (int64_t r = 0; r < c.m; ++r) {
      for (int64_t col = 0; col < c.n; ++col) {
        // eager: (xq - zp) * s_x and wq * s_w in float32, float linear, then
        // quantize_per_tensor (x * float(1 / out_scale), round, + zp, clamp).
        float y = b[col];
        for (int64_t i = 0; i < c.k; ++i) {
          const float xd = static_cast<float>(xq[r * c.k + i] - in_zp) * static_cast<float>(in_scale);
          y += xd * (static_cast<float>(wq[col * c.k + i]) * ws[col]);
        }
        float want = std::nearbyint(y * static_cast<float>(1.0 / out_scale)) + out_zp;
        want = std::min(127.0f, std::max(-128.0f, want));
        const int diff = std::abs(static_cast<int>(want) - got[r * c.n + col]);
        ASSERT_LE(diff, 1) << "m " << r << " n " << col;
        off_by_one += diff;
      }
    }
    EXPECT_LE(off_by_one, (c.m * c.n) / 10 + 1);  // ties are rare
  }
}

TEST(QuantizedLinear, Avx2EqualsScalarBitForBit) {
  if (quantized::quant_isa() == quantized::QuantIsa::kScalar) GTEST_SKIP() << "no AVX2 here";
#if defined(TORCHEDGE_QUANTIZED_X86)
  const int64_t m = 6, k = 77, n = 13;
  std::mt19937 gen(9);
  std::uniform_int_distribution<int> d(-255, 255), w8(-128, 127);
  std::vector<int16_t> x(m * k);
  std::vector<int8_t> w(n * k);
  for (int16_t& v : x) v = static_cast<int16_t>(d(gen));
  for (int8_t& v : w) v = static_cast<int8_t>(w8(gen));
  const std::vector<float> ws = random_floats(n, 0.001f, 0.01f, 3);
  std::vector<int8_t> a(m * n), b(m * n);
  quantized::Int8GemmProblem p{x.data(), w.data(), ws.data(), nullptr, m, n, k,
                               0.02f, 2.5f, 1.0f, -128.0f, 127.0f, a.data()};
  quantized::int8_gemm_requant_scalar(p, 0, n);
  p.out = b.data();
  quantized::int8_gemm_requant_avx2(p, 0, n);
  EXPECT_EQ(a, b);
#endif
}

// The AArch64 sdot path (support/int8_gemm_dot.h) and, where the CPU has
// i8mm (QEMU's max core), the SMMLA one against the scalar loops on the
// same sums: raw activations with their zero point, row and column counts
// off the 8 x 8 tile (odd: a last column alone in its pair) and K off the
// 16-byte chunk and the 8-byte step, bias or none; M = 1-3 run the row
// loop (run_int8_gemv_dot: a classifier's 1280 x 37, partial column tiles).
TEST(QuantizedLinear, DotProductEqualsScalarBitForBit) {
#if defined(TORCHEDGE_QUANTIZED_ARM)
  if (optimized::best_arm_isa() < optimized::ArmIsa::kDotProd) {
    GTEST_SKIP() << "no dot-product here";
  }
  struct Shape {
    int64_t m, k, n;
    bool bias;
  };
  const Shape shapes[] = {{1, 7, 3, false},   {6, 77, 13, true},    {9, 16, 8, true},
                          {17, 33, 17, false}, {32, 384, 40, true}, {3, 8, 1, true},
                          {10, 24, 9, false}, {1, 1280, 37, true}, {2, 100, 19, true},
                          {3, 48, 16, false}};
  int seed = 0, i8mm_runs = 0;
  for (const Shape& sh : shapes) {
    std::mt19937 gen(++seed);
    std::uniform_int_distribution<int> i8(-128, 127);
    const int32_t zx = i8(gen);
    std::vector<int8_t> xq(sh.m * sh.k), w(sh.n * sh.k);
    for (int8_t& v : xq) v = static_cast<int8_t>(i8(gen));
    for (int8_t& v : w) v = static_cast<int8_t>(i8(gen));
    std::vector<int16_t> x(xq.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int16_t>(xq[i] - zx);
    const std::vector<float> ws = random_floats(sh.n, 0.0005f, 0.002f, seed);
    const std::vector<float> bias = random_floats(sh.n, -2.0f, 2.0f, seed + 100);
    std::vector<int8_t> a(sh.m * sh.n), b(sh.m * sh.n, 77);
    quantized::Int8GemmProblem p{x.data(), w.data(), ws.data(), sh.bias ? bias.data() : nullptr,
                                 sh.m, sh.n, sh.k, 0.02f, 2.5f, 3.0f, -128.0f, 127.0f, a.data()};
    quantized::int8_gemm_requant_scalar(p, 0, sh.n);
    std::vector<uint8_t> scratch(quantized::int8_gemm_dot_scratch_bytes(sh.m, sh.n, sh.k) + 64);
    void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) &
                                            ~uintptr_t{63});
    // The column sums as the program stores them (weight_sums), and none
    // (summed per call): the same bytes either way.
    std::vector<int32_t> sums(sh.n, 0);
    for (int64_t col = 0; col < sh.n; ++col) {
      for (int64_t i = 0; i < sh.k; ++i) sums[col] += w[col * sh.k + i];
    }
    const int32_t* const given_sums[] = {nullptr, sums.data()};
    for (const int32_t* given : given_sums) {
      const char* how = given != nullptr ? " (weight_sums)" : " (summed per call)";
      std::fill(b.begin(), b.end(), int8_t{77});
      p.out = b.data();
      quantized::run_int8_gemm_dot(p, xq.data(), zx, given, aligned);
      EXPECT_EQ(a, b) << "sdot " << sh.m << " x " << sh.k << " x " << sh.n << how;
      if (optimized::detected_arm_isa() >= optimized::ArmIsa::kI8mm) {
        std::vector<int8_t> c(sh.m * sh.n, 77);
        std::vector<uint8_t> scratch8(quantized::int8_gemm_i8mm_scratch_bytes(sh.m, sh.n, sh.k) +
                                      64);
        p.out = c.data();
        quantized::run_int8_gemm_i8mm(p, xq.data(), zx, given,
                                      reinterpret_cast<void*>(
                                          (reinterpret_cast<uintptr_t>(scratch8.data()) + 63) &
                                          ~uintptr_t{63}));
        EXPECT_EQ(a, c) << "smmla " << sh.m << " x " << sh.k << " x " << sh.n << how;
        ++i8mm_runs;
      }
    }
  }
  // QEMU's max core has i8mm: the SMMLA kernel must have run there.
  if (optimized::detected_arm_isa() >= optimized::ArmIsa::kI8mm) {
    EXPECT_EQ(i8mm_runs, 2 * static_cast<int>(sizeof(shapes) / sizeof(shapes[0])));
  }
#else
  GTEST_SKIP() << "AArch64 builds only";
#endif
}

// The op with the trailing weight_sums (what the fusion exports) gives the
// bytes it gives without (programs written before it), on every path.
TEST(QuantizedLinear, WeightSumsArgumentGivesTheSameOutput) {
  const int64_t m = 9, k = 40, n = 11, in_zp = -7;
  std::mt19937 gen(5);
  std::uniform_int_distribution<int> i8(-128, 127);
  std::vector<int8_t> xq(m * k), wq(n * k);
  for (int8_t& v : xq) v = static_cast<int8_t>(i8(gen));
  for (int8_t& v : wq) v = static_cast<int8_t>(i8(gen));
  std::vector<int32_t> sums(n, 0);
  for (int64_t col = 0; col < n; ++col) {
    for (int64_t i = 0; i < k; ++i) sums[col] += wq[col * k + i];
  }
  TestTensor x(ScalarType::Char, {m, k}), w(ScalarType::Char, {n, k}), s(ScalarType::Float, {n});
  TestTensor ws(ScalarType::Int, {n});
  x.fill(xq);
  w.fill(wq);
  s.fill(random_floats(n, 0.001f, 0.01f, 4));
  ws.fill(sums);
  TestTensor without(ScalarType::Char, {m, n}), with(ScalarType::Char, {m, n});
  ASSERT_EQ(Args().t(x).d(0.05).i(in_zp).t(w).t(s).none().d(0.3).i(2).i(-128).i(127).t(without)
                .run(native::quantized_linear_out),
            Error::Ok);
  ASSERT_EQ(Args().t(x).d(0.05).i(in_zp).t(w).t(s).none().d(0.3).i(2).i(-128).i(127).t(ws)
                .t(with).run(native::quantized_linear_out),
            Error::Ok);
  EXPECT_EQ(without.values<int8_t>(), with.values<int8_t>());
  // weight_sums must be int32 [N].
  TestTensor short_sums(ScalarType::Int, {n - 1}), float_sums(ScalarType::Float, {n});
  for (TestTensor* bad : {&short_sums, &float_sums}) {
    EXPECT_EQ(Args().t(x).d(0.05).i(in_zp).t(w).t(s).none().d(0.3).i(2).i(-128).i(127).t(*bad)
                  .t(with).run(native::quantized_linear_out),
              Error::InvalidArgument);
  }
}

TEST(QuantizedLinear, BadArguments) {
  TestTensor x(ScalarType::Char, {2, 8}), w(ScalarType::Char, {3, 8}), s(ScalarType::Float, {3});
  TestTensor out(ScalarType::Char, {2, 3});
  auto run = [&](TestTensor& xx, TestTensor& ww, int64_t in_zp, double out_scale, int64_t qmin) {
    return Args().t(xx).d(0.1).i(in_zp).t(ww).t(s).none().d(out_scale).i(0).i(qmin).i(127).t(out)
        .run(native::quantized_linear_out);
  };
  EXPECT_EQ(run(x, w, 0, 0.5, -128), Error::Ok);
  TestTensor w_bad(ScalarType::Char, {3, 9});
  EXPECT_EQ(run(x, w_bad, 0, 0.5, -128), Error::InvalidArgument);
  EXPECT_EQ(run(x, w, 300, 0.5, -128), Error::InvalidArgument);
  EXPECT_EQ(run(x, w, 0, 0.0, -128), Error::InvalidArgument);
  EXPECT_EQ(run(x, w, 0, 0.5, -129), Error::InvalidArgument);
  TestTensor xf(ScalarType::Float, {2, 8});
  EXPECT_EQ(run(xf, w, 0, 0.5, -128), Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
