// torchedge::mean_hw_int8.out against its contract (op_mean_hw_int8.cpp):
// with the input's quantization on the output, the integer sum divided by
// H*W rounded half to even (PyTorch's quantized average pooling), computed
// here in exact integer arithmetic, bit for bit; with other output
// parameters the float32 formula, step by step; and argument errors.
// (tests/quantization/test_int8_mean.py checks it against PyTorch itself.)
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

std::vector<int8_t> random_int8(size_t n, uint32_t seed, int lo = -128, int hi = 127) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<int8_t> v(n);
  for (int8_t& x : v) x = static_cast<int8_t>(d(gen));
  return v;
}

struct MeanCall {
  double in_scale;
  int32_t in_zp;
  double out_scale;
  int32_t out_zp;
  int32_t out_min = -128, out_max = 127;
  bool keepdim = true;
};

Error run_mean(const std::vector<int8_t>& x, std::vector<int32_t> shape, const MeanCall& k,
               std::vector<int8_t>* got) {
  TestTensor in(ScalarType::Char, shape);
  in.fill(x);
  std::vector<int32_t> out_shape = {shape[0], shape[1]};
  if (k.keepdim) out_shape.insert(out_shape.end(), {1, 1});
  TestTensor out(ScalarType::Char, out_shape);
  const Error e = Args().t(in).d(k.in_scale).i(k.in_zp).b(k.keepdim).d(k.out_scale).i(k.out_zp)
                      .i(k.out_min).i(k.out_max).t(out).run(native::mean_hw_int8_out);
  if (got != nullptr) *got = out.values<int8_t>();
  return e;
}

// round_half_even(sum / n) on integers: the exact quotient's rounding.
int32_t rounded_mean(int64_t sum, int64_t n) {
  int64_t q = sum / n, r = sum % n;
  if (r < 0) {  // floor division
    q -= 1;
    r += n;
  }
  if (2 * r > n || (2 * r == n && (q & 1))) q += 1;
  return static_cast<int32_t>(q);
}

TEST(MeanHwInt8, SharedQuantizationIsTheRoundedIntegerMean) {
  uint32_t seed = 7;
  const std::vector<std::vector<int32_t>> shapes = {
      {1, 64, 25, 5}, {2, 3, 1, 1}, {1, 5, 2, 2}, {1, 4, 4, 6}, {3, 2, 7, 9}, {1, 2, 256, 256}};
  for (const auto& shape : shapes) {
    for (int32_t zp : {-128, -3, 0, 127}) {
      const size_t n = static_cast<size_t>(shape[0]) * shape[1] * shape[2] * shape[3];
      const std::vector<int8_t> x = random_int8(n, seed++);
      std::vector<int8_t> got;
      ASSERT_EQ(run_mean(x, shape, {0.0137, zp, 0.0137, zp}, &got), Error::Ok);
      const int64_t plane = int64_t{shape[2]} * shape[3];
      for (size_t p = 0; p < got.size(); ++p) {
        int64_t sum = 0;
        for (int64_t i = 0; i < plane; ++i) sum += x[p * plane + i];
        SCOPED_TRACE(testing::Message() << "plane " << p << " of " << shape[2] << "x" << shape[3]);
        EXPECT_EQ(got[p], rounded_mean(sum, plane));
      }
    }
  }
}

TEST(MeanHwInt8, EvenPlanesRoundTiesToEven) {
  // 2x2 planes whose sums are 2, 6, -2, -6 (mod 4): means 0.5, 1.5, -0.5, -1.5.
  const std::vector<int8_t> x = {1, 1, 0, 0, 2, 2, 1, 1, -1, -1, 0, 0, -2, -2, -1, -1};
  std::vector<int8_t> got;
  ASSERT_EQ(run_mean(x, {1, 4, 2, 2}, {0.5, 0, 0.5, 0}, &got), Error::Ok);
  EXPECT_EQ(got, (std::vector<int8_t>{0, 2, 0, -2}));
}

TEST(MeanHwInt8, OtherOutputQuantizationFollowsTheFloatFormula) {
  const MeanCall calls[] = {{0.02, 5, 0.011, -7, -128, 127, true},
                            {0.3, -128, 0.05, 10, -20, 90, false},
                            {1.0 / 3.0, 0, 1.0 / 7.0, 0, -128, 127, true},
                            {0.001, 0, 1e-9, 0, -128, 127, true}};  // saturates
  uint32_t seed = 100;
  for (const MeanCall& k : calls) {
    const std::vector<int32_t> shape = {2, 3, 5, 7};
    const std::vector<int8_t> x = random_int8(2 * 3 * 5 * 7, seed++);
    std::vector<int8_t> got;
    ASSERT_EQ(run_mean(x, shape, k, &got), Error::Ok);
    ASSERT_EQ(got.size(), 6u);
    const float ratio = static_cast<float>(k.in_scale / k.out_scale);
    for (size_t p = 0; p < 6; ++p) {
      int32_t acc = -35 * k.in_zp;
      for (int i = 0; i < 35; ++i) acc += x[p * 35 + i];
      const float v = static_cast<float>(acc) * ratio / 35.0f + static_cast<float>(k.out_zp);
      const float q = std::fmin(std::fmax(std::nearbyint(v), k.out_min), k.out_max);
      EXPECT_EQ(got[p], static_cast<int8_t>(q)) << "plane " << p;
    }
  }
}

TEST(MeanHwInt8, RejectsBadArguments) {
  const std::vector<int8_t> x(2 * 3 * 4, 1);
  EXPECT_EQ(run_mean(x, {2, 3, 4, 1}, {0.0, 0, 0.1, 0}, nullptr), Error::InvalidArgument);
  EXPECT_EQ(run_mean(x, {2, 3, 4, 1}, {0.1, 200, 0.1, 0}, nullptr), Error::InvalidArgument);
  EXPECT_EQ(run_mean(x, {2, 3, 4, 1}, {0.1, 0, 0.1, 0, 10, 5}, nullptr), Error::InvalidArgument);
  // Not 4-d.
  TestTensor in3(ScalarType::Char, {2, 3, 4}), out(ScalarType::Char, {2, 3, 1, 1});
  EXPECT_EQ(Args().t(in3).d(0.1).i(0).b(true).d(0.1).i(0).i(-128).i(127).t(out)
                .run(native::mean_hw_int8_out),
            Error::InvalidArgument);
  // float input.
  TestTensor inf(ScalarType::Float, {2, 3, 4, 1});
  EXPECT_EQ(Args().t(inf).d(0.1).i(0).b(true).d(0.1).i(0).i(-128).i(127).t(out)
                .run(native::mean_hw_int8_out),
            Error::InvalidType);
  // Wrong argument count.
  TestTensor in(ScalarType::Char, {2, 3, 4, 1});
  EXPECT_EQ(Args().t(in).d(0.1).i(0).t(out).run(native::mean_hw_int8_out), Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
