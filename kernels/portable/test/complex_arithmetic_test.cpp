// Tests of complex64 / complex128 in the arithmetic, math, comparison,
// reduction and matmul kernels (support/complex.h and the dispatch of
// switch_dtype_only): known values worked out by hand, ATen's promotion
// (real -> complex, complex64 with float64 -> complex128), Smith's
// division at magnitudes where the textbook formula overflows, and the
// errors for what ATen refuses on complex inputs. tests/ops (op table)
// and tests/test_opinfo.py compare the same kernels with eager.
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "kernels/portable/support/complex.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/kernel_list.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

using CF = std::complex<float>;
using CD = std::complex<double>;

void expect_complex_near(const std::vector<CF>& got, const std::vector<CF>& want,
                         float tol = 1e-6f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_NEAR(got[i].real(), want[i].real(), tol) << "element " << i;
    EXPECT_NEAR(got[i].imag(), want[i].imag(), tol) << "element " << i;
  }
}

TEST(ComplexArithmetic, AddWithAlphaPromotesARealOperand) {
  // (1+2i) + 2 * 3 and (-1+0.5i) + 2 * (-1): the float32 operand joins as x + 0i.
  TestTensor a(ScalarType::ComplexFloat, {2});
  a.fill(std::vector<CF>{{1, 2}, {-1, 0.5f}});
  TestTensor b(ScalarType::Float, {2});
  b.fill(std::vector<float>{3, -1});
  TestTensor out(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(a).t(b).i(2).t(out).run(native::add_out), Error::Ok);
  expect_complex_near(out.values<CF>(), {{7, 2}, {-3, 0.5f}});
}

TEST(ComplexArithmetic, ComplexFloatWithDoublePromotesToComplexDouble) {
  TestTensor a(ScalarType::ComplexFloat, {1});
  a.fill(std::vector<CF>{{1, 1}});
  TestTensor b(ScalarType::Double, {1});
  b.fill(std::vector<double>{0.5});
  TestTensor out(ScalarType::ComplexDouble, {1});
  ASSERT_EQ(Args().t(a).t(b).t(out).run(native::mul_out), Error::Ok);
  EXPECT_EQ(out.values<CD>()[0], CD(0.5, 0.5));
  TestTensor real_out(ScalarType::Double, {1});
  EXPECT_EQ(Args().t(a).t(b).t(real_out).run(native::mul_out), Error::InvalidType);  // can_cast
}

TEST(ComplexArithmetic, MulAndSubFollowComplexRules) {
  TestTensor a(ScalarType::ComplexDouble, {2});
  a.fill(std::vector<CD>{{1, 2}, {0, 1}});
  TestTensor b(ScalarType::ComplexDouble, {2});
  b.fill(std::vector<CD>{{3, -1}, {0, 1}});
  TestTensor prod(ScalarType::ComplexDouble, {2});
  ASSERT_EQ(Args().t(a).t(b).t(prod).run(native::mul_out), Error::Ok);
  EXPECT_EQ(prod.values<CD>(), (std::vector<CD>{{5, 5}, {-1, 0}}));  // i * i = -1
  TestTensor diff(ScalarType::ComplexDouble, {2});
  ASSERT_EQ(Args().t(a).t(b).i(1).t(diff).run(native::sub_out), Error::Ok);
  EXPECT_EQ(diff.values<CD>(), (std::vector<CD>{{-2, 3}, {0, 0}}));
}

TEST(ComplexArithmetic, DivisionIsSmithsAlgorithm) {
  // (1+2i)/(3+4i) = (11+2i)/25; with parts near 1e30 the textbook
  // c^2 + d^2 overflows float, Smith's ratio does not; x/0 is NaN/inf per part.
  const float big = 1e30f;
  TestTensor a(ScalarType::ComplexFloat, {3});
  a.fill(std::vector<CF>{{1, 2}, {big, big}, {1, 0}});
  TestTensor b(ScalarType::ComplexFloat, {3});
  b.fill(std::vector<CF>{{3, 4}, {big, -big}, {0, 0}});
  TestTensor out(ScalarType::ComplexFloat, {3});
  ASSERT_EQ(Args().t(a).t(b).t(out).run(native::div_out), Error::Ok);
  const std::vector<CF> got = out.values<CF>();
  EXPECT_NEAR(got[0].real(), 0.44f, 1e-7f);
  EXPECT_NEAR(got[0].imag(), 0.08f, 1e-7f);
  EXPECT_NEAR(got[1].real(), 0.0f, 1e-7f);  // (1+i)/(1-i) = i
  EXPECT_NEAR(got[1].imag(), 1.0f, 1e-7f);
  EXPECT_TRUE(std::isinf(got[2].real()));  // 1 / 0
  EXPECT_TRUE(std::isnan(got[2].imag()));  // 0 / 0
  EXPECT_EQ(complex_div(CD(1, 0), CD(0, 2)), CD(0, -0.5));
}

TEST(ComplexArithmetic, DivisionWithARoundingModeIsRejected) {
  TestTensor a(ScalarType::ComplexFloat, {1});
  a.fill(std::vector<CF>{{1, 1}});
  TestTensor out(ScalarType::ComplexFloat, {1});
  ASSERT_EQ(Args().t(a).t(a).none().t(out).run(native::div_out_mode), Error::Ok);  // true division
  EXPECT_EQ(out.values<CF>()[0], CF(1, 0));
  EValue self(a.get()), other(a.get()), mode(StringView{"floor", 5}), o(out.get());
  EValue* args[] = {&self, &other, &mode, &o};
  KernelContext ctx(nullptr);
  EXPECT_EQ(native::div_out_mode(ctx, {args, 4}), Error::InvalidType);
}

TEST(ComplexMath, AbsIsTheRealMagnitude) {
  TestTensor a(ScalarType::ComplexFloat, {2});
  a.fill(std::vector<CF>{{3, -4}, {0, -2}});
  TestTensor out(ScalarType::Float, {2});
  ASSERT_EQ(Args().t(a).t(out).run(native::abs_out), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{5, 2}));
}

TEST(ComplexMath, ExpSqrtLogAndPowHaveTheirPrincipalValues) {
  const double pi = std::acos(-1.0);
  TestTensor a(ScalarType::ComplexDouble, {2});
  a.fill(std::vector<CD>{{0, pi}, {-4, 0}});
  TestTensor e(ScalarType::ComplexDouble, {2});
  ASSERT_EQ(Args().t(a).t(e).run(native::exp_out), Error::Ok);
  EXPECT_NEAR(e.values<CD>()[0].real(), -1.0, 1e-15);  // e^(i pi) = -1
  EXPECT_NEAR(e.values<CD>()[0].imag(), 0.0, 1e-15);
  TestTensor s(ScalarType::ComplexDouble, {2});
  ASSERT_EQ(Args().t(a).t(s).run(native::sqrt_out), Error::Ok);
  EXPECT_NEAR(std::abs(s.values<CD>()[1] - CD(0, 2)), 0.0, 1e-15);  // sqrt(-4) = 2i
  TestTensor l(ScalarType::ComplexDouble, {2});
  ASSERT_EQ(Args().t(a).t(l).run(native::log_out), Error::Ok);
  EXPECT_NEAR(std::abs(l.values<CD>()[1] - CD(std::log(4.0), pi)), 0.0, 1e-15);
  TestTensor p(ScalarType::ComplexDouble, {2});
  ASSERT_EQ(Args().t(a).d(2.0).t(p).run(native::pow_tensor_scalar_out), Error::Ok);
  EXPECT_EQ(p.values<CD>()[1], CD(16, 0));  // x * x, as ATen for exponent 2
  ASSERT_EQ(Args().t(a).i(0).t(p).run(native::pow_tensor_scalar_out), Error::Ok);
  EXPECT_EQ(p.values<CD>(), (std::vector<CD>{{1, 0}, {1, 0}}));  // x ** 0 fills 1
}

TEST(ComplexMath, SigmoidAndReciprocal) {
  TestTensor a(ScalarType::ComplexFloat, {2});
  a.fill(std::vector<CF>{{0, 0}, {0, 2}});
  TestTensor r(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(a).t(r).run(native::reciprocal_out), Error::Ok);
  EXPECT_NEAR(r.values<CF>()[1].imag(), -0.5f, 1e-7f);  // 1 / 2i = -0.5i
  TestTensor sig(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(a).t(sig).run(native::sigmoid_out), Error::Ok);
  EXPECT_NEAR(sig.values<CF>()[0].real(), 0.5f, 1e-7f);
  // sigmoid(2i) = 1 / (1 + e^(-2i)) = 1 / (1 + cos 2 - i sin 2)
  const CD want = 1.0 / (1.0 + std::exp(CD(0, -2)));
  EXPECT_NEAR(sig.values<CF>()[1].real(), want.real(), 1e-6);
  EXPECT_NEAR(sig.values<CF>()[1].imag(), want.imag(), 1e-6);
}

TEST(ComplexCompare, EqualityAndNanButNoOrdering) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  TestTensor a(ScalarType::ComplexFloat, {3});
  a.fill(std::vector<CF>{{1, 2}, {1, 0}, {0, nan}});
  TestTensor b(ScalarType::ComplexFloat, {3});
  b.fill(std::vector<CF>{{1, 2}, {1, 1}, {0, 0}});
  TestTensor eq(ScalarType::Bool, {3});
  ASSERT_EQ(Args().t(a).t(b).t(eq).run(native::eq_tensor_out), Error::Ok);
  EXPECT_EQ(eq.values<bool>(), (std::vector<bool>{true, false, false}));
  TestTensor ne(ScalarType::Bool, {3});
  ASSERT_EQ(Args().t(a).d(1.0).t(ne).run(native::ne_scalar_out), Error::Ok);
  EXPECT_EQ(ne.values<bool>(), (std::vector<bool>{true, false, true}));  // 1+0i == 1
  TestTensor isnan(ScalarType::Bool, {3});
  ASSERT_EQ(Args().t(a).t(isnan).run(native::isnan_out), Error::Ok);
  EXPECT_EQ(isnan.values<bool>(), (std::vector<bool>{false, false, true}));
  TestTensor lt(ScalarType::Bool, {3});
  EXPECT_EQ(Args().t(a).t(b).t(lt).run(native::lt_tensor_out), Error::InvalidType);
}

TEST(ComplexReduction, SumMeanAndProd) {
  TestTensor a(ScalarType::ComplexFloat, {2, 2});
  a.fill(std::vector<CF>{{1, 1}, {0, 1}, {2, 0}, {0, -1}});
  TestTensor sum(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(a).ints({1}).b(false).none().t(sum).run(native::sum_intlist_out), Error::Ok);
  expect_complex_near(sum.values<CF>(), {{1, 2}, {2, -1}});
  TestTensor mean(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(a).ints({0}).b(false).none().t(mean).run(native::mean_out), Error::Ok);
  expect_complex_near(mean.values<CF>(), {{1.5f, 0.5f}, {0, 0}});
  TestTensor prod(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(a).i(1).b(false).none().t(prod).run(native::prod_int_out), Error::Ok);
  expect_complex_near(prod.values<CF>(), {{-1, 1}, {0, -2}});  // (1+i) i, 2 (-i)
  TestTensor real_sum(ScalarType::Float, {2});
  EXPECT_EQ(Args().t(a).ints({1}).b(false).none().t(real_sum).run(native::sum_intlist_out),
            Error::InvalidType);
}

TEST(ComplexMatmul, MmAndAddmm) {
  // [[1, i], [2, 0]] @ [[i], [1]] = [[2i], [2i]]; addmm: 2 * (1+i) + 0.5 * that.
  TestTensor a(ScalarType::ComplexDouble, {2, 2});
  a.fill(std::vector<CD>{{1, 0}, {0, 1}, {2, 0}, {0, 0}});
  TestTensor b(ScalarType::ComplexDouble, {2, 1});
  b.fill(std::vector<CD>{{0, 1}, {1, 0}});
  TestTensor mm(ScalarType::ComplexDouble, {2, 1});
  ASSERT_EQ(Args().t(a).t(b).t(mm).run(native::mm_out), Error::Ok);
  EXPECT_EQ(mm.values<CD>(), (std::vector<CD>{{0, 2}, {0, 2}}));
  TestTensor bias(ScalarType::ComplexDouble, {1});
  bias.fill(std::vector<CD>{{1, 1}});
  TestTensor addmm(ScalarType::ComplexDouble, {2, 1});
  ASSERT_EQ(Args().t(bias).t(a).t(b).d(2.0).d(0.5).t(addmm).run(native::addmm_out), Error::Ok);
  EXPECT_EQ(addmm.values<CD>(), (std::vector<CD>{{2, 3}, {2, 3}}));  // 2 (1+i) + 0.5 (2i)
}

TEST(ComplexFill, FullAndWhere) {
  TestTensor out(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().ints({2}).d(1.5).t(out).run(native::full_out), Error::Ok);
  EXPECT_EQ(out.values<CF>(), (std::vector<CF>{{1.5f, 0}, {1.5f, 0}}));
  TestTensor cond(ScalarType::Bool, {2});
  cond.fill(std::vector<bool>{true, false});
  TestTensor x(ScalarType::ComplexFloat, {2});
  x.fill(std::vector<CF>{{1, 1}, {2, 2}});
  TestTensor picked(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(cond).t(x).t(out).t(picked).run(native::where_self_out), Error::Ok);
  EXPECT_EQ(picked.values<CF>(), (std::vector<CF>{{1, 1}, {1.5f, 0}}));
}

}  // namespace
}  // namespace torchedge
