// The optimized aten::native_group_norm.out against the portable kernel:
// wav2vec2's layout (one channel per group over a long sequence), several
// channels per group over 2-d maps, with and without weight / bias, a
// large common offset (the centered variance must not cancel), at 1 and 2
// threads; out0, mean and rstd within 1e-4 of their largest magnitude. Non-float
// inputs and malformed arguments still go to the portable kernel.
#include <random>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace optimized {
Error native_group_norm_out(KernelContext&, Span<EValue*>);
}  // namespace optimized

namespace {

struct GroupNormCase {
  std::vector<int32_t> shape;
  int groups;
  bool weight, bias;
  float offset;
};

// Within 1e-4 of max(1, max |want|): both kernels fold the statistics into
// x * scale + shift (as ATen does), which cancels digits when the mean is
// large next to the spread (the offset case) or a group has no spread (one
// position); the optimized kernel's centered variance is summed in float
// (around the float mean) and its x * scale + shift is one FMA; both errors
// stay far below this bound.
void expect_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  float scale = 1.0f;
  for (float v : want) scale = std::fabs(v) > scale ? std::fabs(v) : scale;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-4 * scale) << what << " at " << i;
  }
}

void run_case(const GroupNormCase& c, std::mt19937& rng) {
  std::normal_distribution<float> dist(0.0f, 1.0f);
  size_t count = 1;
  for (int32_t s : c.shape) count *= static_cast<size_t>(s);
  const int32_t n = c.shape[0], channels = c.shape[1];
  const int64_t hxw = static_cast<int64_t>(count) / (n * channels);
  std::vector<float> values(count), gamma(channels), beta(channels);
  for (float& v : values) v = c.offset + 3.0f * dist(rng);
  for (float& v : gamma) v = 1.0f + 0.5f * dist(rng);
  for (float& v : beta) v = dist(rng);
  TestTensor x(ScalarType::Float, c.shape), w(ScalarType::Float, {channels}),
      b(ScalarType::Float, {channels});
  x.fill(values), w.fill(gamma), b.fill(beta);
  std::vector<float> results[2][3];
  for (int which = 0; which < 2; ++which) {
    TestTensor out(ScalarType::Float, c.shape), mean(ScalarType::Float, {n, c.groups}),
        rstd(ScalarType::Float, {n, c.groups});
    Args args;
    args.t(x);
    if (c.weight) args.t(w); else args.none();
    if (c.bias) args.t(b); else args.none();
    args.i(n).i(channels).i(hxw).i(c.groups).d(1e-5).t(out).t(mean).t(rstd);
    ASSERT_EQ(args.run(which == 0 ? &optimized::native_group_norm_out
                                  : &native::native_group_norm_out),
              Error::Ok);
    results[which][0] = out.values<float>();
    results[which][1] = mean.values<float>();
    results[which][2] = rstd.values<float>();
  }
  expect_close(results[0][0], results[1][0], "out0");
  expect_close(results[0][1], results[1][1], "mean");
  expect_close(results[0][2], results[1][2], "rstd");
}

class GroupNormTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok); }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(GroupNormTest, MatchesPortable) {
  std::mt19937 rng(17);
  const GroupNormCase cases[] = {
      {{1, 64, 3199}, 64, true, true, 0.0f},   // wav2vec2: a group per channel, long sequence
      {{1, 40, 1601}, 40, false, false, 0.0f}, // a group per channel, no affine, odd length
      {{1, 16, 3199}, 16, true, true, 50.0f},  // a group per channel, offset
      {{2, 32, 7, 9}, 8, true, true, 0.0f},    // 4 channels per group, 2-d maps, batch 2
      {{1, 12, 37}, 3, false, false, 0.0f},    // no affine
      {{1, 12, 37}, 4, true, false, 0.0f},     // weight only
      {{1, 6, 21}, 1, false, true, 0.0f},      // bias only, one group
      {{1, 8, 1000}, 2, true, true, 1000.0f},  // large offset: centered variance
      {{3, 5, 1}, 5, true, true, 0.0f},        // one position per channel
  };
  for (const GroupNormCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "C=" << c.shape[1] << " groups=" << c.groups
                                      << " offset=" << c.offset);
    run_case(c, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, GroupNormTest, ::testing::Values(1, 2));

TEST(GroupNormFallback, OtherDtypesAndErrorsGoToPortable) {
  TestTensor x(ScalarType::Double, {1, 4, 3}), out(ScalarType::Double, {1, 4, 3}),
      mean(ScalarType::Double, {1, 2}), rstd(ScalarType::Double, {1, 2});
  x.fill(std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  Args args;
  args.t(x).none().none().i(1).i(4).i(3).i(2).d(1e-5).t(out).t(mean).t(rstd);
  ASSERT_EQ(args.run(&optimized::native_group_norm_out), Error::Ok);
  EXPECT_NEAR(mean.values<double>()[1], 9.5, 1e-12);
  // Channels not divisible by the groups: the portable kernel's error.
  TestTensor fx(ScalarType::Float, {1, 6, 3}), fo(ScalarType::Float, {1, 6, 3}),
      fm(ScalarType::Float, {1, 4}), fr(ScalarType::Float, {1, 4});
  fx.fill(std::vector<float>(18, 1.0f));
  Args bad;
  bad.t(fx).none().none().i(1).i(6).i(3).i(4).d(1e-5).t(fo).t(fm).t(fr);
  EXPECT_EQ(bad.run(&optimized::native_group_norm_out), Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
