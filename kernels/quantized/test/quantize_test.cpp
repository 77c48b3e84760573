// quantize/dequantize per tensor and per channel against values from eager
// PyTorch 2.13 (torch.ops.quantized_decomposed.*, quoted above each block)
// and against a tiny reference of eager's formula on random data.
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

const std::vector<float> kTies = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 0.3f, 100.0f, -100.0f,
                                  NAN,   INFINITY};

Error quantize_pt(TestTensor& x, double scale, int64_t zp, int64_t qmin, int64_t qmax,
                  ScalarType dtype, TestTensor& out) {
  return Args().t(x).d(scale).i(zp).i(qmin).i(qmax).i(code(dtype)).t(out).run(
      native::quantize_per_tensor_out);
}

TEST(QuantizePerTensor, RoundsHalfToEvenAndClampsInt8) {
  TestTensor x(ScalarType::Float, {11});
  x.fill(kTies);
  TestTensor out(ScalarType::Char, {11});
  ASSERT_EQ(quantize_pt(x, 1.0, 0, -128, 127, ScalarType::Char, out), Error::Ok);
  // quantize_per_tensor(x, 1.0, 0, -128, 127, torch.int8)
  EXPECT_EQ(as_int64(out.values<int8_t>()),
            (std::vector<int64_t>{-2, -2, 0, 0, 2, 2, 0, 100, -100, 0, 127}));
}

TEST(QuantizePerTensor, Uint8Int16Int32MatchEager) {
  TestTensor x(ScalarType::Float, {11});
  x.fill(kTies);
  TestTensor u8(ScalarType::Byte, {11});
  ASSERT_EQ(quantize_pt(x, 0.5, 10, 0, 255, ScalarType::Byte, u8), Error::Ok);
  // quantize_per_tensor(x, 0.5, 10, 0, 255, torch.uint8)
  EXPECT_EQ(as_int64(u8.values<uint8_t>()),
            (std::vector<int64_t>{5, 7, 9, 11, 13, 15, 11, 210, 0, 0, 255}));
  TestTensor i16(ScalarType::Short, {11});
  ASSERT_EQ(quantize_pt(x, 0.1, -3, -32768, 32767, ScalarType::Short, i16), Error::Ok);
  // quantize_per_tensor(x, 0.1, -3, -32768, 32767, torch.int16)
  EXPECT_EQ(as_int64(i16.values<int16_t>()),
            (std::vector<int64_t>{-28, -18, -8, 2, 12, 22, 0, 997, -1003, 0, 32767}));
  TestTensor i32(ScalarType::Int, {11});
  ASSERT_EQ(quantize_pt(x, 1.0, 0, INT32_MIN, INT32_MAX, ScalarType::Int, i32), Error::Ok);
  // eager on x86: NaN and +inf (clamped to 2147483648.0f) both become INT32_MIN.
  EXPECT_EQ(as_int64(i32.values<int32_t>()),
            (std::vector<int64_t>{-2, -2, 0, 0, 2, 2, 0, 100, -100, INT32_MIN, INT32_MIN}));
}

TEST(QuantizePerTensor, MultipliesByFloatInverseScale) {
  // x * float(1 / 0.1) = [2.5, 3.5, -2.5, 0.5, 1.5] exactly: ties to even.
  TestTensor x(ScalarType::Float, {5});
  x.fill(std::vector<float>{0.25f, 0.35f, -0.25f, 0.05f, 0.15f});
  TestTensor out(ScalarType::Char, {5});
  ASSERT_EQ(quantize_pt(x, 0.1, 0, -128, 127, ScalarType::Char, out), Error::Ok);
  EXPECT_EQ(as_int64(out.values<int8_t>()), (std::vector<int64_t>{2, 4, -2, 0, 2}));
}

TEST(QuantizePerTensor, TensorOverloadAndBfloat16Input) {
  TestTensor x(ScalarType::BFloat16, {4});
  x.fill(std::vector<BFloat16>{BFloat16(-1.5f), BFloat16(0.5f), BFloat16(2.5f), BFloat16(7.0f)});
  TestTensor scale(ScalarType::Double, {1});
  scale.fill(std::vector<double>{0.5});
  TestTensor zp(ScalarType::Long, {1});
  zp.fill(std::vector<int64_t>{1});
  TestTensor out(ScalarType::Char, {4});
  ASSERT_EQ(Args().t(x).t(scale).t(zp).i(-4).i(4).i(code(ScalarType::Char)).t(out).run(
                native::quantize_per_tensor_tensor_out),
            Error::Ok);
  // round([-3, 1, 5, 14]) + 1 clamped to [-4, 4]
  EXPECT_EQ(as_int64(out.values<int8_t>()), (std::vector<int64_t>{-2, 2, 4, 4}));
}

TEST(QuantizePerTensor, EmptyInputAndBadArguments) {
  TestTensor x(ScalarType::Float, {0, 3});
  TestTensor out(ScalarType::Char, {0, 3});
  EXPECT_EQ(quantize_pt(x, 0.5, 0, -128, 127, ScalarType::Char, out), Error::Ok);
  TestTensor y(ScalarType::Float, {2});
  TestTensor o8(ScalarType::Char, {2});
  EXPECT_EQ(quantize_pt(y, 0.0, 0, -128, 127, ScalarType::Char, o8), Error::InvalidArgument);
  EXPECT_EQ(quantize_pt(y, 1.0, 0, -129, 127, ScalarType::Char, o8), Error::InvalidArgument);
  EXPECT_EQ(quantize_pt(y, 1.0, 0, 10, -10, ScalarType::Char, o8), Error::InvalidArgument);
  EXPECT_EQ(quantize_pt(y, 1.0, 0, -128, 127, ScalarType::Long, o8), Error::InvalidType);
  TestTensor u8(ScalarType::Byte, {2});
  EXPECT_EQ(quantize_pt(y, 1.0, 0, -128, 127, ScalarType::Char, u8), Error::InvalidType);
  TestTensor ints(ScalarType::Int, {2});
  EXPECT_EQ(quantize_pt(ints, 1.0, 0, -128, 127, ScalarType::Char, o8), Error::InvalidType);
  EXPECT_EQ(Args().t(y).d(1.0).i(0).i(-128).i(127).i(99).t(o8).run(
                native::quantize_per_tensor_out),
            Error::InvalidArgument);  // not a dtype code
  EXPECT_EQ(Args().t(y).d(1.0).run(native::quantize_per_tensor_out), Error::InvalidArgument);
}

TEST(DequantizePerTensor, FloatAndBfloat16Outputs) {
  TestTensor q(ScalarType::Char, {5});
  q.fill(std::vector<int8_t>{-128, -1, 0, 1, 127});
  TestTensor out(ScalarType::Float, {5});
  ASSERT_EQ(Args().t(q).d(0.1).i(3).i(-128).i(127).i(code(ScalarType::Char)).none().t(out).run(
                native::dequantize_per_tensor_out),
            Error::Ok);
  // dequantize_per_tensor(q, 0.1, 3, -128, 127, torch.int8): bit-exact floats
  const std::vector<float> want = {-13.100000381469727f, -0.4000000059604645f,
                                   -0.30000001192092896f, -0.20000000298023224f,
                                   12.40000057220459f};
  EXPECT_EQ(out.values<float>(), want);
  TestTensor bf(ScalarType::BFloat16, {5});
  ASSERT_EQ(Args().t(q).d(0.1).i(3).i(-128).i(127).i(code(ScalarType::Char))
                .i(code(ScalarType::BFloat16)).t(bf).run(native::dequantize_per_tensor_out),
            Error::Ok);
  // ... out_dtype=torch.bfloat16 (each step rounded to bfloat16)
  const std::vector<float> want_bf = {-13.125f, -0.400390625f, -0.30078125f, -0.2001953125f,
                                      12.375f};
  std::vector<float> got_bf;
  for (BFloat16 v : bf.values<BFloat16>()) got_bf.push_back(static_cast<float>(v));
  EXPECT_EQ(got_bf, want_bf);
}

TEST(DequantizePerTensor, RejectsDtypeMismatch) {
  TestTensor q(ScalarType::Byte, {2});
  TestTensor out(ScalarType::Float, {2});
  EXPECT_EQ(Args().t(q).d(0.1).i(0).i(-128).i(127).i(code(ScalarType::Char)).none().t(out).run(
                native::dequantize_per_tensor_out),
            Error::InvalidType);
  TestTensor q8(ScalarType::Char, {2});
  EXPECT_EQ(Args().t(q8).d(0.1).i(0).i(-128).i(127).i(code(ScalarType::Char))
                .i(code(ScalarType::Int)).t(out).run(native::dequantize_per_tensor_out),
            Error::InvalidType);  // out_dtype must be floating
}

// w = (torch.arange(24.).reshape(2, 3, 4) - 11.5) * 0.37
std::vector<float> channel_input() {
  std::vector<float> w(24);
  for (int i = 0; i < 24; ++i) w[i] = (static_cast<float>(i) - 11.5f) * 0.37f;
  return w;
}

Error quantize_pc(TestTensor& x, TestTensor& s, TestTensor& z, int64_t axis, int64_t qmin,
                  int64_t qmax, TestTensor& out) {
  return Args().t(x).t(s).t(z).i(axis).i(qmin).i(qmax).i(code(ScalarType::Char)).t(out).run(
      native::quantize_per_channel_out);
}

TEST(QuantizePerChannel, Axis0Axis1AndLastMatchEager) {
  TestTensor x(ScalarType::Float, {2, 3, 4});
  x.fill(channel_input());
  TestTensor out(ScalarType::Char, {2, 3, 4});
  TestTensor s0(ScalarType::Float, {2}), z0(ScalarType::Long, {2});
  s0.fill(std::vector<float>{0.1f, 0.2f});
  z0.fill(std::vector<int64_t>{1, -2});
  ASSERT_EQ(quantize_pc(x, s0, z0, 0, -128, 127, out), Error::Ok);
  EXPECT_EQ(as_int64(out.values<int8_t>()),
            (std::vector<int64_t>{-42, -38, -34, -30, -27, -23, -19, -16, -12, -8, -5, -1,
                                  -1,  1,   3,   4,   6,   8,   10,  12,  14,  16, 17, 19}));
  TestTensor s1(ScalarType::Double, {3}), z1(ScalarType::Long, {3});  // float64 scales
  s1.fill(std::vector<double>{0.1, 0.2, 0.3});
  z1.fill(std::vector<int64_t>{0, 1, 2});
  ASSERT_EQ(quantize_pc(x, s1, z1, 1, -128, 127, out), Error::Ok);
  EXPECT_EQ(as_int64(out.values<int8_t>()),
            (std::vector<int64_t>{-43, -39, -35, -31, -13, -11, -9, -7, -2, -1, 0, 1,
                                  2,   6,   9,   13,  9,   11,  13, 15, 12, 14, 15, 16}));
  TestTensor s2(ScalarType::Float, {4}), z2(ScalarType::Int, {4});
  s2.fill(std::vector<float>{0.05f, 0.1f, 0.5f, 1.0f});
  z2.fill(std::vector<int32_t>{0, 0, 0, 0});
  ASSERT_EQ(quantize_pc(x, s2, z2, -1, -10, 10, out), Error::Ok);
  EXPECT_EQ(as_int64(out.values<int8_t>()),
            (std::vector<int64_t>{-10, -10, -7, -3, -10, -10, -4, -2, -10, -9, -1, 0,
                                  4,   6,   2,  1,  10,  10,  5,  3,  10,  10, 8,  4}));
}

TEST(QuantizePerChannel, ChannelsLastLayoutMatchesContiguous) {
  // The same logical tensor in dim order {0, 2, 3, 1}, channel axis 1.
  const std::vector<float> v = random_floats(2 * 3 * 2 * 2, -3.0f, 3.0f, 7);
  TestTensor a(ScalarType::Float, {2, 3, 2, 2});
  TestTensor b(ScalarType::Float, {2, 3, 2, 2}, {0, 2, 3, 1});
  a.fill(v);
  b.fill(v);
  TestTensor s(ScalarType::Float, {3}), z(ScalarType::Long, {3});
  s.fill(std::vector<float>{0.02f, 0.05f, 0.1f});
  z.fill(std::vector<int64_t>{-1, 0, 3});
  TestTensor oa(ScalarType::Char, {2, 3, 2, 2});
  TestTensor ob(ScalarType::Char, {2, 3, 2, 2}, {0, 2, 3, 1});
  ASSERT_EQ(quantize_pc(a, s, z, 1, -128, 127, oa), Error::Ok);
  ASSERT_EQ(quantize_pc(b, s, z, 1, -128, 127, ob), Error::Ok);
  EXPECT_EQ(oa.values<int8_t>(), ob.values<int8_t>());
}

TEST(QuantizePerChannel, BadArguments) {
  TestTensor x(ScalarType::Float, {2, 3});
  TestTensor out(ScalarType::Char, {2, 3});
  TestTensor s(ScalarType::Float, {2}), z(ScalarType::Long, {2});
  s.fill(std::vector<float>{0.1f, 0.1f});
  EXPECT_EQ(quantize_pc(x, s, z, 1, -128, 127, out), Error::InvalidArgument);  // 3 channels
  EXPECT_EQ(quantize_pc(x, s, z, 2, -128, 127, out), Error::InvalidArgument);  // axis
  TestTensor s_int(ScalarType::Int, {2});
  EXPECT_EQ(quantize_pc(x, s_int, z, 0, -128, 127, out), Error::InvalidType);
  TestTensor out_other(ScalarType::Char, {2, 3}, {1, 0});
  EXPECT_EQ(quantize_pc(x, s, z, 0, -128, 127, out_other), Error::InvalidArgument);
}

TEST(DequantizePerChannel, Axis0AndNoZeroPoints) {
  TestTensor q(ScalarType::Char, {2, 3, 4});
  q.fill(std::vector<int8_t>{-42, -38, -34, -30, -27, -23, -19, -16, -12, -8, -5, -1,
                             -1,  1,   3,   4,   6,   8,   10,  12,  14,  16, 17, 19});
  TestTensor s(ScalarType::Float, {2}), z(ScalarType::Long, {2});
  s.fill(std::vector<float>{0.1f, 0.2f});
  z.fill(std::vector<int64_t>{1, -2});
  TestTensor out(ScalarType::Float, {2, 3, 4});
  ASSERT_EQ(Args().t(q).t(s).t(z).i(0).i(-128).i(127).i(code(ScalarType::Char)).none().t(out)
                .run(native::dequantize_per_channel_out),
            Error::Ok);
  // dequantize_per_channel(q, s, z, 0, -128, 127, torch.int8)
  const std::vector<float> want = {
      -4.300000190734863f,  -3.9000000953674316f, -3.5f, -3.1000001430511475f,
      -2.799999952316284f,  -2.4000000953674316f, -2.0f, -1.7000000476837158f,
      -1.3000000715255737f, -0.9000000357627869f, -0.6000000238418579f,
      -0.20000000298023224f, 0.20000000298023224f, 0.6000000238418579f, 1.0f,
      1.2000000476837158f,  1.600000023841858f,  2.0f,  2.4000000953674316f,
      2.799999952316284f,   3.200000047683716f,  3.6000001430511475f, 3.799999952316284f,
      4.200000286102295f};
  EXPECT_EQ(out.values<float>(), want);
  ASSERT_EQ(Args().t(q).t(s).none().i(0).i(-128).i(127).i(code(ScalarType::Char)).none().t(out)
                .run(native::dequantize_per_channel_out),
            Error::Ok);
  EXPECT_EQ(out.values<float>()[0], -42.0f * 0.1f);
  EXPECT_EQ(out.values<float>()[23], 19.0f * 0.2f);
}

TEST(DequantizePerChannel, RandomMatchesEagerFormulaOnEveryAxis) {
  std::mt19937 gen(3);
  std::uniform_int_distribution<int> qd(-128, 127);
  for (int axis = 0; axis < 3; ++axis) {
    const std::vector<int32_t> sizes = {3, 5, 7};
    TestTensor q(ScalarType::Char, sizes);
    std::vector<int8_t> qv(105);
    for (int8_t& v : qv) v = static_cast<int8_t>(qd(gen));
    q.fill(qv);
    const int c = sizes[axis];
    TestTensor s(ScalarType::Float, {c}), z(ScalarType::Int, {c});
    std::vector<float> sv = random_floats(c, 0.001f, 0.5f, 11 + axis);
    std::vector<int32_t> zv(c);
    for (int32_t& v : zv) v = qd(gen) / 2;
    s.fill(sv);
    z.fill(zv);
    TestTensor out(ScalarType::Float, sizes);
    ASSERT_EQ(Args().t(q).t(s).t(z).i(axis).i(-128).i(127).i(code(ScalarType::Char)).none()
                  .t(out).run(native::dequantize_per_channel_out),
              Error::Ok);
    const std::vector<float> got = out.values<float>();
    for (int i = 0; i < 105; ++i) {
      const int idx[3] = {i / 35, (i / 7) % 5, i % 7};
      const int ch = idx[axis];
      // eager: (q - zp) in int32, * scale in float32
      const float want = static_cast<float>(qv[i] - zv[ch]) * sv[ch];
      ASSERT_EQ(got[i], want) << "axis " << axis << " at " << i;
    }
  }
}

}  // namespace
}  // namespace torchedge
