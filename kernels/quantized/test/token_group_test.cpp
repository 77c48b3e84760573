// Per-token, per-group and choose_qparams kernels against eager PyTorch 2.13
// (torch.ops.quantized_decomposed.*; the expression is quoted per block).
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

// x = (torch.arange(12.).reshape(3, 4) - 5.5) * 0.61; x[2] = 0
std::vector<float> token_input() {
  std::vector<float> x(12, 0.0f);
  for (int i = 0; i < 8; ++i) x[i] = (static_cast<float>(i) - 5.5f) * 0.61f;
  return x;
}

TEST(ChooseQparamsPerTokenAsymmetric, MatchesEagerIncludingZeroRow) {
  TestTensor x(ScalarType::Float, {3, 4});
  x.fill(token_input());
  TestTensor s(ScalarType::Double, {3, 1}), z(ScalarType::Long, {3, 1});
  ASSERT_EQ(Args().t(x).i(code(ScalarType::Char)).t(s).t(z).run(
                native::choose_qparams_per_token_asymmetric_out),
            Error::Ok);
  // choose_qparams_per_token_asymmetric(x, torch.int8)
  EXPECT_EQ(s.values<double>(), (std::vector<double>{0.013156862929463387, 0.007176470942795277,
                                                     1.1920928955078125e-07}));
  EXPECT_EQ(z.values<int64_t>(), (std::vector<int64_t>{127, 0, 127}));
}

TEST(QuantizePerToken, Float64ScalesRoundAfterAddingZeroPoint) {
  TestTensor x(ScalarType::Float, {3, 4});
  x.fill(token_input());
  TestTensor s(ScalarType::Double, {3, 1}), z(ScalarType::Long, {3, 1});
  s.fill(std::vector<double>{0.013156862929463387, 0.007176470942795277, 1.1920928955078125e-07});
  z.fill(std::vector<int64_t>{127, 0, 127});
  TestTensor q(ScalarType::Char, {3, 4});
  ASSERT_EQ(Args().t(x).t(s).t(z).i(-128).i(127).i(code(ScalarType::Char)).t(q).run(
                native::quantize_per_token_out),
            Error::Ok);
  // quantize_per_token(x, s, z, -128, 127, torch.int8)
  EXPECT_EQ(as_int64(q.values<int8_t>()),
            (std::vector<int64_t>{-128, -82, -35, 11, -127, -42, 42, 127, 127, 127, 127, 127}));
  TestTensor out(ScalarType::Float, {3, 4});
  ASSERT_EQ(Args().t(q).t(s).t(z).i(-128).i(127).i(code(ScalarType::Char))
                .i(code(ScalarType::Float)).t(out).run(native::dequantize_per_token_out),
            Error::Ok);
  // dequantize_per_token(q, s, z, -128, 127, torch.int8, torch.float32)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-3.3550000190734863f, -2.749784469604492f, -2.1314117908477783f,
                                -1.5261961221694946f, -0.9114118218421936f,
                                -0.30141177773475647f, 0.30141177773475647f, 0.9114118218421936f,
                                0.0f, 0.0f, 0.0f, 0.0f}));
}

TEST(QuantizePerToken, BadArgumentsAndEmpty) {
  TestTensor x(ScalarType::Float, {3, 4});
  TestTensor s(ScalarType::Double, {2, 1}), z(ScalarType::Long, {2, 1});
  TestTensor q(ScalarType::Char, {3, 4});
  EXPECT_EQ(Args().t(x).t(s).t(z).i(-128).i(127).i(code(ScalarType::Char)).t(q).run(
                native::quantize_per_token_out),
            Error::InvalidArgument);  // 3 rows, 2 scales
  TestTensor e(ScalarType::Float, {0, 4}), se(ScalarType::Double, {0, 1}),
      ze(ScalarType::Long, {0, 1}), qe(ScalarType::Char, {0, 4});
  EXPECT_EQ(Args().t(e).t(se).t(ze).i(-128).i(127).i(code(ScalarType::Char)).t(qe).run(
                native::quantize_per_token_out),
            Error::Ok);
  TestTensor k0(ScalarType::Float, {2, 0}), s0(ScalarType::Double, {2, 1}),
      z0(ScalarType::Long, {2, 1});
  EXPECT_EQ(Args().t(k0).i(code(ScalarType::Char)).t(s0).t(z0).run(
                native::choose_qparams_per_token_asymmetric_out),
            Error::InvalidArgument);  // eager: amin() over an empty dimension
}

TEST(ChooseQparams, PerTensorAffineMatchesEager) {
  TestTensor x(ScalarType::Float, {3, 4});
  x.fill(token_input());
  TestTensor s(ScalarType::Double, {1}), z(ScalarType::Long, {1});
  ASSERT_EQ(Args().t(x).i(-128).i(127).d(1e-5).i(code(ScalarType::Char)).t(s).t(z).run(
                native::choose_qparams_tensor_out),
            Error::Ok);
  // choose_qparams.tensor(x, -128, 127, 1e-5, torch.int8)
  EXPECT_EQ(s.values<double>()[0], 0.016745097935199738);
  EXPECT_EQ(z.values<int64_t>()[0], 72);
  ASSERT_EQ(Args().t(x).i(0).i(255).d(1e-5).i(code(ScalarType::Byte)).t(s).t(z).run(
                native::choose_qparams_tensor_out),
            Error::Ok);
  EXPECT_EQ(z.values<int64_t>()[0], 200);
  TestTensor zeros(ScalarType::Float, {2});
  ASSERT_EQ(Args().t(zeros).i(-128).i(127).d(1e-5).i(code(ScalarType::Char)).t(s).t(z).run(
                native::choose_qparams_tensor_out),
            Error::Ok);
  // choose_qparams.tensor(torch.zeros(2), -128, 127, 1e-5, torch.int8) -> (1e-5 as float32, -128)
  EXPECT_EQ(s.values<double>()[0], static_cast<double>(1e-5f));
  EXPECT_EQ(z.values<int64_t>()[0], -128);
  EXPECT_EQ(Args().t(x).i(1).i(127).d(1e-5).i(code(ScalarType::Char)).t(s).t(z).run(
                native::choose_qparams_tensor_out),
            Error::InvalidArgument);  // range must include 0
  TestTensor empty(ScalarType::Float, {0});
  EXPECT_EQ(Args().t(empty).i(-128).i(127).d(1e-5).i(code(ScalarType::Char)).t(s).t(z).run(
                native::choose_qparams_tensor_out),
            Error::InvalidArgument);
}

Error dequantize_group(TestTensor& q, TestTensor& s, TestTensor* z, int64_t group_size,
                       TestTensor& out) {
  Args a;
  a.t(q).t(s);
  if (z != nullptr) {
    a.t(*z);
  } else {
    a.none();
  }
  return a.i(-128).i(127).i(code(ScalarType::Char)).i(group_size).i(code(ScalarType::Float))
      .t(out).run(native::dequantize_per_channel_group_out);
}

TEST(DequantizePerChannelGroup, MatchesEagerAndWrapsInt8Difference) {
  TestTensor q(ScalarType::Char, {2, 8});
  q.fill(std::vector<int8_t>{-8, 7, 3, -2, 0, 1, 5, -6, 1, 2, 3, 4, -1, -2, -3, -4});
  TestTensor s(ScalarType::Float, {2, 2});
  s.fill(std::vector<float>{0.5f, 0.25f, 0.125f, 2.0f});
  TestTensor z(ScalarType::Char, {2, 2});
  z.fill(std::vector<int8_t>{1, -1, 0, 2});
  TestTensor out(ScalarType::Float, {2, 8});
  ASSERT_EQ(dequantize_group(q, s, &z, 4, out), Error::Ok);
  // dequantize_per_channel_group(q, s, z, -8, 7, torch.int8, 4, torch.float32)
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{-4.5f, 3.0f, 1.0f, -1.5f, 0.25f, 0.5f, 1.5f, -1.25f, 0.125f,
                                0.25f, 0.375f, 0.5f, -6.0f, -8.0f, -10.0f, -12.0f}));
  // int8 - int8 wraps in eager: [[-128, 127, 0, 1]] - 5 -> [123, 122, -5, -4]
  TestTensor q2(ScalarType::Char, {1, 4});
  q2.fill(std::vector<int8_t>{-128, 127, 0, 1});
  TestTensor s2(ScalarType::Float, {1, 1});
  s2.fill(std::vector<float>{1.0f});
  TestTensor z2(ScalarType::Char, {1, 1});
  z2.fill(std::vector<int8_t>{5});
  TestTensor out2(ScalarType::Float, {1, 4});
  ASSERT_EQ(dequantize_group(q2, s2, &z2, 4, out2), Error::Ok);
  EXPECT_EQ(out2.values<float>(), (std::vector<float>{123.0f, 122.0f, -5.0f, -4.0f}));
  ASSERT_EQ(dequantize_group(q2, s2, nullptr, 4, out2), Error::Ok);
  EXPECT_EQ(out2.values<float>(), (std::vector<float>{-128.0f, 127.0f, 0.0f, 1.0f}));
}

TEST(DequantizePerChannelGroup, BadArguments) {
  TestTensor q(ScalarType::Char, {2, 8});
  TestTensor s(ScalarType::Float, {2, 2});
  TestTensor out(ScalarType::Float, {2, 8});
  EXPECT_EQ(dequantize_group(q, s, nullptr, 3, out), Error::InvalidArgument);  // 8 % 3
  EXPECT_EQ(dequantize_group(q, s, nullptr, 1, out), Error::InvalidArgument);  // must be > 1
  EXPECT_EQ(dequantize_group(q, s, nullptr, 2, out), Error::InvalidArgument);  // 8 scales
  TestTensor q3(ScalarType::Char, {2, 2, 2});
  TestTensor out3(ScalarType::Float, {2, 2, 2});
  EXPECT_EQ(dequantize_group(q3, s, nullptr, 2, out3), Error::InvalidArgument);  // not 2-d
}

}  // namespace
}  // namespace torchedge
