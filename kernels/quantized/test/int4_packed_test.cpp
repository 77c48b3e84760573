// linear_8da4w_packed (support/int4_packed.h) against a double-precision
// reference of the 8da4w formula on the same integers, and against
// linear_8da4w.out on the same weight in its plain layout: every ISA's loops
// called directly (scalar, AVX2, AVX-512 VNNI, AArch64 dot-product where the
// CPU has them) over
// M = 1..13 and 64 (every row-tile remainder), N not a multiple of 16, every
// group size, extreme weights (-8, 7) and activations (all >= 0, so the
// activation zero point is -128; one large value); the registered kernel at
// 1 and 2 threads; argument errors. Tolerance: 1e-5 of sum |x * w| (float
// summation order only: the integer dot products are exact).
#include <algorithm>

#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/activation_quant.h"
#include "kernels/quantized/support/int4_packed.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/test/quant_test_harness.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

using quantized::kInt4PackedRows;
using quantized::QuantIsa;

// The blocked layout written out independently of the kernels (the Python
// packer, groupwise.pack_int4_blocked, is checked against the kernels end
// to end by tests/quantization/test_quantized_kernels.py).
std::vector<uint8_t> pack_blocked(const std::vector<int8_t>& q, const std::vector<float>& scales,
                                  int64_t n, int64_t k, int64_t g) {
  const int64_t blocks = (n + 15) / 16, groups = k / g, record = 64 + 8 * g;
  std::vector<uint8_t> out(blocks * groups * record, 0);
  for (int64_t nb = 0; nb < blocks; ++nb) {
    for (int64_t gi = 0; gi < groups; ++gi) {
      uint8_t* rec = out.data() + (nb * groups + gi) * record;
      for (int64_t r = 0; r < 16; ++r) {
        const int64_t row = nb * 16 + r;
        const float s = row < n ? scales[row * groups + gi] : 0.0f;
        std::memcpy(rec + 4 * r, &s, 4);
        for (int64_t kk = 0; kk < g; ++kk) {
          const int64_t sub = kk / 32, i = (kk % 32) / 8, high = (kk % 8) / 4, b = kk % 4;
          const int u = (row < n ? q[row * k + gi * g + kk] : 0) + 8;
          rec[64 + 256 * sub + 64 * i + 4 * r + b] |= static_cast<uint8_t>(high ? u << 4 : u);
        }
      }
    }
  }
  return out;
}

struct Problem {
  int64_t m, k, n, g;
  bool bias;
  std::vector<int8_t> q;  // [n, k]
  std::vector<float> scales, x, b;
  std::vector<uint8_t> blocked;

  Problem(int64_t m_, int64_t k_, int64_t n_, int64_t g_, bool with_bias, uint32_t seed,
          float x_lo = -2.0f, float x_hi = 3.0f)
      : m(m_), k(k_), n(n_), g(g_), bias(with_bias) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> q4(-8, 7);
    q.resize(n * k);
    for (int8_t& v : q) v = static_cast<int8_t>(q4(gen));
    scales = random_floats(n * (k / g), 0.001f, 0.05f, seed + 1);
    x = random_floats(m * k, x_lo, x_hi, seed + 2);
    b = random_floats(n, -1.0f, 1.0f, seed + 3);
    blocked = pack_blocked(q, scales, n, k, g);
  }
  quantized::Int4PackedWeight weight() const { return {blocked.data(), n, k, g}; }
};

// The library's activation rows and the double reference on their integers.
struct Rows {
  std::vector<int8_t> q;
  std::vector<float> s;
  std::vector<int32_t> z, sums;
  std::vector<double> want, magnitude;

  explicit Rows(const Problem& p) : q(p.m * p.k), s(p.m), z(p.m), sums(p.m * (p.k / p.g)) {
    const int64_t groups = p.k / p.g;
    for (int64_t r = 0; r < p.m; ++r) {
      quantized::quantize_row_int8_per_token(p.x.data() + r * p.k, p.k, p.g, q.data() + r * p.k,
                                             &s[r], &z[r], sums.data() + r * groups);
    }
    want.assign(p.m * p.n, 0.0);
    magnitude.assign(p.m * p.n, 0.0);
    for (int64_t r = 0; r < p.m; ++r) {
      for (int64_t c = 0; c < p.n; ++c) {
        double acc = p.bias ? p.b[c] : 0.0, mag = std::fabs(acc);
        for (int64_t i = 0; i < p.k; ++i) {
          const double xv = (static_cast<double>(q[r * p.k + i]) - z[r]) * s[r];
          const double wv = static_cast<double>(p.q[c * p.k + i]) * p.scales[c * groups + i / p.g];
          acc += xv * wv;
          mag += std::fabs(xv * wv);
        }
        want[r * p.n + c] = acc;
        magnitude[r * p.n + c] = mag;
      }
    }
  }
  quantized::Int8Rows view(int64_t m) const { return {q.data(), s.data(), z.data(), sums.data(), m}; }
};

void expect_close(const std::vector<float>& got, const Rows& rows, const std::string& what) {
  ASSERT_EQ(got.size(), rows.want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], rows.want[i], 1e-5 * rows.magnitude[i] + 1e-6) << what << " at " << i;
  }
}

using Loops = void (*)(const quantized::Int8Rows&, const quantized::Int4PackedWeight&, const float*,
                       float*, int64_t, int64_t);

std::vector<std::pair<const char*, Loops>> available_loops() {
  std::vector<std::pair<const char*, Loops>> loops = {{"scalar", quantized::int8_int4_packed_scalar}};
#if defined(TORCHEDGE_QUANTIZED_X86)
  if (quantized::quant_isa() != QuantIsa::kScalar) loops.emplace_back("avx2", quantized::int8_int4_packed_avx2);
  if (quantized::quant_isa() == QuantIsa::kAvx512Vnni) {
    loops.emplace_back("avx512vnni", quantized::int8_int4_packed_avx512vnni);
  }
#elif defined(TORCHEDGE_QUANTIZED_ARM)
  if (optimized::best_arm_isa() >= optimized::ArmIsa::kDotProd) {
    loops.emplace_back("dotprod", quantized::int8_int4_packed_dotprod);
  }
#endif
  return loops;
}

void check_every_isa(const Problem& p) {
  const Rows rows(p);
  const float* bias = p.bias ? p.b.data() : nullptr;
  for (const auto& [name, loops] : available_loops()) {
    std::vector<float> out(p.m * p.n, NAN);
    loops(rows.view(p.m), p.weight(), bias, out.data(), 0, (p.n + 15) / 16);
    expect_close(out, rows, std::string(name) + " m=" + std::to_string(p.m) + " k=" +
                                std::to_string(p.k) + " n=" + std::to_string(p.n) + " g=" +
                                std::to_string(p.g));
  }
}

// The per-token quantizer (vector loops on AVX2 CPUs for finite rows)
// against the eager formula written out, on exact rounding ties: the row
// spans [-64, 63.5], so the scale is 0.5 and quarter-integers land on .5.
TEST(Int4Packed, RowQuantizerRoundsTiesToEven) {
  for (int64_t k : {32, 64, 576}) {
    std::vector<float> x(k);
    for (int64_t i = 0; i < k; ++i) x[i] = static_cast<float>((i * 37) % 510 - 256) * 0.25f;
    x[0] = -64.0f;
    x[1] = 63.5f;
    std::vector<int8_t> q(k);
    std::vector<int32_t> sums(k / 32);
    float scale = 0.0f;
    int32_t zp = 0;
    quantized::quantize_row_int8_per_token(x.data(), k, 32, q.data(), &scale, &zp, sums.data());
    ASSERT_EQ(scale, 0.5f);
    ASSERT_EQ(zp, 0);  // -128 - round(-64 / 0.5)
    for (int64_t i = 0; i < k; ++i) {
      const float want = std::min(127.0f, std::max(-128.0f, std::nearbyint(x[i] / 0.5f)));
      ASSERT_EQ(q[i], static_cast<int8_t>(want)) << "k=" << k << " at " << i << " x=" << x[i];
    }
    for (int64_t gi = 0; gi < k / 32; ++gi) {
      int32_t sum = 0;
      for (int64_t i = 32 * gi; i < 32 * gi + 32; ++i) sum += q[i];
      ASSERT_EQ(sums[gi], sum);
    }
  }
}

// The per-token quantizer on random finite rows (the AVX2 / NEON loops where
// k and the group size allow them) and on rows with NaN / inf (the scalar
// loops) against the eager formula written out: the same integers, scale,
// zero point and group sums.
TEST(Int4Packed, RowQuantizerMatchesTheFormulaOnRandomRows) {
  constexpr float kEps = 1.1920928955078125e-07f;
  uint32_t seed = 40;
  for (int64_t k : {16, 48, 384, 1536}) {
    for (int64_t g : {16, 32, 128}) {
      if (k % g != 0) continue;
      std::vector<float> x = random_floats(k, -3.0f + (seed % 3), 5.0f, seed);
      if (seed % 4 == 1) x[k / 2] = NAN;
      if (seed % 4 == 3) x[1] = -INFINITY;
      ++seed;
      std::vector<int8_t> q(k);
      std::vector<int32_t> sums(k / g);
      float scale = 0.0f;
      int32_t zp = 0;
      quantized::quantize_row_int8_per_token(x.data(), k, g, q.data(), &scale, &zp, sums.data());
      float lo = 0.0f, hi = 0.0f;
      bool finite = true;
      for (float v : x) {
        finite = finite && std::isfinite(v);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      if (!finite) {
        ASSERT_TRUE(std::isnan(scale) || std::isinf(scale) || scale > 0) << "k=" << k;
        continue;  // eager's NaN / inf propagation: the scalar loops, tested elsewhere
      }
      const float want_scale = std::max((hi - lo) / 255.0f, kEps);
      const float want_zp =
          std::min(127.0f, std::max(-128.0f, -128.0f - std::nearbyint(lo / want_scale)));
      ASSERT_EQ(scale, want_scale) << "k=" << k << " g=" << g;
      ASSERT_EQ(zp, static_cast<int32_t>(want_zp)) << "k=" << k << " g=" << g;
      for (int64_t i = 0; i < k; ++i) {
        const float want =
            std::min(127.0f, std::max(-128.0f, std::nearbyint(x[i] / want_scale) + want_zp));
        ASSERT_EQ(q[i], static_cast<int8_t>(want)) << "k=" << k << " g=" << g << " at " << i;
      }
      for (int64_t gi = 0; gi < k / g; ++gi) {
        int32_t sum = 0;
        for (int64_t i = gi * g; i < (gi + 1) * g; ++i) sum += q[i];
        ASSERT_EQ(sums[gi], sum) << "k=" << k << " g=" << g << " group " << gi;
      }
    }
  }
}

TEST(Int4Packed, LayoutIndexMatchesThePacker) {
  const Problem p(1, 256, 21, 64, false, 3);
  const quantized::Int4PackedWeight w = p.weight();
  for (int64_t row = 0; row < p.n; ++row) {
    for (int64_t col = 0; col < p.k; ++col) ASSERT_EQ(w.q(row, col), p.q[row * p.k + col]);
    for (int64_t gi = 0; gi < p.k / p.g; ++gi) ASSERT_EQ(w.scale(row, gi), p.scales[row * 4 + gi]);
  }
}

TEST(Int4Packed, EveryIsaMatchesReference) {
  uint32_t seed = 10;
  for (int64_t m : {1, 2, 3, 4, 5, 6, 7, 8, 13, 64}) {
    for (int64_t g : {32, 64, 128, 256}) {
      for (int64_t k : {256, 512}) {
        const int64_t n = 1 + (seed * 7) % 40;  // 1..40: partial and whole blocks
        check_every_isa(Problem(m, k, n, g, seed % 2 == 0, seed));
        ++seed;
      }
    }
  }
  check_every_isa(Problem(3, 576, 48, 32, true, 99));   // SmolLM2's K
  check_every_isa(Problem(2, 1536, 17, 32, true, 98));
  check_every_isa(Problem(5, 64, 16, 32, false, 97, 0.0f, 4.0f));  // x >= 0: zero point -128
}

TEST(Int4Packed, ExtremeWeightsAndActivations) {
  for (int64_t g : {32, 256}) {
    Problem p(4, 512, 33, g, true, 5);
    for (size_t i = 0; i < p.q.size(); ++i) p.q[i] = (i / 3) % 2 == 0 ? -8 : 7;
    p.x[7] = 500.0f;  // one dominant value per row 0: the others quantize near the zero point
    p.blocked = pack_blocked(p.q, p.scales, p.n, p.k, p.g);
    check_every_isa(p);
  }
}

// The registered kernel equals linear_8da4w.out on the plain layout of the
// same weight (a 3-d input), at 1 and 2 threads.
TEST(Int4Packed, KernelMatchesLinear8da4w) {
  for (size_t threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    for (int64_t m : {1, 7, 40}) {
      const Problem p(m, 576, 200, 32, true, static_cast<uint32_t>(m));
      TestTensor x(ScalarType::Float, {1, static_cast<int32_t>(m), 576});
      x.fill(p.x);
      TestTensor w(ScalarType::Byte, {13, 18, 64 + 8 * 32});
      w.fill(p.blocked);
      TestTensor b(ScalarType::Float, {200});
      b.fill(p.b);
      std::vector<uint8_t> plain(200 * 288);
      for (int64_t i = 0; i < 200 * 288; ++i) {
        plain[i] = static_cast<uint8_t>((p.q[2 * i] & 0xF) | ((p.q[2 * i + 1] & 0xF) << 4));
      }
      TestTensor wp(ScalarType::Byte, {200, 288});
      wp.fill(plain);
      TestTensor s(ScalarType::Float, {200, 18});
      s.fill(p.scales);
      TestTensor got(ScalarType::Float, {1, static_cast<int32_t>(m), 200});
      TestTensor want(ScalarType::Float, {1, static_cast<int32_t>(m), 200});
      ASSERT_EQ(Args().t(x).t(w).i(200).i(32).t(b).t(got).run(native::linear_8da4w_packed_out),
                Error::Ok)
          << last_error_message();
      ASSERT_EQ(Args().t(x).t(wp).t(s).none().i(32).t(b).t(want).run(native::linear_8da4w_out),
                Error::Ok);
      const Rows rows(p);
      expect_close(got.values<float>(), rows, "kernel");
      expect_close(want.values<float>(), rows, "linear_8da4w");
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Int4Packed, BadArguments) {
  TestTensor x(ScalarType::Float, {2, 64});
  TestTensor w(ScalarType::Byte, {1, 2, 320});
  TestTensor out(ScalarType::Float, {2, 3});
  EXPECT_EQ(Args().t(x).t(w).i(3).i(32).none().t(out).run(native::linear_8da4w_packed_out), Error::Ok);
  EXPECT_EQ(Args().t(x).t(w).i(17).i(32).none().t(out).run(native::linear_8da4w_packed_out),
            Error::InvalidArgument);  // 17 outputs need 2 row blocks
  EXPECT_NE(std::string(last_error_message()).find("packed_weight must be uint8 [2, 2, 320]"),
            std::string::npos)
      << last_error_message();
  EXPECT_EQ(Args().t(x).t(w).i(3).i(64).none().t(out).run(native::linear_8da4w_packed_out),
            Error::InvalidArgument);  // records of group 64 are 576 bytes
  EXPECT_EQ(Args().t(x).t(w).i(3).i(48).none().t(out).run(native::linear_8da4w_packed_out),
            Error::InvalidArgument);
  TestTensor bias_bad(ScalarType::Float, {4});
  EXPECT_EQ(Args().t(x).t(w).i(3).i(32).t(bias_bad).t(out).run(native::linear_8da4w_packed_out),
            Error::InvalidArgument);
  EXPECT_EQ(Args().t(x).t(w).i(3).i(32).none().t(out).run(native::linear_8da4w_packed_out, false),
            Error::MemoryAllocationFailed);
}

}  // namespace
}  // namespace torchedge
