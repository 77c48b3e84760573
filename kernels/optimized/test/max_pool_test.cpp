// The optimized max_pool2d_with_indices against the portable kernel, values
// and indices exactly equal: randomized planes with ties (values drawn from
// a few integers), NaN and -inf, kernel 2-5, strides 1-3, padding, ceil
// mode, 3-d and batched 4-d inputs, rows wide enough for the 8-wide interior
// path and narrow ones, at 1 and 2 threads; int8 planes (ties, -128 runs)
// likewise; torchedge::max_pool2d (no indices) must give the same values bit
// for bit on both libraries. CTest reruns the binary with
// TORCHEDGE_ISA=scalar (border loop only).
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace optimized {
Error max_pool2d_with_indices_out(KernelContext&, Span<EValue*>);
Error max_pool2d_out(KernelContext&, Span<EValue*>);
}  // namespace optimized

namespace {

struct PoolCase {
  std::vector<int32_t> shape;  // 3-d or 4-d
  int k, stride, pad;
  bool ceil_mode;
  int kw = 0;  // 0: square
};

const PoolCase kCases[] = {
    {{1, 4, 112, 112}, 3, 2, 1, false},  // ResNet stem
    {{2, 3, 37, 41}, 3, 2, 1, true},
    {{3, 20, 33}, 2, 2, 0, false},
    {{1, 2, 19, 40}, 3, 1, 1, false},
    {{1, 2, 30, 45}, 5, 3, 2, true},
    {{1, 1, 9, 9}, 3, 2, 1, false, 2},
    {{1, 5, 3, 5}, 3, 1, 0, false},
    {{1, 2, 3, 40}, 5, 1, 2, false},   // every window clipped at the top and bottom
    {{1, 3, 6, 17}, 3, 2, 1, true},    // exactly 8 vector columns, clipped bottom rows
    {{1, 2, 11, 26}, 3, 1, 1, false},  // the last vector overlaps the one before
    // int8 on NEON: the left border in the first 16 outputs (2 and 3 wide,
    // strides 1 and 2), and a map too short for its 48-byte row copies.
    {{1, 3, 10, 50}, 2, 1, 1, false},
    {{1, 2, 12, 70}, 3, 2, 1, false, 2},
    {{1, 1, 3, 20}, 3, 1, 1, false},
};

// variant 0: real values, 1: small integers (ties, -0 among them), 2: with NaN and -inf,
// 3: int8 (small integers and runs of -128).
void run_case(const PoolCase& c, std::mt19937& rng, int variant) {
  const int kw = c.kw == 0 ? c.k : c.kw;
  const ScalarType dtype = variant == 3 ? ScalarType::Char : ScalarType::Float;
  TestTensor x(dtype, c.shape);
  std::vector<float> v(static_cast<size_t>((*x).numel()));
  std::uniform_int_distribution<int> small(-3, 3);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(0, 99);
  for (float& f : v) {
    f = variant == 0 ? real(rng) : static_cast<float>(small(rng));
    const int r = pick(rng);
    if (variant == 1 && r >= 90) f = -0.0f;  // ties of -0 and 0 keep the first
    if (variant == 2 && r < 3) f = std::numeric_limits<float>::quiet_NaN();
    if (variant == 2 && r >= 3 && r < 40) f = -std::numeric_limits<float>::infinity();
    if (variant == 3) f = r < 40 ? -128.0f : static_cast<float>(small(rng) * 40);
  }
  if (variant == 3) {
    x.fill(std::vector<int8_t>(v.begin(), v.end()));
  } else {
    x.fill(v);
  }
  const int rank = static_cast<int>(c.shape.size());
  auto out_size = [&](int in, int k) {
    const int span = in + 2 * c.pad - k;
    int o = (c.ceil_mode ? (span + c.stride - 1) : span) / c.stride + 1;
    if (c.ceil_mode && (o - 1) * c.stride >= in + c.pad) --o;
    return o;
  };
  std::vector<int32_t> os = c.shape;
  os[rank - 2] = out_size(c.shape[rank - 2], c.k);
  os[rank - 1] = out_size(c.shape[rank - 1], kw);
  std::vector<float> vals[2];
  std::vector<int64_t> idx[2];
  for (int which = 0; which < 2; ++which) {
    TestTensor out(dtype, os), ind(ScalarType::Long, os);
    Args a;
    a.t(x).ints({c.k, kw}).ints({c.stride}).ints({c.pad}).ints({1}).b(c.ceil_mode).t(out).t(ind);
    ASSERT_EQ(a.run(which == 0 ? &optimized::max_pool2d_with_indices_out
                               : &native::max_pool2d_with_indices_out),
              Error::Ok);
    ASSERT_EQ(out.shape(), os);
    if (variant == 3) {
      const std::vector<int8_t> q = out.values<int8_t>();
      vals[which].assign(q.begin(), q.end());
    } else {
      vals[which] = out.values<float>();
    }
    idx[which] = ind.values<int64_t>();
  }
  for (size_t i = 0; i < vals[0].size(); ++i) {
    const float a = vals[0][i], b = vals[1][i];
    ASSERT_TRUE(a == b || (std::isnan(a) && std::isnan(b))) << "value at " << i;
    ASSERT_EQ(idx[0][i], idx[1][i]) << "index at " << i;
  }
  // torchedge::max_pool2d (no indices), optimized and portable: the indexed
  // kernel's values, bit for bit (NaN payloads and signed zeros included).
  for (int which = 0; which < 2; ++which) {
    TestTensor out(dtype, os);
    Args a;
    a.t(x).ints({c.k, kw}).ints({c.stride}).ints({c.pad}).ints({1}).b(c.ceil_mode).t(out);
    ASSERT_EQ(a.run(which == 0 ? &optimized::max_pool2d_out : &native::max_pool2d_out),
              Error::Ok);
    ASSERT_EQ(out.shape(), os);
    std::vector<float> values;
    if (variant == 3) {
      const std::vector<int8_t> q = out.values<int8_t>();
      values.assign(q.begin(), q.end());
    } else {
      values = out.values<float>();
    }
    ASSERT_EQ(0, std::memcmp(values.data(), vals[1].data(), values.size() * sizeof(float)))
        << (which == 0 ? "optimized" : "portable") << " values-only max pool";
  }
}

class MaxPoolTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok); }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(MaxPoolTest, MatchesPortable) {
  std::mt19937 rng(11);
  for (const PoolCase& c : kCases) {
    for (int variant = 0; variant < 4; ++variant) {
      SCOPED_TRACE(::testing::Message() << "k=" << c.k << " s=" << c.stride << " p=" << c.pad
                                        << " ceil=" << c.ceil_mode << " variant=" << variant);
      run_case(c, rng, variant);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, MaxPoolTest, ::testing::Values(1, 2));

TEST(MaxPoolFallback, OtherDtypesDilationAndErrorsGoToPortable) {
  TestTensor x(ScalarType::Double, {1, 1, 6, 6}), out(ScalarType::Double, {1, 1, 3, 3}),
      ind(ScalarType::Long, {1, 1, 3, 3});
  x.fill(std::vector<double>(36, 1.0));
  Args a;
  a.t(x).ints({2}).ints({2}).ints({0}).ints({1}).b(false).t(out).t(ind);
  ASSERT_EQ(a.run(&optimized::max_pool2d_with_indices_out), Error::Ok);
  EXPECT_EQ(out.values<double>(), std::vector<double>(9, 1.0));

  TestTensor xf(ScalarType::Float, {1, 1, 7, 7}), of(ScalarType::Float, {1, 1, 3, 3}),
      inf(ScalarType::Long, {1, 1, 3, 3});
  std::vector<float> ramp(49);
  for (size_t i = 0; i < ramp.size(); ++i) ramp[i] = static_cast<float>(i);
  xf.fill(ramp);
  Args dil;  // dilation 2: portable
  dil.t(xf).ints({2}).ints({2}).ints({0}).ints({2}).b(false).t(of).t(inf);
  ASSERT_EQ(dil.run(&optimized::max_pool2d_with_indices_out), Error::Ok);
  EXPECT_EQ(inf.values<int64_t>()[0], 16);  // taps (0,0) (0,2) (2,0) (2,2)

  Args bad;  // padding over half the kernel: the portable kernel's error
  bad.t(xf).ints({2}).ints({2}).ints({2}).ints({1}).b(false).t(of).t(inf);
  EXPECT_EQ(bad.run(&optimized::max_pool2d_with_indices_out), Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
