// The optimized transformer kernels (kernels/optimized/ops: softmax,
// log_softmax, layer norm, activations; add/sub/mul/div and mean are in
// transformer_binary_mean_test.cpp) against the
// portable kernels on randomized shapes (odd sizes, tails not a multiple
// of 8 or 16, rank 0, empty), large magnitudes and NaN/inf, at 1 and 2
// threads; and the vector math (vec/vec_kernels.h) of every ISA this CPU
// runs against the C library and, at every length 0..40, against the
// scalar table (the NEON one on aarch64). CTest runs this binary three times (optimized_kernels_test,
// and with TORCHEDGE_ISA=avx2 and =scalar), so the op tests cover the
// AVX-512, AVX2 and scalar tables on a CPU that has all three.
//
// Tolerances: elementwise ops rtol 1e-5 / atol 1e-6; softmax, log_softmax
// and layer norm (reductions) rtol 1e-4 / atol 1e-5; vector math rel 1e-6
// of the double-precision result (see vec_math_avx2.h / vec_math_avx512.h
// for the measured ulp).
#include "kernels/optimized/test/transformer_test_harness.h"

namespace torchedge {
namespace optimized {
namespace {

// ---- vector math ------------------------------------------------------------

// Every table this CPU can run, whatever TORCHEDGE_ISA says: the AVX ones
// on x86, the NEON one on aarch64 (under QEMU at each core level ctest
// runs this suite on).
struct Table {
  const char* name;
  const VecKernels* k;
};
std::vector<Table> runnable_tables() {
  std::vector<Table> tables{{"scalar", &vec_kernels(Isa::kScalar)}};
  if (detected_isa() != Isa::kScalar) tables.push_back({"avx2", &vec_kernels(Isa::kAvx2)});
  if (detected_isa() == Isa::kAvx512) tables.push_back({"avx512", &vec_kernels(Isa::kAvx512)});
  if (detected_arm_isa() >= ArmIsa::kNeon) tables.push_back({"neon", &arm_vec_kernels(ArmIsa::kNeon)});
  return tables;
}

struct MathCase {
  const char* name;
  UnaryLoop VecKernels::*loop;
  double (*reference)(double);
  float lo, hi;
  double atol;  // besides rel 1e-6
};

double gelu_ref(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double gelu_tanh_ref(double x) {
  // x/2 (1 + tanh u) = x / (1 + e^{-2u}): no cancellation in double either.
  const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1.0 + std::exp(-2.0 * u));
}

TEST(TransformerVecMath, AccuracyAgainstDouble) {
  const MathCase cases[] = {
      {"exp", &VecKernels::exp, [](double x) { return std::exp(x); }, -87.3f, 88.7f, 0.0},
      {"tanh", &VecKernels::tanh, [](double x) { return std::tanh(x); }, -12.0f, 12.0f, 0.0},
      {"erf", &VecKernels::erf, [](double x) { return std::erf(x); }, -6.0f, 6.0f, 0.0},
      {"sigmoid", &VecKernels::sigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, -80.0f, 80.0f, 0.0},
      // GELU of negative x: the scalar table keeps eager's x/2 (1 + erf) and
      // so its cancellation (abs err ~1e-7 where |gelu| < 1e-5); atol 1e-7.
      {"gelu", &VecKernels::gelu_erf, gelu_ref, -8.0f, 12.0f, 1e-7},
      {"gelu_tanh", &VecKernels::gelu_tanh, gelu_tanh_ref, -8.0f, 12.0f, 1e-7},
  };
  const int n = 200003;  // odd: exercises the masked tail
  std::vector<float> x(n), y(n);
  for (const Table& table : runnable_tables()) {
    const VecKernels& k = *table.k;
    for (const MathCase& c : cases) {
      for (int i = 0; i < n; ++i) x[i] = c.lo + (c.hi - c.lo) * static_cast<float>(i) / (n - 1);
      (k.*c.loop)(x.data(), y.data(), n);
      double worst = 0;
      float worst_x = 0;
      for (int i = 0; i < n; ++i) {
        const double want = c.reference(x[i]);
        const double err = std::fabs(y[i] - want) / (std::fabs(want) + c.atol / 1e-6);
        if (std::fabs(want) > 1e-30 && err > worst) worst = err, worst_x = x[i];
      }
      EXPECT_LE(worst, 1e-6) << c.name << " (" << table.name << ") worst at x = " << worst_x;
    }
  }
}

TEST(TransformerVecMath, SpecialValues) {
  const float inf = INFINITY, nan = NAN;
  const std::vector<float> x = {inf, -inf, nan, -0.0f, 0.0f, -200.0f, 200.0f, -87.0f, 88.0f};
  for (const Table& table : runnable_tables()) {
    const VecKernels& k = *table.k;
    const VecKernels& ref = vec_kernels(Isa::kScalar);
    for (auto loop : {&VecKernels::exp, &VecKernels::tanh, &VecKernels::erf, &VecKernels::sigmoid,
                      &VecKernels::silu, &VecKernels::relu, &VecKernels::gelu_erf, &VecKernels::gelu_tanh}) {
      std::vector<float> got(x.size()), want(x.size());
      (k.*loop)(x.data(), got.data(), static_cast<int64_t>(x.size()));
      (ref.*loop)(x.data(), want.data(), static_cast<int64_t>(x.size()));
      expect_close(got, want, 1e-6, 1e-30, std::string("special values, ") + table.name);
    }
    // relu keeps -0 and NaN as ATen does.
    std::vector<float> r(x.size());
    k.relu(x.data(), r.data(), static_cast<int64_t>(x.size()));
    EXPECT_TRUE(std::signbit(r[3]));
    EXPECT_TRUE(std::isnan(r[2]));
  }
}

TEST(TransformerVecMath, SumMaxTails) {
  std::vector<int64_t> lengths{1000};
  for (int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  for (const Table& table : runnable_tables()) {
    const VecKernels& k = *table.k;
    for (int64_t n : lengths) {
      std::vector<float> x(n);
      double s = 0;
      for (int64_t i = 0; i < n; ++i) s += x[i] = static_cast<float>((i * 37) % 11) - 5.0f;
      EXPECT_NEAR(k.sum(x.data(), n), s, 1e-4 * (1 + std::fabs(s))) << n;
      x[n / 2] = INFINITY;
      EXPECT_EQ(k.sum(x.data(), n), INFINITY) << n;
      x[n / 2] = 1000.0f;
      EXPECT_EQ(k.max(x.data(), n), 1000.0f) << n;
      for (int64_t j = 0; j < n; j += (n <= 40 ? 1 : 97)) {  // the max, then a NaN, at each place
        const std::string what = std::string(table.name) + " n " + std::to_string(n) + " at " +
                                 std::to_string(j);
        std::vector<float> y(n, -INFINITY);
        y[j] = 3.0f;
        EXPECT_EQ(k.max(y.data(), n), 3.0f) << what;
        y[j] = NAN;
        EXPECT_TRUE(std::isnan(k.max(y.data(), n))) << what;
        EXPECT_TRUE(std::isnan(k.sum(y.data(), n))) << what;
      }
    }
  }
}

// ---- every tail length against the scalar table -----------------------------

// n floats 68 bytes into a buffer (unaligned for every vector width) with
// canaries on both sides, so a store past either end shows.
class GuardedRow {
 public:
  explicit GuardedRow(const std::vector<float>& values)
      : n_(static_cast<int64_t>(values.size())), buf_(kGuard, kCanary) {
    buf_.insert(buf_.end(), values.begin(), values.end());
    buf_.insert(buf_.end(), kGuard, kCanary);
  }
  float* data() { return buf_.data() + kGuard; }
  std::vector<float> values() const { return {buf_.begin() + kGuard, buf_.begin() + kGuard + n_}; }
  bool guards_intact() const {
    for (int64_t i = 0; i < kGuard; ++i) {
      if (buf_[i] != kCanary || buf_[kGuard + n_ + i] != kCanary) return false;
    }
    return true;
  }

 private:
  static constexpr int64_t kGuard = 17;
  static constexpr float kCanary = 12345.0f;
  int64_t n_;
  std::vector<float> buf_;
};

// n values of scale * N(0, 1); with `specials`, every fifth one cycles
// through NaN, +-inf, +-0, tiny, huge and the ends of exp's range.
std::vector<float> tail_values(int64_t n, float scale, bool specials) {
  static const float kSpecials[] = {NAN,     INFINITY, -INFINITY, -0.0f, 0.0f,   1e-30f,
                                    -1e-30f, 1e4f,     -1e4f,     88.0f, -87.0f, -100.0f};
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> x(n);
  for (int64_t i = 0; i < n; ++i) x[i] = specials && i % 5 == 4 ? kSpecials[(i / 5 + n) % 12] : d(rng());
  return x;
}

// Runs `call(in, out)` out of place and in place on guarded rows: the
// input must stay as it was, nothing outside the row may change, and in
// place must give the out-of-place result exactly (an element computed
// twice would not). Returns the out-of-place result.
template <typename F>
std::vector<float> run_guarded(const std::vector<float>& x, const std::string& what, F call) {
  GuardedRow in(x), out(std::vector<float>(x.size(), 0.0f)), both(x);
  call(in.data(), out.data());
  call(both.data(), both.data());
  EXPECT_TRUE(in.guards_intact() && out.guards_intact() && both.guards_intact()) << what;
  expect_close(in.values(), x, 0, 0, what + " input changed");
  expect_close(both.values(), out.values(), 0, 0, what + " in place");
  return out.values();
}

TEST(TransformerVecMath, UnaryTailsAgainstScalar) {
  const VecKernels& ref = scalar_vec_kernels();
  const std::pair<const char*, UnaryLoop VecKernels::*> loops[] = {
      {"exp", &VecKernels::exp},         {"tanh", &VecKernels::tanh},
      {"erf", &VecKernels::erf},         {"gelu", &VecKernels::gelu_erf},
      {"gelu_tanh", &VecKernels::gelu_tanh}, {"sigmoid", &VecKernels::sigmoid},
      {"silu", &VecKernels::silu},       {"relu", &VecKernels::relu}};
  for (const Table& table : runnable_tables()) {
    const VecKernels& k = *table.k;
    for (const auto& [name, member] : loops) {
      const auto loop = member;  // a lambda may not capture a structured binding (clang 14)
      for (int64_t n = 0; n <= 40; ++n) {
        // 0.5: whole vectors inside erf's polynomial range; 4: both branches.
        for (auto [scale, specials] : {std::pair{0.5f, false}, {4.0f, true}}) {
          const std::vector<float> x = tail_values(n, scale, specials);
          const std::string what = std::string(name) + " " + table.name + " n " + std::to_string(n);
          const std::vector<float> got =
              run_guarded(x, what, [&](const float* in, float* out) { (k.*loop)(in, out, n); });
          std::vector<float> want(n);
          (ref.*loop)(x.data(), want.data(), n);
          // atol: the scalar GELU's cancellation below x ~ -4 (AccuracyAgainstDouble).
          expect_close(got, want, 1e-6, 1e-7, what);
        }
      }
    }
  }
}

// Rows for softmax/log_softmax: plain, huge, tiny, with -inf entries (they
// give 0), with a NaN or +inf first or last (the whole row NaN), all -inf
// (NaN; safe_softmax's zeros are op_softmax.cpp's).
std::vector<std::vector<float>> softmax_rows(int64_t n) {
  std::vector<std::vector<float>> rows{tail_values(n, 3.0f, false), tail_values(n, 1e4f, false),
                                       tail_values(n, 1e-30f, false)};
  if (n > 1) {
    rows.push_back(tail_values(n, 3.0f, false));
    for (int64_t i = 0; i < n; i += 3) rows.back()[i] = -INFINITY;
  }
  for (float special : {NAN, INFINITY}) {
    for (int64_t at : {int64_t{0}, n - 1}) {
      rows.push_back(tail_values(n, 3.0f, false));
      rows.back()[at] = special;
    }
  }
  rows.emplace_back(n, -INFINITY);
  return rows;
}

void check_softmax_row_tails(const VecKernels& k, int64_t n, const std::string& at) {
  for (const std::vector<float>& x : softmax_rows(n)) {
    for (bool log : {false, true}) {
      const auto row = log ? &VecKernels::log_softmax_row : &VecKernels::softmax_row;
      const std::string what = (log ? "log_softmax " : "softmax ") + at;
      const std::vector<float> got =
          run_guarded(x, what, [&](const float* in, float* out) { (k.*row)(in, out, n); });
      std::vector<float> want(n);
      (scalar_vec_kernels().*row)(x.data(), want.data(), n);
      expect_close(got, want, 1e-4, 1e-5, what);
    }
  }
}

void check_layer_norm_row_tails(const VecKernels& k, int64_t n, const std::string& at) {
  const std::vector<float> w = tail_values(n, 1.0f, false), b = tail_values(n, 1.0f, false);
  for (float offset : {0.0f, 1000.0f, NAN}) {  // large mean, small variance; NaN propagates
    for (bool affine : {false, true}) {
      std::vector<float> x = tail_values(n, 2.0f, false);
      for (float& v : x) v += std::isnan(offset) ? 0.0f : offset;
      if (std::isnan(offset)) x[n - 1] = NAN;
      const float* wp = affine ? w.data() : nullptr;
      const float* bp = affine ? b.data() : nullptr;
      const std::string what =
          "layer_norm " + at + (affine ? " affine" : "") + " offset " + std::to_string(offset);
      float mean = 0, rstd = 0, want_mean = 0, want_rstd = 0;
      const std::vector<float> got = run_guarded(x, what, [&](const float* in, float* out) {
        k.layer_norm_row(in, wp, bp, 1e-5, n, out, &mean, &rstd);
      });
      std::vector<float> want(n);
      scalar_vec_kernels().layer_norm_row(x.data(), wp, bp, 1e-5, n, want.data(), &want_mean,
                                          &want_rstd);
      expect_close(got, want, 1e-4, 1e-5, what);
      expect_close({mean, rstd}, {want_mean, want_rstd}, 1e-4, 1e-5, what + " mean, rstd");
    }
  }
}

// Group norm's pieces: the statistics alone and y = x * scale + shift.
void check_moments_and_scale_shift_tails(const VecKernels& k, int64_t n, const std::string& at) {
  for (float offset : {0.0f, 1000.0f}) {
    std::vector<float> x = tail_values(n, 2.0f, false);
    for (float& v : x) v += offset;
    const std::string what = "row_moments " + at + " offset " + std::to_string(offset);
    double mean = 0, rstd = 0, want_mean = 0, want_rstd = 0;
    k.row_moments(x.data(), n, 1e-5, &mean, &rstd);
    scalar_vec_kernels().row_moments(x.data(), n, 1e-5, &want_mean, &want_rstd);
    expect_close({static_cast<float>(mean), static_cast<float>(rstd)},
                 {static_cast<float>(want_mean), static_cast<float>(want_rstd)}, 1e-4, 1e-5, what);
  }
  std::vector<float> x = tail_values(n, 3.0f, false);
  const std::string what = "scale_shift " + at;
  const std::vector<float> got = run_guarded(
      x, what, [&](const float* in, float* out) { k.scale_shift(in, 0.75f, -1.5f, out, n); });
  std::vector<float> want(n);
  scalar_vec_kernels().scale_shift(x.data(), 0.75f, -1.5f, want.data(), n);
  expect_close(got, want, 1e-6, 1e-6, what);
}

TEST(TransformerVecMath, RowTailsAgainstScalar) {
  for (const Table& table : runnable_tables()) {
    for (int64_t n = 1; n <= 40; ++n) {
      const std::string at = std::string(table.name) + " n " + std::to_string(n);
      check_softmax_row_tails(*table.k, n, at);
      check_layer_norm_row_tails(*table.k, n, at);
      check_moments_and_scale_shift_tails(*table.k, n, at);
    }
  }
}

// ---- softmax / log_softmax --------------------------------------------------

void check_softmax(const std::vector<int32_t>& shape, int64_t dim, bool log, Buf* preset = nullptr) {
  Buf x(ScalarType::Float, shape);
  if (preset != nullptr) std::memcpy(x.f(), preset->f(), x.t.numel() * sizeof(float));
  else fill_random(x, 10.0f);
  at_thread_counts([&](size_t threads) {
    Buf got(ScalarType::Float, shape), want(ScalarType::Float, shape);
    ASSERT_EQ(Call().t(x).i(dim).b(false).t(got).run(log ? log_softmax_out : softmax_out), Error::Ok);
    ASSERT_EQ(Call().t(x).i(dim).b(false).t(want).run(log ? native::log_softmax_out : native::softmax_out),
              Error::Ok);
    expect_close(got.floats(), want.floats(), 1e-4, 1e-5,
                 std::string(log ? "log_softmax " : "softmax ") + shape_str(shape) + " dim " +
                     std::to_string(dim) + " threads " + std::to_string(threads));
  });
}

TEST(TransformerOps, SoftmaxRandomShapes) {
  for (bool log : {false, true}) {
    for (const auto& shape : std::vector<std::vector<int32_t>>{
             {1}, {7}, {8}, {9}, {3, 17}, {2, 3, 64}, {2, 3, 197, 197}, {5, 1000}, {4, 33, 1}}) {
      check_softmax(shape, -1, log);
    }
    check_softmax({4, 33, 1}, 1, log);  // dim followed by size-1 dims: still rows
    check_softmax({6, 5, 4}, 1, log);   // not the last dim: portable
    check_softmax({6, 5, 4}, 0, log);
    check_softmax({0, 5}, -1, log);     // empty
    check_softmax({}, 0, log);          // rank 0
  }
}

TEST(TransformerOps, SoftmaxLargeMagnitudesAndNonFinite) {
  Buf big(ScalarType::Float, {2, 2});
  const float v[] = {1000.0f, 0.0f, -1000.0f, 0.0f};
  std::memcpy(big.f(), v, sizeof(v));
  Buf out(ScalarType::Float, {2, 2});
  ASSERT_EQ(Call().t(big).i(-1).b(false).t(out).run(softmax_out), Error::Ok);
  EXPECT_EQ(out.f()[0], 1.0f);
  EXPECT_EQ(out.f()[1], 0.0f);
  EXPECT_EQ(out.f()[2], 0.0f);
  EXPECT_EQ(out.f()[3], 1.0f);
  for (bool log : {false, true}) {
    check_softmax({2, 2}, -1, log, &big);
    // Rows of +-1e4 magnitudes, a masked (-inf) attention row, a NaN row, an inf row.
    Buf x(ScalarType::Float, {5, 19});
    fill_random(x, 1e4f);
    for (int i = 0; i < 19; ++i) x.f()[19 + i] = i % 3 == 0 ? -INFINITY : x.f()[19 + i];
    x.f()[2 * 19 + 11] = NAN;
    x.f()[3 * 19 + 18] = INFINITY;
    for (int i = 0; i < 19; ++i) x.f()[4 * 19 + i] = -INFINITY;  // fully masked: NaN as eager
    check_softmax({5, 19}, -1, log, &x);
  }
}

// ---- layer norm --------------------------------------------------------------

void check_layer_norm(const std::vector<int32_t>& shape, int k, bool affine, float offset) {
  Buf x(ScalarType::Float, shape);
  fill_random(x, 2.0f, offset);
  std::vector<int32_t> norm(shape.end() - k, shape.end());
  std::vector<int64_t> norm64(norm.begin(), norm.end());
  std::vector<int32_t> stat(shape);
  for (size_t i = shape.size() - k; i < shape.size(); ++i) stat[i] = 1;
  Buf w(ScalarType::Float, norm), b(ScalarType::Float, norm);
  fill_random(w);
  fill_random(b);
  at_thread_counts([&](size_t threads) {
    Buf y1(ScalarType::Float, shape), m1(ScalarType::Float, stat), r1(ScalarType::Float, stat);
    Buf y2(ScalarType::Float, shape), m2(ScalarType::Float, stat), r2(ScalarType::Float, stat);
    auto run = [&](Fn fn, Buf& y, Buf& m, Buf& r) {
      Call c;
      c.t(x).ints(norm64);
      if (affine) c.t(w).t(b);
      else c.none().none();
      return c.d(1e-5).t(y).t(m).t(r).run(fn);
    };
    ASSERT_EQ(run(native_layer_norm_out, y1, m1, r1), Error::Ok);
    ASSERT_EQ(run(native::native_layer_norm_out, y2, m2, r2), Error::Ok);
    const std::string what = "layer_norm " + shape_str(shape) + " k " + std::to_string(k) +
                             (affine ? " affine" : "") + " threads " + std::to_string(threads);
    expect_close(y1.floats(), y2.floats(), 1e-4, 1e-5, what + " out");
    expect_close(m1.floats(), m2.floats(), 1e-4, 1e-5, what + " mean");
    expect_close(r1.floats(), r2.floats(), 1e-4, 1e-5, what + " rstd");
  });
}

TEST(TransformerOps, LayerNorm) {
  for (bool affine : {false, true}) {
    check_layer_norm({1, 1}, 1, affine, 0.0f);
    check_layer_norm({3, 7}, 1, affine, 0.0f);
    check_layer_norm({2, 5, 192}, 1, affine, 0.0f);
    check_layer_norm({2, 197, 192}, 1, affine, 1000.0f);  // large mean, small variance
    check_layer_norm({4, 3, 5}, 2, affine, 0.5f);         // two normalized dims
    check_layer_norm({130, 33}, 1, affine, -3.0f);
  }
}

TEST(TransformerOps, LayerNormFallsBackForDouble) {
  Buf x(ScalarType::Double, {2, 3}), y(ScalarType::Double, {2, 3});
  Buf m(ScalarType::Double, {2, 1}), r(ScalarType::Double, {2, 1});
  for (int i = 0; i < 6; ++i) reinterpret_cast<double*>(x.bytes.data())[i] = i;
  ASSERT_EQ(Call().t(x).ints({3}).none().none().d(1e-5).t(y).t(m).t(r).run(native_layer_norm_out),
            Error::Ok);
  EXPECT_NEAR(reinterpret_cast<double*>(m.bytes.data())[1], 4.0, 1e-12);
}

// ---- activations ---------------------------------------------------------------

TEST(TransformerOps, Activations) {
  struct Op {
    const char* name;
    Fn fast, portable;
    const char* approximate;  // gelu only
  };
  const Op ops[] = {{"gelu", gelu_out, native::gelu_out, "none"},
                    {"gelu_tanh", gelu_out, native::gelu_out, "tanh"},
                    {"relu", relu_out, native::relu_out, nullptr},
                    {"sigmoid", sigmoid_out, native::sigmoid_out, nullptr},
                    {"tanh", tanh_out, native::tanh_out, nullptr},
                    {"silu", silu_out, native::silu_out, nullptr}};
  for (const Op& op : ops) {
    for (const auto& shape : std::vector<std::vector<int32_t>>{
             {}, {0}, {1}, {7}, {17}, {3, 5, 11}, {2, 197, 768}, {40000}}) {
      Buf x(ScalarType::Float, shape);
      fill_random(x, 6.0f);
      if (x.t.numel() > 4) x.f()[0] = NAN, x.f()[1] = INFINITY, x.f()[2] = -INFINITY, x.f()[3] = -0.0f;
      at_thread_counts([&](size_t threads) {
        Buf got(ScalarType::Float, shape), want(ScalarType::Float, shape);
        auto run = [&](Fn fn, Buf& out) {
          Call c;
          c.t(x);
          if (op.approximate) c.s(op.approximate);
          return c.t(out).run(fn);
        };
        ASSERT_EQ(run(op.fast, got), Error::Ok);
        ASSERT_EQ(run(op.portable, want), Error::Ok);
        expect_close(got.floats(), want.floats(), 1e-5, 1e-6,
                     std::string(op.name) + " " + shape_str(shape) + " threads " + std::to_string(threads));
      });
    }
  }
}

TEST(TransformerOps, ActivationsFallBack) {
  // int32 relu and float64 gelu are the portable kernels' business.
  Buf xi(ScalarType::Int, {5}), yi(ScalarType::Int, {5});
  for (int i = 0; i < 5; ++i) reinterpret_cast<int32_t*>(xi.bytes.data())[i] = i - 2;
  ASSERT_EQ(Call().t(xi).t(yi).run(relu_out), Error::Ok);
  EXPECT_EQ(reinterpret_cast<int32_t*>(yi.bytes.data())[0], 0);
  EXPECT_EQ(reinterpret_cast<int32_t*>(yi.bytes.data())[4], 2);
  Buf x(ScalarType::Float, {3}), y(ScalarType::Float, {3});
  EXPECT_NE(Call().t(x).s("bogus").t(y).run(gelu_out), Error::Ok);  // a clear error, from portable
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
