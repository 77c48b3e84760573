// The optimized 1-d convolution (aten::convolution.out on [N, C, L] tensors:
// the 2-d implicit-im2col SGEMM over a 1 x L plane, conv/conv2d_call.cpp)
// against the portable kernel on the audio feature extractors' shapes
// (Whisper's k3 s1 / k3 s2 padded, wav2vec2's k10 s5 from one channel, k3
// s2 and k2 s2 unpadded, its grouped k=128 positional conv scaled down and
// full-size, the stem and a k3 s2 layer at full length) and
// random geometries, at 1 and 2 threads, rtol 1e-4 / atol 1e-5. Each case
// checks the fast path ran (it takes GEMM scratch; the portable kernel none)
// and that the output keeps its three dimensions.
#include <random>

#include "kernels/optimized/portable_fallback.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace optimized {
Error convolution_out(KernelContext&, Span<EValue*>);
}  // namespace optimized

namespace {

struct Conv1dCase {
  int n, cin, length, cout, kernel, stride, pad, dil, groups;
  bool bias;
};

const Conv1dCase kCases[] = {
    {1, 80, 300, 64, 3, 1, 1, 1, 1, true},     // Whisper conv1 (k3 s1 p1)
    {1, 64, 300, 64, 3, 2, 1, 1, 1, true},     // Whisper conv2 (k3 s2 p1)
    {1, 1, 1600, 64, 10, 5, 0, 1, 1, false},   // wav2vec2 layer 0 (one channel, k10 s5)
    {1, 64, 319, 64, 3, 2, 0, 1, 1, false},    // wav2vec2 k3 s2, odd length
    {1, 64, 39, 64, 2, 2, 0, 1, 1, false},     // wav2vec2 k2 s2, odd length
    {1, 32, 49, 32, 16, 1, 8, 1, 4, true},     // positional conv: grouped, even kernel, padded
    {2, 7, 50, 9, 5, 3, 2, 2, 1, true},        // batch 2, stride 3, dilation 2
    {1, 8, 40, 8, 3, 1, 1, 1, 8, true},        // depthwise
    // Full-size where the 1-d packer's panels matter (several strips and
    // panels, borders at both ends):
    {1, 1, 16000, 512, 10, 5, 0, 1, 1, false}, // wav2vec2 layer 0 as in the model
    {1, 64, 3199, 48, 3, 2, 0, 1, 1, false},   // wav2vec2 k3 s2 at its longest row
    {1, 256, 49, 256, 128, 1, 64, 1, 16, true}, // wav2vec2 positional conv as in the model
};

void run_case(const Conv1dCase& c, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  auto random = [&](size_t count) {
    std::vector<float> v(count);
    for (float& x : v) x = dist(rng);
    return v;
  };
  const int out_len = (c.length + 2 * c.pad - c.dil * (c.kernel - 1) - 1) / c.stride + 1;
  TestTensor x(ScalarType::Float, {c.n, c.cin, c.length});
  TestTensor w(ScalarType::Float, {c.cout, c.cin / c.groups, c.kernel});
  TestTensor b(ScalarType::Float, {c.cout});
  x.fill(random(static_cast<size_t>(c.n) * c.cin * c.length));
  w.fill(random(static_cast<size_t>(c.cout) * (c.cin / c.groups) * c.kernel));
  b.fill(random(static_cast<size_t>(c.cout)));
  std::vector<float> results[2];
  for (int which = 0; which < 2; ++which) {
    TestTensor out(ScalarType::Float, {c.n, c.cout, out_len});
    Args args;
    args.t(x).t(w);
    if (c.bias) args.t(b); else args.none();
    args.ints({c.stride}).ints({c.pad}).ints({c.dil}).b(false).ints({0}).i(c.groups).t(out);
    std::vector<unsigned char> arena(size_t{16} << 20);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(&temp);
    ASSERT_EQ(args.run_with(which == 0 ? &optimized::convolution_out : &native::convolution_out, ctx),
              Error::Ok);
    if (which == 0) EXPECT_GT(temp.used(), 0u) << "fast path";
    ASSERT_EQ((*out).dim(), 3);
    ASSERT_EQ((*out).size(2), out_len);
    results[which] = out.values<float>();
  }
  for (size_t i = 0; i < results[0].size(); ++i) {
    ASSERT_NEAR(results[0][i], results[1][i], 1e-5 + 1e-4 * std::fabs(results[1][i])) << i;
  }
}

class Conv1dTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { ASSERT_EQ(set_num_threads(static_cast<size_t>(GetParam())), Error::Ok); }
  void TearDown() override { ASSERT_EQ(set_num_threads(1), Error::Ok); }
};

TEST_P(Conv1dTest, AudioShapes) {
  std::mt19937 rng(5);
  for (const Conv1dCase& c : kCases) {
    SCOPED_TRACE(::testing::Message() << "cin=" << c.cin << " L=" << c.length << " k=" << c.kernel
                                      << " s=" << c.stride << " g=" << c.groups);
    run_case(c, rng);
  }
}

TEST_P(Conv1dTest, RandomShapes) {
  std::mt19937 rng(99);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 30; ++trial) {
    Conv1dCase c;
    c.n = pick(1, 2);
    c.groups = pick(0, 3) == 0 ? pick(2, 3) : 1;
    c.cin = c.groups * pick(1, 9);
    c.cout = c.groups * pick(1, 9);
    c.kernel = pick(1, 12);
    c.stride = pick(1, 6);
    c.dil = pick(0, 3) == 0 ? 2 : 1;
    c.pad = pick(0, c.kernel / 2);
    c.length = pick(c.dil * (c.kernel - 1) + 1, 200);
    c.bias = pick(0, 1) == 1;
    SCOPED_TRACE(::testing::Message() << "trial " << trial << ": cin=" << c.cin << " L="
                                      << c.length << " cout=" << c.cout << " k=" << c.kernel
                                      << " s=" << c.stride << " p=" << c.pad << " d=" << c.dil
                                      << " g=" << c.groups);
    run_case(c, rng);
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, Conv1dTest, ::testing::Values(1, 2));

// A 2-element stride list on 3-d tensors is malformed: the portable
// kernel's error, not a guess.
TEST(Conv1dFallback, MalformedListsGoToPortable) {
  TestTensor x(ScalarType::Float, {1, 2, 8}), w(ScalarType::Float, {3, 2, 3}),
      y(ScalarType::Float, {1, 3, 6});
  x.fill(std::vector<float>(16, 1.0f)), w.fill(std::vector<float>(18, 1.0f));
  Args conv;
  conv.t(x).t(w).none().ints({1, 1}).ints({0}).ints({1}).b(false).ints({0}).i(1).t(y);
  std::vector<unsigned char> arena(size_t{1} << 20);
  MemoryAllocator temp(arena.data(), arena.size());
  KernelContext ctx(&temp);
  Args portable;
  portable.t(x).t(w).none().ints({1, 1}).ints({0}).ints({1}).b(false).ints({0}).i(1).t(y);
  EXPECT_EQ(conv.run_with(&optimized::convolution_out, ctx),
            portable.run(&native::convolution_out));
}

}  // namespace
}  // namespace torchedge
