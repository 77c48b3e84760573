// Tests of the math kernels (math_kernels.inc): rounding, transcendental
// functions, predicates, bitwise/logical ops, maximum/minimum, remainder,
// fmod, atan2, elu, clamp.Tensor and empty. Expected values come from eager
// PyTorch 2.13 on CPU; each block names the torch expression that produced
// them. The end-to-end comparison over every dtype is
// tests/ops/test_math_ops.py.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/math_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

using KernelFn = Error (*)(KernelContext&, Span<EValue*>);

constexpr ScalarType kF32 = ScalarType::Float;
constexpr ScalarType kF16 = ScalarType::Half;
constexpr ScalarType kI64 = ScalarType::Long;
constexpr ScalarType kI32 = ScalarType::Int;
constexpr ScalarType kI8 = ScalarType::Char;
constexpr ScalarType kU8 = ScalarType::Byte;
constexpr ScalarType kBool = ScalarType::Bool;
const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// A tensor owning its metadata and storage (up to 64 elements), dynamic-bound
// so kernels may resize it within its initial element count.
class TestTensor {
 public:
  TestTensor(ScalarType dtype, std::initializer_list<int32_t> sizes,
             std::initializer_list<uint8_t> dim_order = {}) {
    int dim = 0;
    for (int32_t s : sizes) sizes_[dim++] = s;
    int i = 0;
    for (uint8_t d : dim_order) order_[i++] = d;
    for (; i < dim; ++i) order_[i] = static_cast<uint8_t>(i);
    memset(data_, 0, sizeof(data_));
    tensor_ = Tensor(dtype, dim, sizes_, order_, strides_, data_,
                     TensorShapeDynamism::DynamicBound);
    value_ = EValue(&tensor_);
  }
  TestTensor(const TestTensor&) = delete;
  TestTensor& operator=(const TestTensor&) = delete;

  /// Sets the elements in memory order (logical order when contiguous).
  template <typename T>
  TestTensor& set(std::initializer_list<T> values) {
    size_t i = 0;
    for (T v : values) reinterpret_cast<T*>(data_)[i++] = v;
    return *this;
  }
  /// The elements in memory order.
  template <typename T>
  std::vector<T> values() const {
    const T* p = reinterpret_cast<const T*>(data_);
    return std::vector<T>(p, p + tensor_.numel());
  }
  std::vector<float> halves_as_floats() const {
    std::vector<float> v;
    for (Half h : values<Half>()) v.push_back(static_cast<float>(h));
    return v;
  }

  Tensor& t() { return tensor_; }
  EValue* ev() { return &value_; }

 private:
  int32_t sizes_[kTensorDimensionLimit] = {};
  uint8_t order_[kTensorDimensionLimit] = {};
  int32_t strides_[kTensorDimensionLimit] = {};
  alignas(16) unsigned char data_[64 * 8];
  Tensor tensor_;
  EValue value_;
};

Error call(KernelFn fn, std::initializer_list<EValue*> args) {
  std::vector<EValue*> v(args);
  KernelContext ctx;
  return fn(ctx, {v.data(), v.size()});
}

// NaN matches NaN; otherwise |got - want| <= rel * |want| + abs (float32
// elementwise tolerance of the op-test harness), and the signs of zeros match.
void expect_floats_near(const std::vector<float>& got, const std::vector<float>& want,
                        float rel = 1e-5f, float abs = 1e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i << ": got " << got[i];
    } else {
      EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i]) + abs) << "at " << i;
      if (want[i] == 0) {
        EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << "sign of zero at " << i;
      }
    }
  }
}

// Runs the unary `fn` on a float32 input; returns out's values.
std::vector<float> unary_f32(KernelFn fn, std::initializer_list<float> input) {
  TestTensor x(kF32, {static_cast<int32_t>(input.size())});
  x.set<float>(input);
  TestTensor out(kF32, {static_cast<int32_t>(input.size())});
  EXPECT_EQ(call(fn, {x.ev(), out.ev()}), Error::Ok);
  return out.values<float>();
}

// ---- Transcendental functions -------------------------------------------------

TEST(MathUnary, TranscendentalFloat32) {
  struct Case {
    KernelFn fn;
    std::vector<float> want;
  };
  // torch.<op>(torch.tensor([0.25, -0.5, 0.75, 0.9]))
  const Case cases[] = {
      {native::log1p_out, {0.223143548f, -0.693147182f, 0.559615791f, 0.641853869f}},
      {native::expm1_out, {0.284025431f, -0.393469334f, 1.11699998f, 1.45960307f}},
      {native::tan_out, {0.255341917f, -0.546302497f, 0.931596458f, 1.26015818f}},
      {native::atan_out, {0.244978666f, -0.463647604f, 0.643501103f, 0.732815087f}},
      {native::asin_out, {0.252680242f, -0.52359879f, 0.848062098f, 1.11976945f}},
      {native::acos_out, {1.31811607f, 2.09439516f, 0.722734272f, 0.451026857f}},
      {native::sinh_out, {0.252612323f, -0.521095276f, 0.822316706f, 1.02651668f}},
      {native::cosh_out, {1.03141308f, 1.12762594f, 1.29468334f, 1.4330864f}},
      {native::asinh_out, {0.247466475f, -0.481211841f, 0.693147182f, 0.808866858f}},
      {native::atanh_out, {0.255412817f, -0.549306154f, 0.972955108f, 1.47221935f}},
  };
  for (const Case& c : cases) {
    expect_floats_near(unary_f32(c.fn, {0.25f, -0.5f, 0.75f, 0.9f}), c.want);
  }
  // torch.<op>(torch.tensor([0.5, 1.0, 2.0, 1000.0]))
  const std::initializer_list<float> y = {0.5f, 1.0f, 2.0f, 1000.0f};
  expect_floats_near(unary_f32(native::log2_out, y), {-1.0f, 0.0f, 1.0f, 9.96578407f});
  expect_floats_near(unary_f32(native::log10_out, y), {-0.30103001f, 0.0f, 0.30103001f, 3.0f});
  expect_floats_near(unary_f32(native::acosh_out, y), {kNan, 0.0f, 1.31695795f, 7.60090208f});
  // torch.acos(torch.tensor([2.0])) -> nan (outside the domain, no error)
  expect_floats_near(unary_f32(native::acos_out, {2.0f}), {kNan});
}

TEST(MathUnary, IntegralInputGivesFloat32AndHalfStaysHalf) {
  // torch.log2(torch.tensor([1, 2, 8, 0])) -> float32 [0, 1, 3, -inf]
  TestTensor i(kI64, {4});
  i.set<int64_t>({1, 2, 8, 0});
  TestTensor out(kF32, {4});
  ASSERT_EQ(call(native::log2_out, {i.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 3, -kInf}));
  // An int64 out cannot hold the float32 result.
  TestTensor bad(kI64, {4});
  EXPECT_EQ(call(native::log2_out, {i.ev(), bad.ev()}), Error::InvalidType);
  // torch.expm1(torch.tensor([1e-3, -1.0, 2.0], dtype=torch.half)), computed in float
  TestTensor h(kF16, {3});
  h.set<Half>({Half(1e-3f), Half(-1.0f), Half(2.0f)});
  TestTensor hout(kF16, {3});
  ASSERT_EQ(call(native::expm1_out, {h.ev(), hout.ev()}), Error::Ok);
  EXPECT_EQ(hout.halves_as_floats(),
            (std::vector<float>{0.0010013580322265625f, -0.63232421875f, 6.390625f}));
}

TEST(MathUnary, ChannelsLastRankZeroAndEmpty) {
  // x = torch.arange(8.).reshape(1, 2, 2, 2).div(8).to(memory_format=torch.channels_last);
  // torch.sinh(x) keeps x's layout: memory (NHWC) is [0, 4, 1, 5, 2, 6, 3, 7] / 8.
  TestTensor x(kF32, {1, 2, 2, 2}, {0, 2, 3, 1});
  x.set<float>({0.0f, 0.5f, 0.125f, 0.625f, 0.25f, 0.75f, 0.375f, 0.875f});
  TestTensor out(kF32, {1, 2, 2, 2}, {0, 2, 3, 1});
  ASSERT_EQ(call(native::sinh_out, {x.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {0.0f, 0.521095276f, 0.125325769f, 0.666492283f,
                                           0.252612323f, 0.822316706f, 0.383851051f, 0.991006613f});
  TestTensor s(kF32, {});
  s.set<float>({0.5f});
  TestTensor sout(kF32, {});
  ASSERT_EQ(call(native::atanh_out, {s.ev(), sout.ev()}), Error::Ok);
  expect_floats_near(sout.values<float>(), {0.549306154f});  // torch.atanh(torch.tensor(0.5))
  TestTensor e(kF32, {0, 3});
  TestTensor eout(kF32, {0, 3});
  ASSERT_EQ(call(native::log1p_out, {e.ev(), eout.ev()}), Error::Ok);
  EXPECT_EQ(eout.t().numel(), 0u);
  // Wrong argument kind and count.
  EXPECT_EQ(call(native::tan_out, {s.ev()}), Error::InvalidArgument);
  EValue two(int64_t{2});
  EXPECT_EQ(call(native::tan_out, {&two, sout.ev()}), Error::InvalidType);
}

// ---- Rounding and sign -------------------------------------------------------

TEST(MathRounding, FloorCeilTruncRound) {
  // torch.<op>(torch.tensor([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.7, nan]))
  const std::initializer_list<float> x = {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, 2.7f, kNan};
  expect_floats_near(unary_f32(native::floor_out, x), {-3, -2, -1, 0, 1, 2, 2, kNan});
  expect_floats_near(unary_f32(native::ceil_out, x), {-2, -1, -0.0f, 1, 2, 3, 3, kNan});
  expect_floats_near(unary_f32(native::trunc_out, x), {-2, -1, -0.0f, 0, 1, 2, 2, kNan});
  // Ties round to even.
  expect_floats_near(unary_f32(native::round_out, x), {-2, -2, -0.0f, 0, 2, 2, 3, kNan});
}

TEST(MathRounding, IntegersUnchangedBoolRejected) {
  // torch.floor(torch.tensor([-7, 0, 9], dtype=torch.int8)) -> unchanged
  TestTensor i(kI8, {3});
  i.set<int8_t>({-7, 0, 9});
  TestTensor out(kI8, {3});
  ASSERT_EQ(call(native::round_out, {i.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{-7, 0, 9}));
  // torch.floor(torch.tensor([True])) -> "not implemented for 'Bool'"
  TestTensor b(kBool, {1});
  TestTensor bout(kBool, {1});
  EXPECT_EQ(call(native::floor_out, {b.ev(), bout.ev()}), Error::InvalidType);
}

TEST(MathRounding, RoundDecimals) {
  // torch.round(torch.tensor([1.2345, -2.675, 0.125, 1234.5]), decimals=2 / -2)
  TestTensor x(kF32, {4});
  x.set<float>({1.2345f, -2.675f, 0.125f, 1234.5f});
  TestTensor out(kF32, {4});
  EValue two(int64_t{2}), minus_two(int64_t{-2}), forty(int64_t{40});
  ASSERT_EQ(call(native::round_decimals_out, {x.ev(), &two, out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1.23f, -2.68f, 0.12f, 1234.5f}));
  ASSERT_EQ(call(native::round_decimals_out, {x.ev(), &minus_two, out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0.0f, -0.0f, 0.0f, 1200.0f}));
  // torch.round(torch.tensor([1.5]), decimals=40) -> nan (10**40 overflows float32)
  ASSERT_EQ(call(native::round_decimals_out, {x.ev(), &forty, out.ev()}), Error::Ok);
  EXPECT_TRUE(std::isnan(out.values<float>()[0]));
  // Integers: "round_vml_cpu" not implemented for 'Long'.
  TestTensor i(kI64, {2});
  TestTensor iout(kI64, {2});
  EXPECT_EQ(call(native::round_decimals_out, {i.ev(), &two, iout.ev()}), Error::InvalidType);
}

TEST(MathRounding, Sign) {
  // torch.sign(torch.tensor([nan, -0.0, 3.5, -2.0])) -> [0, 0, 1, -1] (+0.0)
  expect_floats_near(unary_f32(native::sign_out, {kNan, -0.0f, 3.5f, -2.0f}), {0, 0, 1, -1});
  // torch.sign(torch.tensor([-5, 0, 7], dtype=torch.int8))
  TestTensor i(kI8, {3});
  i.set<int8_t>({-5, 0, 7});
  TestTensor out(kI8, {3});
  ASSERT_EQ(call(native::sign_out, {i.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{-1, 0, 1}));
}

// ---- Predicates, bitwise and logical ops -------------------------------------

TEST(MathPredicate, IsnanIsinf) {
  // torch.isnan / torch.isinf of torch.tensor([nan, inf, -inf, 1.0])
  TestTensor x(kF32, {4});
  x.set<float>({kNan, kInf, -kInf, 1.0f});
  TestTensor out(kBool, {4});
  ASSERT_EQ(call(native::isnan_out, {x.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false, false, false}));
  ASSERT_EQ(call(native::isinf_out, {x.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, true, true, false}));
  // Integers are never NaN or inf.
  TestTensor i(kI32, {2});
  i.set<int32_t>({0, -1});
  TestTensor iout(kBool, {2});
  ASSERT_EQ(call(native::isinf_out, {i.ev(), iout.ev()}), Error::Ok);
  EXPECT_EQ(iout.values<bool>(), (std::vector<bool>{false, false}));
}

TEST(MathBitwise, NotOrXor) {
  // torch.bitwise_not(torch.tensor([0, 5, -128], dtype=torch.int8)) -> [-1, -6, 127]
  TestTensor i8(kI8, {3});
  i8.set<int8_t>({0, 5, -128});
  TestTensor i8out(kI8, {3});
  ASSERT_EQ(call(native::bitwise_not_out, {i8.ev(), i8out.ev()}), Error::Ok);
  EXPECT_EQ(i8out.values<int8_t>(), (std::vector<int8_t>{-1, -6, 127}));
  // a = torch.tensor([[1, 2, 12], [-1, 0, 7]], dtype=torch.int32)
  // b = torch.tensor([4, 6, 10], dtype=torch.int32)
  TestTensor a(kI32, {2, 3});
  a.set<int32_t>({1, 2, 12, -1, 0, 7});
  TestTensor b(kI32, {3});
  b.set<int32_t>({4, 6, 10});
  TestTensor out(kI32, {2, 3});
  ASSERT_EQ(call(native::bitwise_or_tensor_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{5, 6, 14, -1, 6, 15}));  // a | b
  ASSERT_EQ(call(native::bitwise_xor_tensor_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), (std::vector<int32_t>{5, 4, 6, -5, 6, 13}));  // a ^ b
  // torch.tensor([True, False]) | 2 -> int64 [3, 2]
  TestTensor p(kBool, {2});
  p.set<bool>({true, false});
  TestTensor lout(kI64, {2});
  EValue two(int64_t{2});
  ASSERT_EQ(call(native::bitwise_or_scalar_out, {p.ev(), &two, lout.ev()}), Error::Ok);
  EXPECT_EQ(lout.values<int64_t>(), (std::vector<int64_t>{3, 2}));
  // torch.tensor([5, 1], dtype=torch.int8) ^ 300 -> [41, 45] (300 wraps to 44)
  TestTensor c(kI8, {2});
  c.set<int8_t>({5, 1});
  EValue big(int64_t{300});
  ASSERT_EQ(call(native::bitwise_xor_scalar_out, {c.ev(), &big, i8out.ev()}), Error::Ok);
  EXPECT_EQ(i8out.values<int8_t>(), (std::vector<int8_t>{41, 45}));
  // Floating operands are rejected.
  TestTensor f(kF32, {2});
  TestTensor fout(kF32, {2});
  EXPECT_EQ(call(native::bitwise_not_out, {f.ev(), fout.ev()}), Error::InvalidType);
  EXPECT_EQ(call(native::bitwise_or_tensor_out, {f.ev(), f.ev(), fout.ev()}), Error::InvalidType);
}

TEST(MathLogical, XorOfMixedDtypes) {
  // torch.logical_xor(torch.tensor([0.0, 1.5, nan, 0.0]), torch.tensor([0, 0, 3, 2]))
  TestTensor a(kF32, {4});
  a.set<float>({0.0f, 1.5f, kNan, 0.0f});
  TestTensor b(kI64, {4});
  b.set<int64_t>({0, 0, 3, 2});
  TestTensor out(kBool, {4});
  ASSERT_EQ(call(native::logical_xor_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, true, false, true}));
}

// ---- Binary arithmetic -------------------------------------------------------

TEST(MathBinary, MaximumMinimumPropagateNanAndPromote) {
  // m1 = torch.tensor([[1., nan, -3.], [4., 0.5, 2.]])
  // m2 = torch.tensor([2, 1, -5], dtype=torch.int32)
  TestTensor a(kF32, {2, 3});
  a.set<float>({1.0f, kNan, -3.0f, 4.0f, 0.5f, 2.0f});
  TestTensor b(kI32, {3});
  b.set<int32_t>({2, 1, -5});
  TestTensor out(kF32, {2, 3});
  ASSERT_EQ(call(native::maximum_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {2, kNan, -3, 4, 1, 2});  // torch.maximum(m1, m2)
  ASSERT_EQ(call(native::minimum_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {1, kNan, -5, 2, 0.5f, -5});  // torch.minimum(m1, m2)
  // Shapes (2, 3) and (2,) do not broadcast.
  TestTensor c(kF32, {2});
  EXPECT_EQ(call(native::maximum_out, {a.ev(), c.ev(), out.ev()}), Error::InvalidArgument);
}

TEST(MathBinary, RemainderAndFmodSigns) {
  // p = torch.tensor([5.5, -5.5, 5.5, -5.5, 0.]); q = torch.tensor([2., 2., -2., -2., 0.])
  TestTensor p(kF32, {5});
  p.set<float>({5.5f, -5.5f, 5.5f, -5.5f, 0.0f});
  TestTensor q(kF32, {5});
  q.set<float>({2.0f, 2.0f, -2.0f, -2.0f, 0.0f});
  TestTensor out(kF32, {5});
  ASSERT_EQ(call(native::remainder_tensor_out, {p.ev(), q.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {1.5f, 0.5f, -0.5f, -1.5f, kNan});
  ASSERT_EQ(call(native::fmod_tensor_out, {p.ev(), q.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {1.5f, -1.5f, 1.5f, -1.5f, kNan});
  // torch.remainder / torch.fmod of torch.tensor([7, -7, 7, -7]) and torch.tensor([3, 3, -3, -3])
  TestTensor a(kI64, {4});
  a.set<int64_t>({7, -7, 7, -7});
  TestTensor b(kI64, {4});
  b.set<int64_t>({3, 3, -3, -3});
  TestTensor iout(kI64, {4});
  ASSERT_EQ(call(native::remainder_tensor_out, {a.ev(), b.ev(), iout.ev()}), Error::Ok);
  EXPECT_EQ(iout.values<int64_t>(), (std::vector<int64_t>{1, 2, -2, -1}));
  ASSERT_EQ(call(native::fmod_tensor_out, {a.ev(), b.ev(), iout.ev()}), Error::Ok);
  EXPECT_EQ(iout.values<int64_t>(), (std::vector<int64_t>{1, -1, 1, -1}));
  // torch.remainder(torch.tensor([-2**63]), -1) -> [0] (no trap)
  TestTensor m(kI64, {1});
  m.set<int64_t>({std::numeric_limits<int64_t>::min()});
  TestTensor mout(kI64, {1});
  EValue minus_one(int64_t{-1});
  ASSERT_EQ(call(native::remainder_scalar_out, {m.ev(), &minus_one, mout.ev()}), Error::Ok);
  EXPECT_EQ(mout.values<int64_t>()[0], 0);
  // torch.remainder(torch.tensor([200, 7], dtype=torch.uint8), torch.tensor([7, 200], ...))
  TestTensor u(kU8, {2});
  u.set<uint8_t>({200, 7});
  TestTensor v(kU8, {2});
  v.set<uint8_t>({7, 200});
  TestTensor uout(kU8, {2});
  ASSERT_EQ(call(native::remainder_tensor_out, {u.ev(), v.ev(), uout.ev()}), Error::Ok);
  EXPECT_EQ(uout.values<uint8_t>(), (std::vector<uint8_t>{4, 7}));
}

TEST(MathBinary, RemainderScalarPromotionAndErrors) {
  // torch.remainder(torch.tensor([5, -5], dtype=torch.int32), 2.5) -> float32 [0.0, -0.0]
  TestTensor i(kI32, {2});
  i.set<int32_t>({5, -5});
  TestTensor fout(kF32, {2});
  EValue two_and_half(2.5);
  ASSERT_EQ(call(native::remainder_scalar_out, {i.ev(), &two_and_half, fout.ev()}), Error::Ok);
  expect_floats_near(fout.values<float>(), {0.0f, -0.0f});
  // torch.fmod(torch.tensor([5, -5], dtype=torch.int32), 3) -> [2, -2]
  TestTensor iout(kI32, {2});
  EValue three(int64_t{3});
  ASSERT_EQ(call(native::fmod_scalar_out, {i.ev(), &three, iout.ev()}), Error::Ok);
  EXPECT_EQ(iout.values<int32_t>(), (std::vector<int32_t>{2, -2}));
  // torch.remainder(torch.tensor([1., -1.], dtype=torch.half), 0.1): 0.1 is
  // rounded to half first -> [0.000244140625, 0.0997314453125]
  TestTensor h(kF16, {2});
  h.set<Half>({Half(1.0f), Half(-1.0f)});
  TestTensor hout(kF16, {2});
  EValue tenth(0.1);
  ASSERT_EQ(call(native::remainder_scalar_out, {h.ev(), &tenth, hout.ev()}), Error::Ok);
  EXPECT_EQ(hout.halves_as_floats(), (std::vector<float>{0.000244140625f, 0.0997314453125f}));
  // Integer division by zero: ZeroDivisionError in ATen.
  EValue zero(int64_t{0});
  EXPECT_EQ(call(native::fmod_scalar_out, {i.ev(), &zero, iout.ev()}), Error::InvalidArgument);
  EXPECT_EQ(call(native::remainder_scalar_out, {i.ev(), &zero, iout.ev()}), Error::InvalidArgument);
  // Bool operands: "remainder_cpu" not implemented for 'Bool'.
  TestTensor b(kBool, {2});
  TestTensor bout(kBool, {2});
  EXPECT_EQ(call(native::remainder_tensor_out, {b.ev(), b.ev(), bout.ev()}), Error::InvalidType);
}

TEST(MathBinary, Atan2BroadcastsIntegersToFloat) {
  // torch.atan2(torch.tensor([[1, -1], [0, 2]]), torch.tensor([1, -2])) -> float32
  TestTensor y(kI64, {2, 2});
  y.set<int64_t>({1, -1, 0, 2});
  TestTensor x(kI64, {2});
  x.set<int64_t>({1, -2});
  TestTensor out(kF32, {2, 2});
  ASSERT_EQ(call(native::atan2_out, {y.ev(), x.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {0.785398185f, -2.67794514f, 0.0f, 2.3561945f});
}

// ---- Activations, clamping and creation --------------------------------------

TEST(MathActivation, Elu) {
  // e = torch.tensor([-1e-6, -1., 2., -3.]); F.elu(e); torch.ops.aten.elu(e, 2., 3., 0.5)
  TestTensor e(kF32, {4});
  e.set<float>({-1e-6f, -1.0f, 2.0f, -3.0f});
  TestTensor out(kF32, {4});
  EValue one(int64_t{1}), two(2.0), three(3.0), half(0.5);
  ASSERT_EQ(call(native::elu_out, {e.ev(), &one, &one, &one, out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {-9.99999543e-07f, -0.63212055f, 2.0f, -0.950212955f});
  ASSERT_EQ(call(native::elu_out, {e.ev(), &two, &three, &half, out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {-2.9999992e-06f, -2.360816f, 6.0f, -4.66121912f});
  // Integers: "elu" not implemented for 'Long'.
  TestTensor i(kI64, {4});
  TestTensor iout(kI64, {4});
  EXPECT_EQ(call(native::elu_out, {i.ev(), &one, &one, &one, iout.ev()}), Error::InvalidType);
}

TEST(MathClamp, TensorBoundsBroadcastAndPropagateNan) {
  // c = torch.tensor([[-2., 0.5, 9.], [nan, 3., 1.]]); lo = torch.tensor([0., 1., nan]);
  // hi = torch.tensor([[4.], [2.]]); torch.clamp(c, lo, hi)
  TestTensor c(kF32, {2, 3});
  c.set<float>({-2.0f, 0.5f, 9.0f, kNan, 3.0f, 1.0f});
  TestTensor lo(kF32, {3});
  lo.set<float>({0.0f, 1.0f, kNan});
  TestTensor hi(kF32, {2, 1});
  hi.set<float>({4.0f, 2.0f});
  TestTensor out(kF32, {2, 3});
  ASSERT_EQ(call(native::clamp_tensor_out, {c.ev(), lo.ev(), hi.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.values<float>(), {0, 1, kNan, kNan, 2, kNan});
  // torch.clamp(torch.tensor([1, 5, 9]), torch.tensor([2.5]), None) -> float32 [2.5, 5, 9]
  TestTensor i(kI64, {3});
  i.set<int64_t>({1, 5, 9});
  TestTensor flo(kF32, {1});
  flo.set<float>({2.5f});
  TestTensor fout(kF32, {3});
  EValue none;
  ASSERT_EQ(call(native::clamp_tensor_out, {i.ev(), flo.ev(), &none, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.values<float>(), (std::vector<float>{2.5f, 5, 9}));
}

TEST(MathClamp, BoolAndMissingBounds) {
  // torch.clamp(torch.tensor([True, False]), None, torch.tensor([False])) -> [False, False]
  TestTensor b(kBool, {2});
  b.set<bool>({true, false});
  TestTensor f(kBool, {1});
  TestTensor out(kBool, {2});
  EValue none;
  ASSERT_EQ(call(native::clamp_tensor_out, {b.ev(), &none, f.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{false, false}));
  // Both bounds on bool: "clamp_cpu" not implemented for 'Bool'.
  EXPECT_EQ(call(native::clamp_tensor_out, {b.ev(), f.ev(), f.ev(), out.ev()}), Error::InvalidType);
  // No bound at all.
  EXPECT_EQ(call(native::clamp_tensor_out, {b.ev(), &none, &none, out.ev()}),
            Error::InvalidArgument);
}

TEST(MathCreation, EmptyResizesWithinCapacity) {
  TestTensor out(kF32, {4, 4});
  int64_t sizes[] = {2, 3};
  EValue* items[] = {nullptr, nullptr};
  EValue i2(int64_t{2}), i3(int64_t{3});
  items[0] = &i2;
  items[1] = &i3;
  int64_t scratch[2];
  EValue size(IntListRef(items, scratch, 2));
  EValue none;
  ASSERT_EQ(call(native::empty_out, {&size, &none, out.ev()}), Error::Ok);
  EXPECT_EQ(out.t().size(0), sizes[0]);
  EXPECT_EQ(out.t().size(1), sizes[1]);
  // An unknown memory format, and a size beyond the planned capacity.
  EValue bogus(int64_t{9});
  EXPECT_EQ(call(native::empty_out, {&size, &bogus, out.ev()}), Error::InvalidArgument);
  EValue i9(int64_t{9});
  items[1] = &i9;
  EValue too_big(IntListRef(items, scratch, 2));
  EXPECT_NE(call(native::empty_out, {&too_big, &none, out.ev()}), Error::Ok);
}

}  // namespace
}  // namespace torchedge
