// torchedge::linear_dynamic_int8.out: the activation quantization is
// bit-exact with the registered choose_qparams.Tensor_out +
// quantize_per_tensor.tensor_out kernels (themselves bit-exact with eager),
// the int32 sums are exact, and the float epilogue is
// float(acc) * (scale * w_scale[n]) + bias[n]; so the output must equal that
// reference bit for bit, on every ISA (the suite also runs with
// TORCHEDGE_ISA=avx2 and =scalar) and thread count.
#include <algorithm>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_gemm_f32.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

struct Case {
  int32_t m, k, n;
  bool bias;
};

// The unfused integer reference, built from the quantize kernels.
std::vector<float> reference(TestTensor& x, const std::vector<int8_t>& w,
                             const std::vector<float>& ws, const std::vector<float>* b,
                             int32_t m, int32_t k, int32_t n) {
  TestTensor scale(ScalarType::Double, {1}), zp(ScalarType::Long, {1});
  EXPECT_EQ(Args().t(x).i(-128).i(127).d(1.1920928955078125e-07).i(code(ScalarType::Char))
                .t(scale).t(zp).run(native::choose_qparams_tensor_out),
            Error::Ok);
  TestTensor xq(ScalarType::Char, x.shape());
  EXPECT_EQ(Args().t(x).t(scale).t(zp).i(-128).i(127).i(code(ScalarType::Char)).t(xq)
                .run(native::quantize_per_tensor_tensor_out),
            Error::Ok);
  const std::vector<int8_t> q = xq.values<int8_t>();
  const float s = static_cast<float>(scale.values<double>()[0]);
  const int64_t z = zp.values<int64_t>()[0];
  std::vector<float> out(static_cast<size_t>(m) * n);
  for (int32_t r = 0; r < m; ++r) {
    for (int32_t c = 0; c < n; ++c) {
      int64_t acc = 0;
      for (int32_t i = 0; i < k; ++i) acc += (q[r * k + i] - z) * int64_t{w[c * k + i]};
      float y = static_cast<float>(acc) * (s * ws[c]);
      if (b != nullptr) y += (*b)[c];
      out[r * n + c] = y;
    }
  }
  return out;
}

void expect_same_floats(const std::vector<float>& want, const std::vector<float>& got) {
  ASSERT_EQ(want.size(), got.size());
  for (size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    } else {
      ASSERT_EQ(want[i], got[i]) << "element " << i;
    }
  }
}

void run_case(const Case& c, uint32_t seed, const std::vector<float>* x_override = nullptr) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> w8(-128, 127);
  std::vector<int8_t> wq(static_cast<size_t>(c.n) * c.k);
  for (int8_t& v : wq) v = static_cast<int8_t>(w8(gen));
  const std::vector<float> xs = x_override != nullptr
                                    ? *x_override
                                    : random_floats(static_cast<size_t>(c.m) * c.k, -3.0f, 1.5f,
                                                    seed + 1);
  const std::vector<float> ws = random_floats(c.n, 0.001f, 0.01f, seed + 2);
  const std::vector<float> b = random_floats(c.n, -1.0f, 1.0f, seed + 3);
  TestTensor x(ScalarType::Float, {c.m, c.k}), w(ScalarType::Char, {c.n, c.k});
  x.fill(xs);
  w.fill(wq);
  TestTensor s(ScalarType::Float, {c.n}), bias(ScalarType::Float, {c.n});
  s.fill(ws);
  bias.fill(b);
  TestTensor out(ScalarType::Float, {c.m, c.n});
  Args args;
  args.t(x).t(w).t(s);
  if (c.bias) {
    args.t(bias);
  } else {
    args.none();
  }
  ASSERT_EQ(args.t(out).run(native::linear_dynamic_int8_out), Error::Ok);
  expect_same_floats(reference(x, wq, ws, c.bias ? &b : nullptr, c.m, c.k, c.n),
                     out.values<float>());
}

TEST(LinearDynamicInt8, EqualsQuantizeKernelsPlusExactIntegerSum) {
  // Odd K, K past one 384-k block, N not a multiple of 16, M not a multiple
  // of the 6-row panel, M = 1, K = 1, with and without bias.
  const Case cases[] = {{1, 64, 7, true},   {3, 100, 33, false}, {7, 15, 16, true},
                        {13, 1, 5, true},   {6, 777, 40, true},  {128, 384, 48, true},
                        {2, 16, 17, false}, {5, 31, 1, true}};
  uint32_t seed = 10;
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "m " << c.m << " k " << c.k << " n " << c.n);
    run_case(c, seed += 5);
  }
}

TEST(LinearDynamicInt8, SameResultOnTwoThreads) {
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  run_case({9, 200, 70, true}, 3);
  // Past 2 x 64K elements the activation min/max and quantize loop split
  // over the threads too (a NaN or inf in the second chunk: scalar path).
  const Case big{130, 1030, 24, true};
  run_case(big, 4);
  std::vector<float> x = random_floats(130 * 1030, -2.0f, 3.0f, 5);
  x[130 * 1030 - 7] = std::numeric_limits<float>::infinity();
  run_case(big, 6, &x);
  x[130 * 1030 - 7] = std::numeric_limits<float>::quiet_NaN();
  run_case(big, 7, &x);
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(LinearDynamicInt8, NonFiniteAndConstantInputs) {
  // NaN/inf take the scalar quantize loop; all-zero input gives the
  // eps scale; a constant row gives zero point -128 or 127.
  const Case c{4, 9, 5, true};
  std::vector<float> x(36, 0.0f);
  run_case(c, 1, &x);
  x.assign(36, 2.0f);
  run_case(c, 2, &x);
  x.assign(36, -0.5f);
  run_case(c, 3, &x);
  x[7] = std::numeric_limits<float>::quiet_NaN();
  run_case(c, 4, &x);
  x[7] = std::numeric_limits<float>::infinity();
  run_case(c, 5, &x);
}

TEST(LinearDynamicInt8, GemmExtremesAvx2EqualsScalar) {
  // |x| = 255 against w = -128 everywhere: the largest pair sums (no
  // vpmaddwd saturation) and K past two 384-k blocks.
  // Deliberate: with TORCHEDGE_ISA=scalar (ctest's second run) both sides
  // would be the scalar loop; the scalar path's exactness is covered by the
  // reference comparisons above.
  if (quantized::quant_isa() == quantized::QuantIsa::kScalar) {
    GTEST_SKIP() << "needs the AVX2 path to compare against the scalar one";
  }
  const int64_t m = 7, n = 35, k = 1001;
  std::vector<int16_t> x(quantized::int8_gemm_x_elements(m, k), 0);
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t i = 0; i < k; ++i) {
      const int16_t v = (r + i) % 3 == 0 ? 255 : -255;
      x[quantized::int8_gemm_x_index(r, i, k)] = v;
    }
  }
  std::vector<int8_t> w(n * k, -128);
  for (int64_t i = 0; i < n * k; i += 5) w[i] = 127;
  const std::vector<float> ws = random_floats(n, 0.001f, 0.01f, 4);
  std::vector<float> a(m * n), b(m * n);
  std::vector<uint64_t> scratch(quantized::int8_gemm_f32_scratch_bytes(m, n, k) / 8 + 8);
  void* aligned = reinterpret_cast<void*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) &
                                          ~uintptr_t{63});
  quantized::Int8GemmF32Problem p{x.data(), w.data(), ws.data(), nullptr, 0.5f, m, n, k, a.data()};
  quantized::int8_gemm_f32_scalar(p, 0, n);
  p.out = b.data();
  quantized::run_int8_gemm_f32(p, aligned);
  EXPECT_EQ(a, b);
}

TEST(LinearDynamicInt8, BadArguments) {
  TestTensor x(ScalarType::Float, {2, 8}), w(ScalarType::Char, {3, 8}), s(ScalarType::Float, {3});
  TestTensor out(ScalarType::Float, {2, 3});
  auto run = [&](TestTensor& xx, TestTensor& ww, TestTensor& ss, TestTensor& oo) {
    return Args().t(xx).t(ww).t(ss).none().t(oo).run(native::linear_dynamic_int8_out);
  };
  EXPECT_EQ(run(x, w, s, out), Error::Ok);
  TestTensor w_bad(ScalarType::Char, {3, 9}), w_float(ScalarType::Float, {3, 8});
  EXPECT_EQ(run(x, w_bad, s, out), Error::InvalidArgument);
  EXPECT_EQ(run(x, w_float, s, out), Error::InvalidArgument);
  TestTensor s_bad(ScalarType::Float, {4});
  EXPECT_EQ(run(x, w, s_bad, out), Error::InvalidArgument);
  TestTensor x_int(ScalarType::Char, {2, 8});
  EXPECT_EQ(run(x_int, w, s, out), Error::InvalidArgument);
  TestTensor out_int(ScalarType::Char, {2, 3});
  EXPECT_NE(run(x, w, s, out_int), Error::Ok);
  TestTensor bias_bad(ScalarType::Float, {2});
  EXPECT_EQ(Args().t(x).t(w).t(s).t(bias_bad).t(out).run(native::linear_dynamic_int8_out),
            Error::InvalidArgument);
  EXPECT_EQ(Args().t(x).t(w).t(s).none().t(out).run(native::linear_dynamic_int8_out, false),
            Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace torchedge
