// Tests of the elementwise kernels and their support (type promotion,
// broadcasting, strided loops). Expected values come from eager PyTorch
// 2.13 on CPU; each block names the torch expression that produced them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "kernels/portable/support/elementwise.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/elementwise_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

using KernelFn = Error (*)(KernelContext&, Span<EValue*>);

// A tensor owning its metadata and storage (up to 64 elements). Shapes are
// dynamic-bound so kernels may resize within the initial element count.
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
  template <typename T>
  T at(size_t i) const {
    return reinterpret_cast<const T*>(data_)[i];
  }
  template <typename T>
  std::vector<T> values() const {
    std::vector<T> v;
    for (size_t i = 0; i < tensor_.numel(); ++i) v.push_back(at<T>(i));
    return v;
  }
  std::vector<float> floats() const { return values<float>(); }
  std::vector<int64_t> longs() const { return values<int64_t>(); }
  std::vector<int> bools() const {
    std::vector<int> v;
    for (size_t i = 0; i < tensor_.numel(); ++i) v.push_back(at<bool>(i) ? 1 : 0);
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

void expect_floats_near(const std::vector<float>& got, const std::vector<float>& want,
                        float rel = 2e-6f, float abs = 1e-7f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rel * std::fabs(want[i]) + abs) << "at " << i;
    }
  }
}

std::vector<int32_t> sizes_of(const Tensor& t) {
  return std::vector<int32_t>(t.sizes().begin(), t.sizes().end());
}

EValue str(const char* s) { return EValue(StringView{s, strlen(s)}); }

constexpr ScalarType kF32 = ScalarType::Float;
constexpr ScalarType kI64 = ScalarType::Long;
constexpr ScalarType kI32 = ScalarType::Int;
constexpr ScalarType kBool = ScalarType::Bool;

// ---- Support: promotion, broadcasting, loops ---------------------------------

TEST(ElementwisePromotion, PromoteTypesMatchesAten) {
  // torch.promote_types(...)
  EXPECT_EQ(promote_types(ScalarType::Byte, ScalarType::Char), ScalarType::Short);
  EXPECT_EQ(promote_types(ScalarType::Byte, ScalarType::Long), ScalarType::Long);
  EXPECT_EQ(promote_types(ScalarType::Half, ScalarType::BFloat16), ScalarType::Float);
  EXPECT_EQ(promote_types(ScalarType::Long, ScalarType::Half), ScalarType::Half);
  EXPECT_EQ(promote_types(kBool, kI32), kI32);
  EXPECT_EQ(promote_types(kF32, ScalarType::Double), ScalarType::Double);
}

TEST(ElementwisePromotion, ResultTypeTiers) {
  TestTensor i32(kI32, {3});
  TestTensor i64_0d(kI64, {});
  TestTensor f64_0d(ScalarType::Double, {});
  TestTensor b(kBool, {3});
  // torch.ones(3, dtype=torch.int32) + torch.tensor(5) -> int32
  EXPECT_EQ(result_type(i32.t(), i64_0d.t()), kI32);
  // ... + torch.tensor(5., dtype=torch.float64) -> float64
  EXPECT_EQ(result_type(i32.t(), f64_0d.t()), ScalarType::Double);
  // int32 tensor + 2.5 -> float32; int32 tensor + 5 -> int32; bool + 1 -> int64
  EXPECT_EQ(result_type(i32.t(), EValue(2.5)), kF32);
  EXPECT_EQ(result_type(i32.t(), EValue(int64_t{5})), kI32);
  EXPECT_EQ(result_type(b.t(), EValue(int64_t{1})), kI64);
  EXPECT_EQ(result_type(b.t(), EValue(true)), kBool);
}

TEST(ElementwiseLoop, ChannelsLastInputIntoContiguousOut) {
  // x = torch.arange(8.).reshape(1, 2, 2, 2).to(memory_format=torch.channels_last)
  // Memory of x (NHWC) is [0, 4, 1, 5, 2, 6, 3, 7]; x + 100 contiguous:
  TestTensor x(kF32, {1, 2, 2, 2}, {0, 2, 3, 1});
  x.set<float>({0, 4, 1, 5, 2, 6, 3, 7});
  TestTensor out(kF32, {1, 2, 2, 2});
  EValue other(100.0), alpha(int64_t{1});
  ASSERT_EQ(call(native::add_scalar_out, {x.ev(), &other, &alpha, out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{100, 101, 102, 103, 104, 105, 106, 107}));
}

TEST(ElementwiseLoop, BroadcastBothWaysWithStridedOut) {
  // a = torch.tensor([[1.], [2.]]); b = torch.tensor([10., 20., 30.]); a * b,
  // written into a (2, 3) out whose dim order is (1, 0) (memory is column-major).
  TestTensor a(kF32, {2, 1});
  a.set<float>({1, 2});
  TestTensor b(kF32, {3});
  b.set<float>({10, 20, 30});
  TestTensor out(kF32, {2, 3}, {1, 0});
  ASSERT_EQ(call(native::mul_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{10, 20, 20, 40, 30, 60}));
}

// ---- Arithmetic --------------------------------------------------------------

TEST(ElementwiseAdd, BroadcastWithAlpha) {
  // torch.add(torch.arange(1., 7.).reshape(2, 3), torch.tensor([10., 20., 30.]), alpha=2)
  TestTensor a(kF32, {2, 3});
  a.set<float>({1, 2, 3, 4, 5, 6});
  TestTensor b(kF32, {3});
  b.set<float>({10, 20, 30});
  TestTensor out(kF32, {2, 3});
  EValue alpha(int64_t{2});
  ASSERT_EQ(call(native::add_out, {a.ev(), b.ev(), &alpha, out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{21, 42, 63, 24, 45, 66}));
}

TEST(ElementwiseAdd, MixedDtypesPromote) {
  // torch.tensor([1, 2, -3]) + torch.tensor([0.5, 0.25, 0.125]) -> float32
  TestTensor a(kI64, {3});
  a.set<int64_t>({1, 2, -3});
  TestTensor b(kF32, {3});
  b.set<float>({0.5f, 0.25f, 0.125f});
  TestTensor out(kF32, {3});
  EValue alpha(int64_t{1});
  ASSERT_EQ(call(native::add_out, {a.ev(), b.ev(), &alpha, out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{1.5f, 2.25f, -2.875f}));
  // An int64 out cannot hold the float32 result (ATen: "can't be cast").
  TestTensor bad(kI64, {3});
  EXPECT_EQ(call(native::add_out, {a.ev(), b.ev(), &alpha, bad.ev()}), Error::InvalidType);
}

TEST(ElementwiseAdd, ScalarPromotionAndBool) {
  // torch.tensor([1, 2, -3], dtype=torch.int32) + 2.5 -> float32 [3.5, 4.5, -0.5]
  TestTensor a(kI32, {3});
  a.set<int32_t>({1, 2, -3});
  TestTensor out(kF32, {3});
  EValue other(2.5), alpha(int64_t{1});
  ASSERT_EQ(call(native::add_scalar_out, {a.ev(), &other, &alpha, out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{3.5f, 4.5f, -0.5f}));
  // torch.tensor([True, False, True]) + torch.tensor([False, False, True]) -> bool (or)
  TestTensor p(kBool, {3});
  p.set<bool>({true, false, true});
  TestTensor q(kBool, {3});
  q.set<bool>({false, false, true});
  TestTensor bout(kBool, {3});
  ASSERT_EQ(call(native::add_out, {p.ev(), q.ev(), &alpha, bout.ev()}), Error::Ok);
  EXPECT_EQ(bout.bools(), (std::vector<int>{1, 0, 1}));
}

TEST(ElementwiseAdd, BadInputs) {
  TestTensor a(kF32, {2, 3});
  TestTensor b(kF32, {2});
  TestTensor out(kF32, {2, 3});
  EValue alpha(int64_t{1});
  // Shapes (2, 3) and (2,) do not broadcast.
  EXPECT_EQ(call(native::add_out, {a.ev(), b.ev(), &alpha, out.ev()}), Error::InvalidArgument);
  // A float alpha for integer inputs (ATen rejects it).
  TestTensor i(kI64, {3});
  TestTensor iout(kI64, {3});
  EValue float_alpha(2.5);
  EXPECT_EQ(call(native::add_out, {i.ev(), i.ev(), &float_alpha, iout.ev()}),
            Error::InvalidArgument);
  // Wrong argument count and kind.
  EXPECT_EQ(call(native::add_out, {a.ev(), a.ev(), out.ev()}), Error::InvalidArgument);
  EXPECT_EQ(call(native::add_out, {a.ev(), &alpha, &alpha, out.ev()}), Error::InvalidType);
}

TEST(ElementwiseAdd, RankZeroAndEmpty) {
  TestTensor a(kF32, {});
  a.set<float>({1.5f});
  TestTensor b(kF32, {});
  b.set<float>({2.0f});
  TestTensor out(kF32, {});
  EValue alpha(int64_t{1});
  ASSERT_EQ(call(native::add_out, {a.ev(), b.ev(), &alpha, out.ev()}), Error::Ok);
  EXPECT_EQ(out.at<float>(0), 3.5f);
  TestTensor e(kF32, {0, 3});
  TestTensor row(kF32, {3});
  TestTensor eout(kF32, {0, 3});
  ASSERT_EQ(call(native::add_out, {e.ev(), row.ev(), &alpha, eout.ev()}), Error::Ok);
  EXPECT_EQ(eout.t().numel(), 0u);
}

TEST(ElementwiseSub, SubRsubAndBoolRejected) {
  // torch.sub(torch.tensor([5, 7]), torch.tensor([1, 2]), alpha=3) -> [2, 1]
  TestTensor a(kI64, {2});
  a.set<int64_t>({5, 7});
  TestTensor b(kI64, {2});
  b.set<int64_t>({1, 2});
  TestTensor out(kI64, {2});
  EValue alpha(int64_t{3});
  ASSERT_EQ(call(native::sub_out, {a.ev(), b.ev(), &alpha, out.ev()}), Error::Ok);
  EXPECT_EQ(out.longs(), (std::vector<int64_t>{2, 1}));
  // torch.rsub(torch.tensor([5, 7]), 2.5) -> float32 [-2.5, -4.5]
  TestTensor fout(kF32, {2});
  EValue other(2.5), one(int64_t{1});
  ASSERT_EQ(call(native::rsub_scalar_out, {a.ev(), &other, &one, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.floats(), (std::vector<float>{-2.5f, -4.5f}));
  TestTensor p(kBool, {2});
  TestTensor bout(kBool, {2});
  EXPECT_EQ(call(native::sub_out, {p.ev(), p.ev(), &one, bout.ev()}), Error::InvalidType);
}

TEST(ElementwiseMul, IntegersWrap) {
  // torch.tensor([2**62, 3], dtype=torch.int64) * 4 -> [0, 12]
  TestTensor a(kI64, {2});
  a.set<int64_t>({int64_t{1} << 62, 3});
  TestTensor out(kI64, {2});
  EValue four(int64_t{4});
  ASSERT_EQ(call(native::mul_scalar_out, {a.ev(), &four, out.ev()}), Error::Ok);
  EXPECT_EQ(out.longs(), (std::vector<int64_t>{0, 12}));
}

TEST(ElementwiseDiv, TrueDivisionOfIntegers) {
  // torch.tensor([1, 2, -3]) / torch.tensor([2, 2, 2]) -> float32
  TestTensor a(kI64, {3});
  a.set<int64_t>({1, 2, -3});
  TestTensor b(kI64, {3});
  b.set<int64_t>({2, 2, 2});
  TestTensor out(kF32, {3});
  ASSERT_EQ(call(native::div_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{0.5f, 1.0f, -1.5f}));
}

TEST(ElementwiseDiv, RoundingModes) {
  // torch.div(torch.tensor([7, -7, 7, -7]), torch.tensor([2, 2, -2, -2]), rounding_mode=...)
  TestTensor a(kI64, {4});
  a.set<int64_t>({7, -7, 7, -7});
  TestTensor b(kI64, {4});
  b.set<int64_t>({2, 2, -2, -2});
  TestTensor out(kI64, {4});
  EValue floor = str("floor"), trunc = str("trunc"), bogus = str("round");
  ASSERT_EQ(call(native::div_out_mode, {a.ev(), b.ev(), &floor, out.ev()}), Error::Ok);
  EXPECT_EQ(out.longs(), (std::vector<int64_t>{3, -4, -4, 3}));
  ASSERT_EQ(call(native::div_out_mode, {a.ev(), b.ev(), &trunc, out.ev()}), Error::Ok);
  EXPECT_EQ(out.longs(), (std::vector<int64_t>{3, -3, -3, 3}));
  EXPECT_EQ(call(native::div_out_mode, {a.ev(), b.ev(), &bogus, out.ev()}),
            Error::InvalidArgument);
  // torch.div(torch.tensor([7., -7., 7.5, -0.]), torch.tensor([2., 2., -2., 3.]), 'floor')
  TestTensor x(kF32, {4});
  x.set<float>({7.f, -7.f, 7.5f, -0.f});
  TestTensor y(kF32, {4});
  y.set<float>({2.f, 2.f, -2.f, 3.f});
  TestTensor fout(kF32, {4});
  ASSERT_EQ(call(native::div_out_mode, {x.ev(), y.ev(), &floor, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.floats(), (std::vector<float>{3.f, -4.f, -4.f, -0.f}));
  EXPECT_TRUE(std::signbit(fout.at<float>(3)));
}

TEST(ElementwiseDiv, IntegerEdgeCases) {
  // torch.tensor([-2**63]) // -1 -> [-2**63] (wraps, no trap)
  TestTensor a(kI64, {1});
  a.set<int64_t>({INT64_MIN});
  TestTensor out(kI64, {1});
  EValue minus_one(int64_t{-1}), zero(int64_t{0}), floor = str("floor");
  ASSERT_EQ(call(native::div_scalar_mode_out, {a.ev(), &minus_one, &floor, out.ev()}),
            Error::Ok);
  EXPECT_EQ(out.at<int64_t>(0), INT64_MIN);
  // ZeroDivisionError in eager.
  EXPECT_EQ(call(native::div_scalar_mode_out, {a.ev(), &zero, &floor, out.ev()}),
            Error::InvalidArgument);
}

TEST(ElementwisePow, IntegerAndFloat) {
  // torch.pow(torch.tensor([1, 2, -3]), torch.tensor([-1, -2, 3])) -> [1, 0, -27]
  TestTensor a(kI64, {3});
  a.set<int64_t>({1, 2, -3});
  TestTensor e(kI64, {3});
  e.set<int64_t>({-1, -2, 3});
  TestTensor out(kI64, {3});
  ASSERT_EQ(call(native::pow_tensor_tensor_out, {a.ev(), e.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.longs(), (std::vector<int64_t>{1, 0, -27}));
  // torch.pow(torch.tensor([1, 2, -3]), -1) -> error
  EValue minus_one(int64_t{-1});
  EXPECT_EQ(call(native::pow_tensor_scalar_out, {a.ev(), &minus_one, out.ev()}),
            Error::InvalidArgument);
  // torch.pow(torch.tensor([0.25, 1., 2., 9.]), 1.5) and ** 0.5
  TestTensor p(kF32, {4});
  p.set<float>({0.25f, 1.f, 2.f, 9.f});
  TestTensor fout(kF32, {4});
  EValue e15(1.5), e05(0.5);
  ASSERT_EQ(call(native::pow_tensor_scalar_out, {p.ev(), &e15, fout.ev()}), Error::Ok);
  expect_floats_near(fout.floats(), {0.125f, 1.0f, 2.8284270763397217f, 27.0f});
  ASSERT_EQ(call(native::pow_tensor_scalar_out, {p.ev(), &e05, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.floats(), (std::vector<float>{0.5f, 1.0f, 1.4142135381698608f, 3.0f}));
}

TEST(ElementwiseHalf, AddRoundsLikeEager) {
  // h = lambda v: torch.tensor(v, dtype=torch.half)
  // (h([1., 2., .1]) + h([.2, 1e-3, 3.3])).view(torch.int16) -> [15565, 16385, 17101]
  TestTensor a(ScalarType::Half, {3});
  a.set<uint16_t>({15360, 16384, 11878});
  TestTensor b(ScalarType::Half, {3});
  b.set<uint16_t>({12902, 5145, 17050});
  TestTensor out(ScalarType::Half, {3});
  EValue alpha(int64_t{1});
  ASSERT_EQ(call(native::add_out, {a.ev(), b.ev(), &alpha, out.ev()}), Error::Ok);
  EXPECT_EQ(out.values<uint16_t>(), (std::vector<uint16_t>{15565, 16385, 17101}));
}

// ---- Activations and unary math ---------------------------------------------

// x = torch.tensor([-3.0, -1.5, -0.5, 0.0, 0.5, 1.0, 2.5, 4.0])
void run_unary(KernelFn fn, const std::vector<float>& want, float rel = 2e-6f) {
  TestTensor x(kF32, {8});
  x.set<float>({-3.0f, -1.5f, -0.5f, 0.0f, 0.5f, 1.0f, 2.5f, 4.0f});
  TestTensor out(kF32, {8});
  ASSERT_EQ(call(fn, {x.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), want, rel);
}

TEST(ElementwiseActivation, MatchEager) {
  // torch.sigmoid(x), torch.tanh(x), F.hardswish(x), F.hardsigmoid(x), F.silu(x)
  run_unary(native::sigmoid_out, {0.04742587357759476f, 0.18242552876472473f,
                                  0.3775406777858734f, 0.5f, 0.622459352016449f,
                                  0.7310585975646973f, 0.9241418242454529f, 0.9820137619972229f});
  run_unary(native::tanh_out, {-0.9950547814369202f, -0.9051482677459717f, -0.46211716532707214f,
                               0.0f, 0.46211716532707214f, 0.7615941762924194f,
                               0.9866142868995667f, 0.9993293285369873f});
  run_unary(native::hardswish_out, {-0.0f, -0.375f, -0.2083333283662796f, 0.0f,
                                    0.2916666567325592f, 0.6666666865348816f,
                                    2.2916667461395264f, 4.0f});
  run_unary(native::hardsigmoid_out, {0.0f, 0.25f, 0.4166666567325592f, 0.5f, 0.5833333134651184f,
                                      0.6666666865348816f, 0.9166666865348816f, 1.0f});
  run_unary(native::silu_out, {-0.14227761328220367f, -0.2736382782459259f, -0.1887703388929367f,
                               0.0f, 0.3112296760082245f, 0.7310585975646973f, 2.310354471206665f,
                               3.9280550479888916f});
  run_unary(native::relu_out, {0, 0, 0, 0, 0.5f, 1.0f, 2.5f, 4.0f});
}

TEST(ElementwiseActivation, Gelu) {
  TestTensor x(kF32, {8});
  x.set<float>({-3.0f, -1.5f, -0.5f, 0.0f, 0.5f, 1.0f, 2.5f, 4.0f});
  TestTensor out(kF32, {8});
  EValue none = str("none"), tanh = str("tanh"), bad = str("fast");
  // F.gelu(x). Eager's vectorized erf is a polynomial accurate to ~1e-7
  // absolute, so 1 + erf(x) near x = -3 differs in relative terms.
  ASSERT_EQ(call(native::gelu_out, {x.ev(), &none, out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), {-0.004049867391586304f, -0.10021086037158966f,
                                    -0.1542687863111496f, 0.0f, 0.3457311987876892f,
                                    0.8413447141647339f, 2.48447585105896f, 3.999873161315918f},
                     1e-5f, 1e-6f);
  // F.gelu(x, approximate='tanh')
  ASSERT_EQ(call(native::gelu_out, {x.ev(), &tanh, out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), {-0.0036374330520629883f, -0.10042843222618103f,
                                    -0.1542859971523285f, 0.0f, 0.3457140028476715f,
                                    0.8411920070648193f, 2.4849157333374023f, 3.999929904937744f},
                     1e-5f);
  EXPECT_EQ(call(native::gelu_out, {x.ev(), &bad, out.ev()}), Error::InvalidArgument);
  TestTensor i(kI64, {8});
  TestTensor iout(kI64, {8});
  EXPECT_EQ(call(native::gelu_out, {i.ev(), &none, iout.ev()}), Error::InvalidType);
}

TEST(ElementwiseActivation, ClampHardtanhLeakyRelu) {
  // torch.clamp(torch.tensor([1, 2, -3]), min=1.5) -> float32 [1.5, 2., 1.5]
  TestTensor i(kI64, {3});
  i.set<int64_t>({1, 2, -3});
  TestTensor fout(kF32, {3});
  EValue lo(1.5), none;
  ASSERT_EQ(call(native::clamp_out, {i.ev(), &lo, &none, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.floats(), (std::vector<float>{1.5f, 2.f, 1.5f}));
  EXPECT_EQ(call(native::clamp_out, {i.ev(), &none, &none, fout.ev()}), Error::InvalidArgument);
  // F.hardtanh(torch.tensor([-0., nan, -1., 2.])) -> [-0., nan, -1., 1.]
  TestTensor x(kF32, {4});
  x.set<float>({-0.f, NAN, -1.f, 2.f});
  TestTensor out(kF32, {4});
  EValue m1(int64_t{-1}), p1(int64_t{1});
  ASSERT_EQ(call(native::hardtanh_out, {x.ev(), &m1, &p1, out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), {-0.f, NAN, -1.f, 1.f});
  EXPECT_TRUE(std::signbit(out.at<float>(0)));
  // F.leaky_relu(x, 0.1)
  EValue slope(0.1);
  ASSERT_EQ(call(native::leaky_relu_out, {x.ev(), &slope, out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), {-0.f, NAN, -0.1f, 2.f});
}

TEST(ElementwiseUnary, FloatingMath) {
  // torch.exp(x), torch.erf(x), torch.sin(x), torch.cos(x)
  run_unary(native::exp_out, {0.049787066876888275f, 0.22313016653060913f, 0.6065306663513184f,
                              1.0f, 1.6487212181091309f, 2.7182817459106445f, 12.182494163513184f,
                              54.598148345947266f});
  run_unary(native::erf_out, {-0.9999778866767883f, -0.9661051630973816f, -0.5204998850822449f,
                              0.0f, 0.5204998850822449f, 0.8427007794380188f, 0.9995930194854736f,
                              1.0f});
  run_unary(native::sin_out, {-0.14112000167369843f, -0.9974949955940247f, -0.4794255495071411f,
                              0.0f, 0.4794255495071411f, 0.8414709568023682f, 0.5984721183776855f,
                              -0.756802499294281f});
  run_unary(native::cos_out, {-0.9899924993515015f, 0.07073719799518585f, 0.8775825500488281f,
                              1.0f, 0.8775825500488281f, 0.5403023362159729f,
                              -0.8011435866355896f, -0.6536436080932617f});
  run_unary(native::neg_out, {3.0f, 1.5f, 0.5f, -0.0f, -0.5f, -1.0f, -2.5f, -4.0f});
  run_unary(native::abs_out, {3.0f, 1.5f, 0.5f, 0.0f, 0.5f, 1.0f, 2.5f, 4.0f});
}

TEST(ElementwiseUnary, IntegerInputsGiveFloat) {
  // torch.log/sqrt/rsqrt/reciprocal(torch.tensor([1, 4, 9])) -> float32
  TestTensor i(kI64, {3});
  i.set<int64_t>({1, 4, 9});
  TestTensor out(kF32, {3});
  ASSERT_EQ(call(native::sqrt_out, {i.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{1.f, 2.f, 3.f}));
  ASSERT_EQ(call(native::rsqrt_out, {i.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), {1.f, 0.5f, 0.3333333432674408f});
  ASSERT_EQ(call(native::reciprocal_out, {i.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), {1.f, 0.25f, 0.1111111119389534f});
  ASSERT_EQ(call(native::log_out, {i.ev(), out.ev()}), Error::Ok);
  expect_floats_near(out.floats(), {0.f, 1.3862943649291992f, 2.1972245773362196f});
  // exp of an int64 tensor into an int64 out: float32 can't be cast to int64.
  TestTensor iout(kI64, {3});
  EXPECT_EQ(call(native::exp_out, {i.ev(), iout.ev()}), Error::InvalidType);
  // -(int8 -128) wraps; neg of bool is rejected.
  TestTensor c(ScalarType::Char, {2});
  c.set<int8_t>({-128, 5});
  TestTensor cout(ScalarType::Char, {2});
  ASSERT_EQ(call(native::abs_out, {c.ev(), cout.ev()}), Error::Ok);
  EXPECT_EQ(cout.values<int8_t>(), (std::vector<int8_t>{-128, 5}));
  TestTensor b(kBool, {2});
  TestTensor bout(kBool, {2});
  EXPECT_EQ(call(native::neg_out, {b.ev(), bout.ev()}), Error::InvalidType);
}

// ---- Selection and comparisons -----------------------------------------------

TEST(ElementwiseWhere, BroadcastAndPromote) {
  // torch.where(torch.tensor([[True], [False]]), torch.tensor([1, 2]), torch.tensor(0.5))
  //     -> float32 [[1., 2.], [0.5, 0.5]]
  TestTensor cond(kBool, {2, 1});
  cond.set<bool>({true, false});
  TestTensor a(kI64, {2});
  a.set<int64_t>({1, 2});
  TestTensor b(kF32, {});
  b.set<float>({0.5f});
  TestTensor out(kF32, {2, 2});
  ASSERT_EQ(call(native::where_self_out, {cond.ev(), a.ev(), b.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{1.f, 2.f, 0.5f, 0.5f}));
  TestTensor fcond(kF32, {2, 1});
  EXPECT_EQ(call(native::where_self_out, {fcond.ev(), a.ev(), b.ev(), out.ev()}),
            Error::InvalidType);
}

TEST(ElementwiseCompare, TensorAndScalar) {
  // torch.gt(torch.tensor([1, 2, 3]), torch.tensor([2.5])) -> [F, F, T]
  TestTensor a(kI64, {3});
  a.set<int64_t>({1, 2, 3});
  TestTensor b(kF32, {1});
  b.set<float>({2.5f});
  TestTensor out(kBool, {3});
  ASSERT_EQ(call(native::gt_tensor_out, {a.ev(), b.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.bools(), (std::vector<int>{0, 0, 1}));
  // torch.eq(torch.tensor([1, 2, 3]), 2) and torch.ne(torch.tensor([nan, 1.]), nan)
  EValue two(int64_t{2});
  ASSERT_EQ(call(native::eq_scalar_out, {a.ev(), &two, out.ev()}), Error::Ok);
  EXPECT_EQ(out.bools(), (std::vector<int>{0, 1, 0}));
  TestTensor n(kF32, {2});
  n.set<float>({NAN, 1.f});
  TestTensor nout(kBool, {2});
  EValue nan(static_cast<double>(NAN));
  ASSERT_EQ(call(native::ne_scalar_out, {n.ev(), &nan, nout.ev()}), Error::Ok);
  EXPECT_EQ(nout.bools(), (std::vector<int>{1, 1}));
  // torch.le(a, 2, out=float32 tensor) -> [1., 1., 0.]
  TestTensor fout(kF32, {3});
  ASSERT_EQ(call(native::le_scalar_out, {a.ev(), &two, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.floats(), (std::vector<float>{1.f, 1.f, 0.f}));
}

TEST(ElementwiseLogical, NotAndBitwise) {
  // torch.logical_not(torch.tensor([0., 2., nan])) -> [T, F, F]
  TestTensor x(kF32, {3});
  x.set<float>({0.f, 2.f, NAN});
  TestTensor out(kBool, {3});
  ASSERT_EQ(call(native::logical_not_out, {x.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.bools(), (std::vector<int>{1, 0, 0}));
  // torch.logical_and(x, torch.tensor([1, 1, 0])) -> [F, T, F]
  TestTensor y(kI64, {3});
  y.set<int64_t>({1, 1, 0});
  ASSERT_EQ(call(native::logical_and_out, {x.ev(), y.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.bools(), (std::vector<int>{0, 1, 0}));
  // torch.bitwise_and(torch.tensor([6, 5, -1]), torch.tensor([True, False, True])) -> [0, 0, 1]
  TestTensor a(kI64, {3});
  a.set<int64_t>({6, 5, -1});
  TestTensor m(kBool, {3});
  m.set<bool>({true, false, true});
  TestTensor iout(kI64, {3});
  ASSERT_EQ(call(native::bitwise_and_tensor_out, {a.ev(), m.ev(), iout.ev()}), Error::Ok);
  EXPECT_EQ(iout.longs(), (std::vector<int64_t>{0, 0, 1}));
  TestTensor fout(kF32, {3});
  EXPECT_EQ(call(native::bitwise_and_tensor_out, {x.ev(), x.ev(), fout.ev()}),
            Error::InvalidType);
}

// ---- Conversion and creation -------------------------------------------------

TEST(ElementwiseCreate, ToCopyConverts) {
  // torch.tensor([2.7, -2.7, 300.7, -1.5]).to(torch.int32) / .to(torch.uint8)
  TestTensor x(kF32, {4});
  x.set<float>({2.7f, -2.7f, 300.7f, -1.5f});
  TestTensor i(kI32, {4});
  EValue no(false), none;
  ASSERT_EQ(call(native::_to_copy_out, {x.ev(), &no, &none, i.ev()}), Error::Ok);
  EXPECT_EQ(i.values<int32_t>(), (std::vector<int32_t>{2, -2, 300, -1}));
  TestTensor u(ScalarType::Byte, {4});
  ASSERT_EQ(call(native::_to_copy_out, {x.ev(), &no, &none, u.ev()}), Error::Ok);
  EXPECT_EQ(u.values<uint8_t>(), (std::vector<uint8_t>{2, 254, 44, 255}));
}

TEST(ElementwiseCreate, FullAndLikes) {
  // torch.full((2, 2), 2.7, dtype=torch.int64) -> 2s
  int64_t size_items[] = {2, 2};
  EValue s0(int64_t{2}), s1(int64_t{2});
  EValue* boxed[] = {&s0, &s1};
  EValue size(IntListRef(boxed, size_items, 2));
  EValue v(2.7);
  TestTensor out(kI64, {2, 2});
  ASSERT_EQ(call(native::full_out, {&size, &v, out.ev()}), Error::Ok);
  EXPECT_EQ(out.longs(), (std::vector<int64_t>{2, 2, 2, 2}));
  // torch.full((2, 2), 300, dtype=torch.int8) -> overflow error
  EValue big(int64_t{300});
  TestTensor c(ScalarType::Char, {2, 2});
  EXPECT_EQ(call(native::full_out, {&size, &big, c.ev()}), Error::InvalidArgument);
  TestTensor like(kF32, {3});
  TestTensor fout(kF32, {3});
  EValue none;
  ASSERT_EQ(call(native::ones_like_out, {like.ev(), &none, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.floats(), (std::vector<float>{1.f, 1.f, 1.f}));
  ASSERT_EQ(call(native::zeros_like_out, {like.ev(), &none, fout.ev()}), Error::Ok);
  EXPECT_EQ(fout.floats(), (std::vector<float>{0.f, 0.f, 0.f}));
  TestTensor scalar(kBool, {});
  EValue two(int64_t{2});
  ASSERT_EQ(call(native::scalar_tensor_out, {&two, scalar.ev()}), Error::Ok);
  EXPECT_TRUE(scalar.at<bool>(0));
}

TEST(ElementwiseCreate, Arange) {
  // torch.arange(-1, 1, 0.3)
  EValue start(int64_t{-1}), end(int64_t{1}), step(0.3);
  TestTensor out(kF32, {8});
  ASSERT_EQ(call(native::arange_start_out, {&start, &end, &step, out.ev()}), Error::Ok);
  EXPECT_EQ(sizes_of(out.t()), (std::vector<int32_t>{7}));
  expect_floats_near(out.floats(), {-1.0f, -0.699999988079071f, -0.4000000059604645f,
                                    -0.10000000149011612f, 0.20000000298023224f, 0.5f,
                                    0.800000011920929f});
  // torch.arange(-5, 6, 4) -> [-5, -1, 3]
  EValue s5(int64_t{-5}), e6(int64_t{6}), st4(int64_t{4});
  TestTensor iout(kI64, {8});
  ASSERT_EQ(call(native::arange_start_out, {&s5, &e6, &st4, iout.ev()}), Error::Ok);
  EXPECT_EQ(iout.longs(), (std::vector<int64_t>{-5, -1, 3}));
  // A step of 0.5 is 0 in int64; a step pointing away from end.
  EValue half(0.5), minus(int64_t{-1});
  EXPECT_EQ(call(native::arange_start_out, {&s5, &e6, &half, iout.ev()}),
            Error::InvalidArgument);
  EXPECT_EQ(call(native::arange_start_out, {&s5, &e6, &minus, iout.ev()}),
            Error::InvalidArgument);
}

TEST(ElementwiseCreate, FillFromTensor) {
  TestTensor self(kF32, {2, 2});
  TestTensor value(kI64, {});
  value.set<int64_t>({7});
  TestTensor out(kF32, {2, 2});
  ASSERT_EQ(call(native::fill_tensor_out, {self.ev(), value.ev(), out.ev()}), Error::Ok);
  EXPECT_EQ(out.floats(), (std::vector<float>{7.f, 7.f, 7.f, 7.f}));
  TestTensor not_scalar(kI64, {1});
  EXPECT_EQ(call(native::fill_tensor_out, {self.ev(), not_scalar.ev(), out.ev()}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
