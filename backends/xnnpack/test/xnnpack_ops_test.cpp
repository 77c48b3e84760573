// Single XNNPACK nodes on plain (directly bound) tensors, checked against
// scalar reference formulas: every elementwise unary and binary opcode
// (with broadcasting), softmax, constant pad and reshape.

#include <cmath>
#include <functional>

#include "backends/xnnpack/node_validator.h"
#include "backends/xnnpack/test/delegate_harness.h"

namespace torchedge {
namespace {

struct UnaryCase {
  const char* name;
  OpCode op;
  std::vector<uint32_t> params;
  std::function<float(float)> reference;
};

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

TEST(XnnpackOps, UnaryOperatorsMatchReference) {
  const std::vector<UnaryCase> cases = {
      {"clamp", OpCode::Clamp, {BlobBuilder::f(-0.25f), BlobBuilder::f(0.5f)},
       [](float x) { return std::fmin(0.5f, std::fmax(-0.25f, x)); }},
      {"hardswish", OpCode::HardSwish, {},
       [](float x) { return x * std::fmin(6.0f, std::fmax(0.0f, x + 3.0f)) / 6.0f; }},
      {"sigmoid", OpCode::Sigmoid, {}, sigmoid},
      {"abs", OpCode::Abs, {}, [](float x) { return std::fabs(x); }},
      {"negate", OpCode::Negate, {}, [](float x) { return -x; }},
      {"floor", OpCode::Floor, {}, [](float x) { return std::floor(x); }},
      {"ceiling", OpCode::Ceiling, {}, [](float x) { return std::ceil(x); }},
      {"square_root", OpCode::SquareRoot, {}, [](float x) { return std::sqrt(std::fabs(x)); }},
      {"square", OpCode::Square, {}, [](float x) { return x * x; }},
      {"bankers_rounding", OpCode::BankersRounding, {}, [](float x) { return std::nearbyint(x); }},
      {"elu", OpCode::Elu, {BlobBuilder::f(0.7f)},
       [](float x) { return x > 0 ? x : 0.7f * std::expm1(x); }},
      {"leaky_relu", OpCode::LeakyRelu, {BlobBuilder::f(0.1f)},
       [](float x) { return x > 0 ? x : 0.1f * x; }},
  };
  std::vector<float> x = pseudo_random(2 * 3 * 5, 31);
  for (float& v : x) v *= 4.0f;
  x[0] = 2.5f;  // a tie for bankers rounding
  x[1] = -0.5f;
  for (const UnaryCase& c : cases) {
    SCOPED_TRACE(c.name);
    BlobBuilder b;
    const uint32_t in = b.input({2, 3, 5});
    const uint32_t out = b.output({2, 3, 5});
    uint32_t src = in;
    if (c.op == OpCode::SquareRoot) {  // keep the input non-negative
      src = b.internal({2, 3, 5});
      b.node(OpCode::Abs, {in, src});
    }
    b.node(c.op, {src, out}, c.params);
    LoadedDelegate delegate(b.build());
    ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
    TestTensor tx(ScalarType::Float, {2, 3, 5});
    tx.fill(x);
    TestTensor ty(ScalarType::Float, {2, 3, 5});
    ASSERT_EQ(delegate.execute({&tx, &ty}), Error::Ok) << last_error_message();
    const std::vector<float> got = ty.values<float>();
    for (size_t i = 0; i < x.size(); ++i) {
      EXPECT_NEAR(got[i], c.reference(x[i]), 1e-5f * (1.0f + std::fabs(c.reference(x[i]))))
          << "x = " << x[i];
    }
  }
}

TEST(XnnpackOps, BinaryOperatorsBroadcast) {
  struct Case {
    OpCode op;
    std::function<float(float, float)> reference;
  };
  const std::vector<Case> cases = {
      {OpCode::Add, [](float a, float b) { return a + b; }},
      {OpCode::Subtract, [](float a, float b) { return a - b; }},
      {OpCode::Multiply, [](float a, float b) { return a * b; }},
      {OpCode::Divide, [](float a, float b) { return a / b; }},
      {OpCode::Maximum, [](float a, float b) { return std::fmax(a, b); }},
      {OpCode::Minimum, [](float a, float b) { return std::fmin(a, b); }},
  };
  const std::vector<float> a = pseudo_random(2 * 1 * 4, 41);
  std::vector<float> bv = pseudo_random(3 * 1, 42);
  for (float& v : bv) v += 2.0f;  // no division by ~0
  for (const Case& c : cases) {
    SCOPED_TRACE(xnnpack::op_name(c.op));
    BlobBuilder b;
    const uint32_t ia = b.input({2, 1, 4});
    const uint32_t ib = b.input({3, 1});
    const uint32_t out = b.output({2, 3, 4});
    const bool minmax = c.op == OpCode::Maximum || c.op == OpCode::Minimum;
    b.node(c.op, {ia, ib, out},
           minmax ? std::vector<uint32_t>{}
                  : std::vector<uint32_t>{BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
    LoadedDelegate delegate(b.build());
    ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
    TestTensor ta(ScalarType::Float, {2, 1, 4});
    ta.fill(a);
    TestTensor tb(ScalarType::Float, {3, 1});
    tb.fill(bv);
    TestTensor ty(ScalarType::Float, {2, 3, 4});
    ASSERT_EQ(delegate.execute({&ta, &tb, &ty}), Error::Ok) << last_error_message();
    const std::vector<float> got = ty.values<float>();
    for (uint32_t i = 0; i < 2; ++i)
      for (uint32_t j = 0; j < 3; ++j)
        for (uint32_t k = 0; k < 4; ++k) {
          const float want = c.reference(a[i * 4 + k], bv[j]);
          EXPECT_NEAR(got[(i * 3 + j) * 4 + k], want, 1e-6f * (1.0f + std::fabs(want)));
        }
  }
}

TEST(XnnpackOps, SoftmaxPadReshape) {
  BlobBuilder b;
  const uint32_t in = b.input({2, 3});
  const uint32_t soft = b.output({2, 3});
  const uint32_t padded = b.output({3, 6});
  const uint32_t flat = b.output({6});
  b.node(OpCode::Softmax, {in, soft});
  b.node(OpCode::ConstantPad, {in, padded}, {BlobBuilder::f(9.0f), 0, 2, 1, 1});
  b.node(OpCode::Reshape, {in, flat});
  LoadedDelegate delegate(b.build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  const std::vector<float> x = {1.0f, 2.0f, 3.0f, -1.0f, 0.0f, 4.0f};
  TestTensor tx(ScalarType::Float, {2, 3});
  tx.fill(x);
  TestTensor t_soft(ScalarType::Float, {2, 3});
  TestTensor t_pad(ScalarType::Float, {3, 6});
  TestTensor t_flat(ScalarType::Float, {6});
  ASSERT_EQ(delegate.execute({&tx, &t_soft, &t_pad, &t_flat}), Error::Ok) << last_error_message();
  std::vector<float> want_soft(6);
  for (int r = 0; r < 2; ++r) {
    float sum = 0;
    for (int k = 0; k < 3; ++k) sum += std::exp(x[r * 3 + k]);
    for (int k = 0; k < 3; ++k) want_soft[r * 3 + k] = std::exp(x[r * 3 + k]) / sum;
  }
  expect_near_all(t_soft.values<float>(), want_soft, 1e-5f);
  const std::vector<float> want_pad = {9, 9, 1, 2, 3, 9, 9, 9, -1, 0, 4, 9, 9, 9, 9, 9, 9, 9};
  EXPECT_EQ(t_pad.values<float>(), want_pad);
  EXPECT_EQ(t_flat.values<float>(), x);
}

TEST(XnnpackOps, TransposedConvolutionScattersTheKernel) {
  // 1 channel, 2x2 input, 2x2 kernel, stride 2: each input pixel stamps
  // input * kernel (+ bias) into its own 2x2 output block.
  BlobBuilder b;
  const uint32_t in = b.input({1, 2, 2, 1});
  const uint32_t out = b.output({1, 4, 4, 1});
  const uint32_t filter = b.constant({1, 2, 2, 1}, {1.0f, 2.0f, 3.0f, 4.0f});
  const uint32_t bias = b.constant({1}, {0.5f});
  b.node(OpCode::Deconv2d, {in, filter, bias, out},
         {0, 0, 0, 0, 0, 0, 2, 2, 2, 2, 1, 1, 1, 1, 1, BlobBuilder::f(-kInf), BlobBuilder::f(kInf)});
  LoadedDelegate delegate(b.build());
  ASSERT_EQ(delegate.init_error(), Error::Ok) << last_error_message();
  TestTensor tx(ScalarType::Float, {1, 2, 2, 1});
  tx.fill(std::vector<float>{1.0f, 10.0f, 100.0f, 1000.0f});
  TestTensor ty(ScalarType::Float, {1, 4, 4, 1});
  ASSERT_EQ(delegate.execute({&tx, &ty}), Error::Ok) << last_error_message();
  std::vector<float> want(16);
  const float xs[4] = {1.0f, 10.0f, 100.0f, 1000.0f};
  const float k[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 4; ++x) want[y * 4 + x] = xs[(y / 2) * 2 + x / 2] * k[(y % 2) * 2 + x % 2] + 0.5f;
  EXPECT_EQ(ty.values<float>(), want);
}

}  // namespace
}  // namespace torchedge
