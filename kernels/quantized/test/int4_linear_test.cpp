// The 4-bit group-wise linear kernels against a straightforward double
// precision reference of the contract's formula, over random shapes
// (M = 1, 3, 17; K = 64..512; odd N; every group size; with and without
// zero points and bias), on every ISA this CPU has (the inner loops are
// called directly; AArch64's dot-product loop bit for bit against the
// scalar one) and through the registered kernels (the ISA quant_isa()
// picks; ctest reruns the suite with TORCHEDGE_ISA=avx2 and =scalar).
// Tolerance: 1e-5 of sum |x * w| (float summation order only).
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int4_linear.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

using quantized::Int4Weight;
using quantized::QuantIsa;

struct Problem {
  int64_t m, k, n, g;
  bool zero_points, bias;
  std::vector<int8_t> q;        // [n, k] unpacked
  std::vector<uint8_t> packed;  // [n, k / 2]
  std::vector<float> scales, x, b;
  std::vector<int8_t> zps;

  Problem(int64_t m_, int64_t k_, int64_t n_, int64_t g_, bool zp, bool with_bias, uint32_t seed)
      : m(m_), k(k_), n(n_), g(g_), zero_points(zp), bias(with_bias) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> q4(-8, 7);
    q.resize(n * k);
    for (int8_t& v : q) v = static_cast<int8_t>(q4(gen));
    packed.resize(n * k / 2);
    for (int64_t i = 0; i < n * k / 2; ++i) {
      packed[i] = static_cast<uint8_t>((q[2 * i] & 0xF) | ((q[2 * i + 1] & 0xF) << 4));
    }
    scales = random_floats(n * (k / g), 0.001f, 0.05f, seed + 1);
    x = random_floats(m * k, -2.0f, 3.0f, seed + 2);
    b = random_floats(n, -1.0f, 1.0f, seed + 3);
    zps.assign(n * (k / g), 0);
    if (zp) {
      for (int8_t& v : zps) v = static_cast<int8_t>(q4(gen));
    }
  }
  Int4Weight weight() const {
    return {packed.data(), scales.data(), zero_points ? zps.data() : nullptr, n, k, g};
  }
  double w(int64_t row, int64_t col) const {
    const int64_t gi = row * (k / g) + col / g;
    return (static_cast<double>(q[row * k + col]) - zps[gi]) * scales[gi];
  }
  // out = xs @ W^T + b in double; also sum |x * w| per output (the scale of
  // the float rounding error).
  void reference(const std::vector<double>& xs, std::vector<double>* out,
                 std::vector<double>* magnitude) const {
    out->assign(m * n, 0.0);
    magnitude->assign(m * n, 0.0);
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n; ++c) {
        double acc = bias ? b[c] : 0.0, mag = std::fabs(acc);
        for (int64_t i = 0; i < k; ++i) {
          acc += xs[r * k + i] * w(c, i);
          mag += std::fabs(xs[r * k + i] * w(c, i));
        }
        (*out)[r * n + c] = acc;
        (*magnitude)[r * n + c] = mag;
      }
    }
  }
};

void expect_close(const std::vector<float>& got, const std::vector<double>& want,
                  const std::vector<double>& magnitude, const char* what) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-5 * magnitude[i] + 1e-6) << what << " at " << i;
  }
}

// The eager reference's per-token quantization (int4_linear_ops.py,
// quantize_per_token_int8), written out independently of the library.
void reference_quantize_rows(const Problem& p, std::vector<int8_t>* q, std::vector<float>* s,
                             std::vector<int32_t>* z, std::vector<double>* dequantized) {
  q->resize(p.m * p.k);
  s->resize(p.m);
  z->resize(p.m);
  dequantized->resize(p.m * p.k);
  for (int64_t r = 0; r < p.m; ++r) {
    const float* x = p.x.data() + r * p.k;
    float lo = 0.0f, hi = 0.0f;
    for (int64_t i = 0; i < p.k; ++i) {
      lo = std::min(lo, x[i]);
      hi = std::max(hi, x[i]);
    }
    const float scale = std::max((hi - lo) / 255.0f, 1.1920928955078125e-07f);
    const float zp = std::min(127.0f, std::max(-128.0f, -128.0f - std::nearbyint(lo / scale)));
    for (int64_t i = 0; i < p.k; ++i) {
      const float v = std::min(127.0f, std::max(-128.0f, std::nearbyint(x[i] / scale) + zp));
      (*q)[r * p.k + i] = static_cast<int8_t>(v);
      (*dequantized)[r * p.k + i] = (static_cast<double>(v) - zp) * scale;
    }
    (*s)[r] = scale;
    (*z)[r] = static_cast<int32_t>(zp);
  }
}

std::vector<Problem> problems() {
  std::vector<Problem> all;
  uint32_t seed = 100;
  const int64_t ms[] = {1, 3, 17};
  const int64_t ks[] = {64, 256, 512};
  const int64_t gs[] = {32, 64, 128, 256};
  for (int64_t m : ms) {
    for (int64_t k : ks) {
      for (int64_t g : gs) {
        if (k % g != 0) continue;
        const bool zp = (seed % 2) == 0, bias = (seed % 3) != 0;
        all.emplace_back(m, k, 2 * (seed % 7) + 5, g, zp, bias, seed);
        ++seed;
      }
    }
  }
  return all;
}

TEST(Int4Packing, RoundTripsEveryNibble) {
  for (int a = -8; a < 8; ++a) {
    for (int b = -8; b < 8; ++b) {
      const uint8_t byte = static_cast<uint8_t>((a & 0xF) | ((b & 0xF) << 4));
      EXPECT_EQ(quantized::unpack_int4(&byte, 0), a);
      EXPECT_EQ(quantized::unpack_int4(&byte, 1), b);
    }
  }
}

TEST(Int4WeightOnly, EveryIsaMatchesReference) {
  for (const Problem& p : problems()) {
    const std::vector<double> xs(p.x.begin(), p.x.end());
    std::vector<double> want, magnitude;
    p.reference(xs, &want, &magnitude);
    const int64_t groups = p.k / p.g;
    std::vector<float> sums(p.m * groups, 0.0f);
    for (int64_t r = 0; r < p.m; ++r) {
      for (int64_t i = 0; i < p.k; ++i) sums[r * groups + i / p.g] += p.x[r * p.k + i];
    }
    const quantized::FloatRows rows{p.x.data(), p.zero_points ? sums.data() : nullptr, p.m};
    const float* bias = p.bias ? p.b.data() : nullptr;
    std::vector<float> out(p.m * p.n);
    quantized::int4_linear_f32_scalar(rows, p.weight(), bias, out.data(), 0, p.n);
    expect_close(out, want, magnitude, "scalar");
#if defined(TORCHEDGE_QUANTIZED_X86)
    if (quantized::quant_isa() != QuantIsa::kScalar) {
      std::fill(out.begin(), out.end(), NAN);
      quantized::int4_linear_f32_avx2(rows, p.weight(), bias, out.data(), 0, p.n);
      expect_close(out, want, magnitude, "avx2");
    }
#endif
  }
}

TEST(Int8Int4, EveryIsaMatchesReference) {
  for (const Problem& p : problems()) {
    std::vector<int8_t> q;
    std::vector<float> s;
    std::vector<int32_t> z;
    std::vector<double> xs;
    reference_quantize_rows(p, &q, &s, &z, &xs);
    std::vector<double> want, magnitude;
    p.reference(xs, &want, &magnitude);
    // The library's row quantizer must give the reference's integers.
    const int64_t groups = p.k / p.g;
    std::vector<int8_t> lib_q(p.m * p.k);
    std::vector<float> lib_s(p.m);
    std::vector<int32_t> lib_z(p.m), sums(p.m * groups);
    for (int64_t r = 0; r < p.m; ++r) {
      quantized::quantize_row_int8_per_token(p.x.data() + r * p.k, p.k, p.g,
                                             lib_q.data() + r * p.k, &lib_s[r], &lib_z[r],
                                             sums.data() + r * groups);
    }
    ASSERT_EQ(lib_q, q);
    ASSERT_EQ(lib_s, s);
    ASSERT_EQ(lib_z, z);
    const quantized::Int8Rows rows{q.data(), s.data(), z.data(), sums.data(), p.m};
    const float* bias = p.bias ? p.b.data() : nullptr;
    std::vector<float> out(p.m * p.n);
    quantized::int8_int4_linear_scalar(rows, p.weight(), bias, out.data(), 0, p.n);
    expect_close(out, want, magnitude, "scalar");
#if defined(TORCHEDGE_QUANTIZED_X86)
    if (quantized::quant_isa() != QuantIsa::kScalar) {
      std::fill(out.begin(), out.end(), NAN);
      quantized::int8_int4_linear_avx2(rows, p.weight(), bias, out.data(), 0, p.n);
      expect_close(out, want, magnitude, "avx2");
    }
    if (quantized::quant_isa() == QuantIsa::kAvx512Vnni) {
      std::fill(out.begin(), out.end(), NAN);
      quantized::int8_int4_linear_avx512vnni(rows, p.weight(), bias, out.data(), 0, p.n);
      expect_close(out, want, magnitude, "avx512vnni");
    }
#elif defined(TORCHEDGE_QUANTIZED_ARM)
    if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) {
      // The same integers and float operations as the scalar loop: its bits.
      std::vector<float> dot(p.m * p.n, NAN);
      quantized::int8_int4_linear_dotprod(rows, p.weight(), bias, dot.data(), 0, p.n);
      ASSERT_EQ(0, std::memcmp(dot.data(), out.data(), out.size() * sizeof(float)))
          << "dotprod m=" << p.m << " k=" << p.k << " n=" << p.n << " g=" << p.g;
    }
#endif
  }
}

// Through the registered kernels, with a 3-d input [2, M, K].
TEST(Int4LinearKernels, RunThroughBoxedArguments) {
  const Problem p(3, 128, 9, 64, true, true, 7);
  TestTensor x(ScalarType::Float, {2, 3, 128});
  std::vector<float> xv(p.x);
  xv.insert(xv.end(), p.x.begin(), p.x.end());
  x.fill(xv);
  TestTensor w(ScalarType::Byte, {9, 64});
  w.fill(p.packed);
  TestTensor s(ScalarType::Float, {9, 2});
  s.fill(p.scales);
  TestTensor z(ScalarType::Char, {9, 2});
  z.fill(p.zps);
  TestTensor b(ScalarType::Float, {9});
  b.fill(p.b);
  const std::vector<double> xs(p.x.begin(), p.x.end());
  std::vector<double> want, magnitude;
  p.reference(xs, &want, &magnitude);
  const std::vector<double> want_once = want, magnitude_once = magnitude;
  want.insert(want.end(), want_once.begin(), want_once.end());  // the batch repeats x
  magnitude.insert(magnitude.end(), magnitude_once.begin(), magnitude_once.end());
  TestTensor out(ScalarType::Float, {2, 3, 9});
  ASSERT_EQ(Args().t(x).t(w).t(s).t(z).i(64).t(b).t(out).run(native::linear_int4_weight_only_out),
            Error::Ok);
  expect_close(out.values<float>(), want, magnitude, "linear_int4_weight_only.out");
  ASSERT_EQ(Args().t(x).t(w).t(s).t(z).i(64).t(b).t(out).run(native::linear_8da4w_out), Error::Ok);
  // 8da4w differs from the float reference by the activation quantization;
  // the library-vs-reference check of that is Int8Int4 above.
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(out.values<float>()[i], want[i], 0.02 * magnitude[i] + 1e-3) << i;
  }
}

TEST(Int4LinearKernels, BadArguments) {
  TestTensor x(ScalarType::Float, {2, 64});
  TestTensor w(ScalarType::Byte, {3, 32});
  TestTensor s(ScalarType::Float, {3, 2});
  TestTensor out(ScalarType::Float, {2, 3});
  EXPECT_EQ(Args().t(x).t(w).t(s).none().i(32).none().t(out).run(native::linear_8da4w_out),
            Error::Ok);
  EXPECT_EQ(Args().t(x).t(w).t(s).none().i(48).none().t(out).run(native::linear_8da4w_out),
            Error::InvalidArgument);  // group size
  EXPECT_EQ(Args().t(x).t(w).t(s).none().i(64).none().t(out).run(native::linear_8da4w_out),
            Error::InvalidArgument);  // scales are [3, 1] for group 64
  TestTensor w_bad(ScalarType::Byte, {3, 16});
  EXPECT_EQ(Args().t(x).t(w_bad).t(s).none().i(32).none().t(out).run(
                native::linear_int4_weight_only_out),
            Error::InvalidArgument);  // K / 2 columns
  TestTensor z_bad(ScalarType::Int, {3, 2});
  EXPECT_EQ(Args().t(x).t(w).t(s).t(z_bad).i(32).none().t(out).run(
                native::linear_int4_weight_only_out),
            Error::InvalidArgument);  // zero points are int8
  TestTensor bias_bad(ScalarType::Float, {4});
  EXPECT_EQ(Args().t(x).t(w).t(s).none().i(32).t(bias_bad).t(out).run(
                native::linear_int4_weight_only_out),
            Error::InvalidArgument);
  EXPECT_EQ(Args().t(x).t(w).t(s).none().i(32).none().t(out).run(native::linear_8da4w_out,
                                                                  /*with_temp=*/false),
            Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace torchedge
