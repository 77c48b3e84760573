// Tests of the complex kernels (complex_kernels.inc) and the FFT engine
// (support/fft.h): transforms of every length path (radix 2, mixed radix
// 2/3/5/7, Bluestein for other primes) against a direct O(n^2) DFT in
// double, the Hermitian inverse, normalization, and the argument errors.
// The Python harness (tests/ops/op_table_complex.py) compares with eager.
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "kernels/portable/support/fft.h"
#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/complex_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

using C = std::complex<double>;
using CF = std::complex<float>;

std::vector<C> direct_dft(const std::vector<C>& x, int sign) {
  const size_t n = x.size();
  std::vector<C> out(n);
  for (size_t k = 0; k < n; ++k) {
    for (size_t j = 0; j < n; ++j) {
      out[k] += x[j] * std::polar(1.0, sign * 2.0 * M_PI * static_cast<double>(j * k % n) / n);
    }
  }
  return out;
}

std::vector<C> signal(size_t n) {
  std::vector<C> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = C(std::sin(0.7 * i + 0.3), std::cos(1.3 * i) - 0.2);
  return x;
}

TEST(ComplexFft, EveryLengthPathMatchesTheDirectDft) {
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 12, 15, 16, 30, 49, 11, 13, 17, 97, 121, 202}) {
    for (int sign : {-1, 1}) {
      std::vector<C> x = signal(static_cast<size_t>(n));
      const std::vector<C> want = direct_dft(x, sign);
      std::vector<C> scratch(fft_scratch_elements(n));
      fft_1d(x.data(), n, sign, scratch.data());
      for (int64_t k = 0; k < n; ++k) {
        EXPECT_NEAR(std::abs(x[k] - want[k]), 0.0, 1e-9 * n) << "n=" << n << " k=" << k;
      }
    }
  }
}

TEST(ComplexFft, RealForwardIsOnesidedAndScaled) {
  TestTensor x(ScalarType::Float, {6});
  x.fill(std::vector<float>{1, 2, 0, -1, 3, 0.5f});
  TestTensor out(ScalarType::ComplexFloat, {4});
  ASSERT_EQ(Args().t(x).ints({0}).i(2).b(true).t(out).run(native::_fft_r2c_out), Error::Ok);
  std::vector<C> full(6);
  const float in[] = {1, 2, 0, -1, 3, 0.5f};
  for (int i = 0; i < 6; ++i) full[i] = in[i];
  const std::vector<C> want = direct_dft(full, -1);
  const std::vector<CF> got = out.values<CF>();
  ASSERT_EQ(got.size(), 4u);  // n / 2 + 1 bins
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(got[k].real(), want[k].real() / 6, 1e-6);  // normalization 2: by n
    EXPECT_NEAR(got[k].imag(), want[k].imag() / 6, 1e-6);
  }
}

TEST(ComplexFft, HermitianInverseRestoresTheSignal) {
  // irfft(rfft(x)) == x for an odd length, through r2c then c2r.
  TestTensor x(ScalarType::Float, {2, 7});
  x.fill(arange(14, 0.5f, -3.0f));
  TestTensor spectrum(ScalarType::ComplexFloat, {2, 4});
  ASSERT_EQ(Args().t(x).ints({1}).i(0).b(true).t(spectrum).run(native::_fft_r2c_out), Error::Ok);
  TestTensor back(ScalarType::Float, {2, 7});
  ASSERT_EQ(Args().t(spectrum).ints({1}).i(2).i(7).t(back).run(native::_fft_c2r_out), Error::Ok);
  expect_near_all(back.values<float>(), arange(14, 0.5f, -3.0f), 1e-5f);
}

TEST(ComplexFft, ArgumentErrors) {
  TestTensor x(ScalarType::Float, {4});
  TestTensor out(ScalarType::ComplexFloat, {3});
  EXPECT_EQ(Args().t(x).ints({0}).i(3).b(true).t(out).run(native::_fft_r2c_out),
            Error::InvalidArgument);  // normalization 3
  EXPECT_EQ(Args().t(x).ints({1}).i(0).b(true).t(out).run(native::_fft_r2c_out),
            Error::InvalidArgument);  // dim out of range
  TestTensor wrong(ScalarType::ComplexDouble, {3});
  EXPECT_EQ(Args().t(x).ints({0}).i(0).b(true).t(wrong).run(native::_fft_r2c_out),
            Error::InvalidType);  // float32 pairs with complex64
  TestTensor c(ScalarType::ComplexFloat, {4});
  TestTensor real_out(ScalarType::Float, {4});
  EXPECT_EQ(Args().t(c).ints({0}).i(0).b(true).t(real_out).run(native::_fft_c2c_out),
            Error::InvalidType);
  EXPECT_EQ(Args().t(c).ints({0}).i(0).i(0).t(real_out).run(native::_fft_c2r_out),
            Error::InvalidArgument);  // last_dim_size 0
  TestTensor c_out(ScalarType::ComplexFloat, {4});
  EXPECT_EQ(Args().t(c).ints({0, 0}).i(0).b(true).t(c_out).run(native::_fft_c2c_out),
            Error::InvalidArgument);  // dim listed twice
  // No temp allocator: a clear MemoryAllocationFailed, not a crash.
  EXPECT_EQ(Args().t(c).ints({0}).i(0).b(true).t(c_out).run(native::_fft_c2c_out, false),
            Error::MemoryAllocationFailed);
}

TEST(Complex, ViewAsRealAndBack) {
  TestTensor c(ScalarType::ComplexFloat, {2});
  c.fill(std::vector<CF>{CF(1, 2), CF(-3, 4)});
  TestTensor r(ScalarType::Float, {2, 2});
  ASSERT_EQ(Args().t(c).t(r).run(native::view_as_real_copy_out), Error::Ok);
  EXPECT_EQ(r.values<float>(), (std::vector<float>{1, 2, -3, 4}));
  TestTensor back(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(r).t(back).run(native::view_as_complex_copy_out), Error::Ok);
  EXPECT_EQ(back.values<CF>(), (std::vector<CF>{CF(1, 2), CF(-3, 4)}));
  TestTensor odd(ScalarType::Float, {2, 3});
  EXPECT_EQ(Args().t(odd).t(back).run(native::view_as_complex_copy_out), Error::InvalidArgument);
  TestTensor ints(ScalarType::Long, {2, 2});
  EXPECT_EQ(Args().t(ints).t(back).run(native::view_as_complex_copy_out), Error::InvalidType);
}

TEST(Complex, ComplexPolarAndConj) {
  TestTensor re(ScalarType::Float, {2}), im(ScalarType::Float, {1});
  re.fill(std::vector<float>{1, 2});
  im.fill(std::vector<float>{-1});
  TestTensor out(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(re).t(im).t(out).run(native::complex_out), Error::Ok);  // broadcast
  EXPECT_EQ(out.values<CF>(), (std::vector<CF>{CF(1, -1), CF(2, -1)}));
  TestTensor conj(ScalarType::ComplexFloat, {2});
  ASSERT_EQ(Args().t(out).t(conj).run(native::_conj_copy_out), Error::Ok);
  EXPECT_EQ(conj.values<CF>(), (std::vector<CF>{CF(1, 1), CF(2, 1)}));
  TestTensor angle(ScalarType::Float, {1});
  angle.fill(std::vector<float>{static_cast<float>(M_PI / 2)});
  ASSERT_EQ(Args().t(re).t(angle).t(out).run(native::polar_out), Error::Ok);
  EXPECT_NEAR(out.values<CF>()[1].imag(), 2.0f, 1e-6f);  // 2 * (cos + i sin)(pi / 2)
  TestTensor wrong(ScalarType::ComplexDouble, {2});
  EXPECT_EQ(Args().t(re).t(im).t(wrong).run(native::complex_out), Error::InvalidType);
}

}  // namespace
}  // namespace torchedge
