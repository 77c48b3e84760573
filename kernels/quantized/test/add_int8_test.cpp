// torchedge::add_int8.out against the composition it fuses, computed with
// the registered kernels themselves: dequantize_per_tensor.out on each side,
// a float32 add, quantize_per_tensor.out (relu: on the relu'd sum with the
// full range, which must equal the folded output_min = zero point), bit for
// bit, for sizes around the 32-element SIMD block, every pair of int8
// values, thread splits, and sums that overflow to inf / NaN (the suite
// reruns under TORCHEDGE_ISA=avx2 and scalar).
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_add.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

struct AddCase {
  double sa;
  int32_t za;
  double sb;
  int32_t zb;
  double so;
  int32_t zo;
  int32_t omin, omax;
};

std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(-128, 127);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(gen));
  return v;
}

std::vector<float> dequantize(const std::vector<int8_t>& q, double scale, int32_t zp) {
  const int32_t n = static_cast<int32_t>(q.size());
  TestTensor in(ScalarType::Char, {n}), out(ScalarType::Float, {n});
  in.fill(q);
  EXPECT_EQ(Args().t(in).d(scale).i(zp).i(-128).i(127).i(code(ScalarType::Char)).none().t(out)
                .run(native::dequantize_per_tensor_out),
            Error::Ok);
  return out.values<float>();
}

std::vector<int8_t> quantize(const std::vector<float>& x, double scale, int32_t zp, int32_t lo,
                             int32_t hi) {
  const int32_t n = static_cast<int32_t>(x.size());
  TestTensor in(ScalarType::Float, {n}), out(ScalarType::Char, {n});
  in.fill(x);
  EXPECT_EQ(Args().t(in).d(scale).i(zp).i(lo).i(hi).i(code(ScalarType::Char)).t(out)
                .run(native::quantize_per_tensor_out),
            Error::Ok);
  return out.values<int8_t>();
}

// dequantize -> add -> [relu] -> quantize with the registered kernels.
std::vector<int8_t> reference(const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                              const AddCase& k, bool relu) {
  std::vector<float> s = dequantize(a, k.sa, k.za);
  const std::vector<float> fb = dequantize(b, k.sb, k.zb);
  for (size_t i = 0; i < s.size(); ++i) {
    s[i] = s[i] + fb[i];
    if (relu) s[i] = s[i] < 0.0f ? 0.0f : s[i];  // torch.relu (NaN stays NaN)
  }
  return relu ? quantize(s, k.so, k.zo, -128, 127) : quantize(s, k.so, k.zo, k.omin, k.omax);
}

std::vector<int8_t> run_add(const std::vector<int8_t>& a, const std::vector<int8_t>& b,
                            const AddCase& k, std::vector<int32_t> shape) {
  TestTensor ta(ScalarType::Char, shape), tb(ScalarType::Char, shape), out(ScalarType::Char, shape);
  ta.fill(a);
  tb.fill(b);
  EXPECT_EQ(Args().t(ta).d(k.sa).i(k.za).t(tb).d(k.sb).i(k.zb).d(k.so).i(k.zo).i(k.omin).i(k.omax)
                .t(out).run(native::add_int8_out),
            Error::Ok);
  return out.values<int8_t>();
}

void check(const std::vector<int8_t>& a, const std::vector<int8_t>& b, AddCase k,
           std::vector<int32_t> shape) {
  SCOPED_TRACE(testing::Message() << "n " << a.size() << " sa " << k.sa << " za " << k.za << " sb "
                                  << k.sb << " zb " << k.zb << " so " << k.so << " zo " << k.zo
                                  << " [" << k.omin << ", " << k.omax << "]");
  EXPECT_EQ(run_add(a, b, k, shape), reference(a, b, k, false));
  // relu folded into the range: output_min = max(-128, zo).
  AddCase r = k;
  r.omin = k.zo;
  r.omax = 127;
  EXPECT_EQ(run_add(a, b, r, shape), reference(a, b, k, true));
}

TEST(AddInt8, MatchesDequantizeAddQuantize) {
  const AddCase cases[] = {
      {0.05, -3, 0.07, 12, 0.09, -5, -128, 127},
      {0.0123, 127, 0.5, -128, 0.3, 100, -100, 90},
      {1.0 / 3.0, 0, 0.1, 0, 0.2, 0, -128, 127},  // many ties for round-half-even
      {0.02, -128, 0.02, -128, 0.01, -128, -128, 127},
  };
  uint32_t seed = 1;
  for (const AddCase& k : cases) {
    for (int32_t n : {1, 7, 31, 32, 33, 63, 100, 257, 1000}) {
      check(random_int8(n, seed), random_int8(n, seed + 1), k, {n});
      seed += 2;
    }
    check(random_int8(2 * 3 * 5 * 7, seed), random_int8(2 * 3 * 5 * 7, seed + 1), k, {2, 3, 5, 7});
  }
}

TEST(AddInt8, EveryPairOfValues) {
  std::vector<int8_t> a, b;
  for (int i = -128; i < 128; ++i) {
    for (int j = -128; j < 128; ++j) {
      a.push_back(static_cast<int8_t>(i));
      b.push_back(static_cast<int8_t>(j));
    }
  }
  check(a, b, {0.1, 3, 0.05, -7, 0.125, 1, -128, 127}, {256, 256});
  check(a, b, {0.25, 0, 0.25, 0, 0.5, 0, -128, 127}, {256, 256});  // exact .5 ties
}

TEST(AddInt8, ThreadsSplitLargeTensors) {
  const int32_t n = 300007;
  const std::vector<int8_t> a = random_int8(n, 11), b = random_int8(n, 12);
  const AddCase k{0.03, 5, 0.04, -9, 0.05, 2, -128, 127};
  ASSERT_EQ(set_num_threads(2), Error::Ok);
  check(a, b, k, {n});
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(AddInt8, OverflowToInfAndNaNLikeEager) {
  // (127 - (-128)) * 2e36 overflows float: +inf + -inf = NaN -> 0, inf -> max.
  std::vector<int8_t> a(40, 127), b(40, -128);
  for (size_t i = 0; i < a.size(); i += 3) b[i] = 127;
  check(a, b, {3e36, -128, 3e36, 127, 1.0, 4, -128, 127}, {40});
}

TEST(AddInt8, ScalarPathEqualsBestIsa) {
  const int32_t n = 1000;
  const std::vector<int8_t> a = random_int8(n, 21), b = random_int8(n, 22);
  const AddCase k{0.06, 1, 0.02, -2, 0.07, 3, -20, 127};
  const std::vector<int8_t> got = run_add(a, b, k, {n});
  std::vector<int8_t> scalar(n);
  quantized::Int8AddProblem p;
  p.a = a.data();
  p.b = b.data();
  p.out = scalar.data();
  p.count = n;
  p.a_scale = k.sa;
  p.a_zero_point = k.za;
  p.b_scale = k.sb;
  p.b_zero_point = k.zb;
  p.out_params = {static_cast<float>(1.0 / k.so), static_cast<float>(k.zo),
                  static_cast<float>(k.omin), static_cast<float>(k.omax)};
  quantized::int8_add_scalar(p, 0, n);
  EXPECT_EQ(got, scalar);
}

TEST(AddInt8, RejectsBadArguments) {
  TestTensor a(ScalarType::Char, {2, 8}), b(ScalarType::Char, {2, 8});
  TestTensor out(ScalarType::Char, {2, 8}), af(ScalarType::Float, {2, 8});
  TestTensor b2(ScalarType::Char, {8, 2}), b3(ScalarType::Char, {16});
  TestTensor bu(ScalarType::Byte, {2, 8}), outf(ScalarType::Float, {2, 8});
  auto run = [&](TestTensor& x, TestTensor& y, TestTensor& o, double sa, int64_t za, double so,
                 int64_t omin, int64_t omax) {
    return Args().t(x).d(sa).i(za).t(y).d(0.1).i(0).d(so).i(0).i(omin).i(omax).t(o).run(
        native::add_int8_out);
  };
  const Error bad = Error::InvalidArgument;
  EXPECT_EQ(run(a, b, out, 0.1, 0, 0.1, -128, 127), Error::Ok);
  EXPECT_EQ(run(af, b, out, 0.1, 0, 0.1, -128, 127), bad);
  EXPECT_EQ(run(a, bu, out, 0.1, 0, 0.1, -128, 127), bad);
  EXPECT_EQ(run(a, b2, out, 0.1, 0, 0.1, -128, 127), bad);  // shape
  EXPECT_EQ(run(a, b3, out, 0.1, 0, 0.1, -128, 127), bad);  // rank
  EXPECT_NE(run(a, b, outf, 0.1, 0, 0.1, -128, 127), Error::Ok);
  EXPECT_EQ(run(a, b, out, 0.0, 0, 0.1, -128, 127), bad);
  EXPECT_EQ(run(a, b, out, 0.1, 0, -0.1, -128, 127), bad);
  EXPECT_EQ(run(a, b, out, 0.1, 128, 0.1, -128, 127), bad);
  EXPECT_EQ(run(a, b, out, 0.1, 0, 0.1, 5, 4), bad);  // output_min > output_max
  EXPECT_EQ(run(a, b, out, 0.1, 0, 0.1, -129, 127), bad);
  EXPECT_EQ(run(a, b, out, 0.1, 0, 0.1, -128, 128), bad);
}

}  // namespace
}  // namespace torchedge
