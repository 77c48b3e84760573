// The optimized add/sub/mul/div (tensor and Scalar variants, the planned
// broadcasts and the fallbacks) and mean.out against the portable kernels,
// at 1 and 2 threads; see transformer_ops_test.cpp for the setup and the
// tolerances (elementwise rtol 1e-5 / atol 1e-6, mean 1e-4 / 1e-5).
#include "kernels/optimized/test/transformer_test_harness.h"

namespace torchedge {
namespace optimized {
namespace {

// ---- add / sub / mul / div ---------------------------------------------------------

struct BinaryOpCase {
  const char* name;
  Fn fast, portable;
  bool has_alpha;
};

const BinaryOpCase kTensorOps[] = {{"add", add_out, native::add_out, true},
                                   {"sub", sub_out, native::sub_out, true},
                                   {"mul", mul_out, native::mul_out, false},
                                   {"div", div_out, native::div_out, false}};

void check_binary(const BinaryOpCase& op, const std::vector<int32_t>& sa,
                  const std::vector<int32_t>& sb, const std::vector<int32_t>& so, double alpha) {
  Buf a(ScalarType::Float, sa), b(ScalarType::Float, sb);
  fill_random(a);
  fill_random(b);
  if (b.t.numel() > 2) b.f()[1] = 0.0f;  // division by zero: inf / NaN as eager
  at_thread_counts([&](size_t threads) {
    Buf got(ScalarType::Float, so), want(ScalarType::Float, so);
    auto run = [&](Fn fn, Buf& out) {
      Call c;
      c.t(a).t(b);
      if (op.has_alpha) c.d(alpha);
      return c.t(out).run(fn);
    };
    ASSERT_EQ(run(op.fast, got), Error::Ok);
    ASSERT_EQ(run(op.portable, want), Error::Ok);
    EXPECT_EQ(got.t.sizes().size(), want.t.sizes().size());
    expect_close(got.floats(), want.floats(), 1e-5, 1e-6,
                 std::string(op.name) + " " + shape_str(sa) + " " + shape_str(sb) + " threads " +
                     std::to_string(threads));
  });
}

TEST(TransformerOps, BinaryBroadcasts) {
  struct Shapes {
    std::vector<int32_t> a, b, out;
  };
  const Shapes cases[] = {
      {{}, {}, {}},                              // rank 0
      {{0, 3}, {0, 3}, {0, 3}},                  // empty
      {{13}, {13}, {13}},                        // same shape, tail
      {{2, 197, 192}, {2, 197, 192}, {2, 197, 192}},
      {{3, 37}, {37}, {3, 37}},                  // row bias
      {{37}, {3, 37}, {3, 37}},                  // row on the left
      {{2, 5, 9}, {}, {2, 5, 9}},                // scalar tensor
      {{}, {2, 5, 9}, {2, 5, 9}},
      {{2, 5, 9}, {1}, {2, 5, 9}},
      {{3, 7, 11}, {3, 1, 11}, {3, 7, 11}},      // inner broadcast [B, 1, N]
      {{3, 1, 11}, {3, 7, 11}, {3, 7, 11}},
      {{2, 3, 40, 40}, {2, 1, 1, 40}, {2, 3, 40, 40}},  // attention mask
      {{4, 6, 19}, {4, 6, 1}, {4, 6, 19}},       // per-row scalar
      {{5, 1}, {1, 7}, {5, 7}},                  // both broadcast: portable
      {{2, 3, 4}, {2, 1, 4}, {2, 3, 4}},
      {{300, 257}, {257}, {300, 257}},           // several chunks at 2 threads
  };
  for (const BinaryOpCase& op : kTensorOps) {
    for (const Shapes& s : cases) check_binary(op, s.a, s.b, s.out, op.has_alpha ? 2.5 : 1.0);
    if (op.has_alpha) check_binary(op, {3, 37}, {37}, {3, 37}, 1.0);
  }
}

TEST(TransformerOps, BinaryScalarVariants) {
  const BinaryOpCase ops[] = {{"add.Scalar", add_scalar_out, native::add_scalar_out, true},
                              {"sub.Scalar", sub_scalar_out, native::sub_scalar_out, true},
                              {"mul.Scalar", mul_scalar_out, native::mul_scalar_out, false},
                              {"div.Scalar", div_scalar_out, native::div_scalar_out, false}};
  for (const BinaryOpCase& op : ops) {
    for (const auto& shape : std::vector<std::vector<int32_t>>{{}, {9}, {4, 33}, {70000}}) {
      Buf x(ScalarType::Float, shape);
      fill_random(x);
      for (bool int_other : {false, true}) {
        at_thread_counts([&](size_t threads) {
          Buf got(ScalarType::Float, shape), want(ScalarType::Float, shape);
          auto run = [&](Fn fn, Buf& out) {
            Call c;
            c.t(x);
            if (int_other) c.i(3);
            else c.d(0.1);
            if (op.has_alpha) c.i(2);
            return c.t(out).run(fn);
          };
          ASSERT_EQ(run(op.fast, got), Error::Ok);
          ASSERT_EQ(run(op.portable, want), Error::Ok);
          expect_close(got.floats(), want.floats(), 1e-5, 1e-6, std::string(op.name) + " " + shape_str(shape));
        });
      }
    }
  }
}

TEST(TransformerOps, BinaryFallsBackForOtherDtypes) {
  Buf a(ScalarType::Int, {4}), b(ScalarType::Int, {4}), out(ScalarType::Int, {4});
  for (int i = 0; i < 4; ++i) {
    reinterpret_cast<int32_t*>(a.bytes.data())[i] = i;
    reinterpret_cast<int32_t*>(b.bytes.data())[i] = 10 * i;
  }
  ASSERT_EQ(Call().t(a).t(b).i(2).t(out).run(add_out), Error::Ok);
  EXPECT_EQ(reinterpret_cast<int32_t*>(out.bytes.data())[3], 63);
  // int / int is true division into float32, as eager.
  Buf fo(ScalarType::Float, {4});
  ASSERT_EQ(Call().t(a).t(b).t(fo).run(div_out), Error::Ok);
  EXPECT_FLOAT_EQ(fo.f()[2], 0.1f);
  // Shapes that do not broadcast: an error, not a crash.
  Buf x(ScalarType::Float, {3}), y(ScalarType::Float, {4}), z(ScalarType::Float, {4});
  EXPECT_NE(Call().t(x).t(y).t(z).run(mul_out), Error::Ok);
}

// ---- mean ----------------------------------------------------------------------------

void check_mean(const std::vector<int32_t>& shape, const std::vector<int64_t>& dims, bool keepdim,
                bool float_dtype = false) {
  Buf x(ScalarType::Float, shape);
  fill_random(x, 3.0f, 0.5f);
  at_thread_counts([&](size_t threads) {
    std::vector<int32_t> out_shape;
    for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
      bool reduced = false;
      for (int64_t r : dims) reduced |= (r < 0 ? r + static_cast<int64_t>(shape.size()) : r) == d;
      if (!reduced) out_shape.push_back(shape[d]);
      else if (keepdim) out_shape.push_back(1);
    }
    Buf got(ScalarType::Float, out_shape), want(ScalarType::Float, out_shape);
    auto run = [&](Fn fn, Buf& out) {
      Call c;
      c.t(x).ints(dims).b(keepdim);
      if (float_dtype) c.i(static_cast<int64_t>(ScalarType::Float));
      else c.none();
      return c.t(out).run(fn);
    };
    ASSERT_EQ(run(mean_out, got), Error::Ok);
    ASSERT_EQ(run(native::mean_out, want), Error::Ok);
    EXPECT_EQ(got.t.numel(), want.t.numel());
    std::string dstr;
    for (int64_t d : dims) dstr += std::to_string(d) + " ";
    expect_close(got.floats(), want.floats(), 1e-4, 1e-5,
                 "mean " + shape_str(shape) + " dims " + dstr + "threads " + std::to_string(threads));
  });
}

TEST(TransformerOps, MeanOverDimBlocks) {
  for (bool keepdim : {false, true}) {
    check_mean({2, 197, 192}, {-1}, keepdim);        // features
    check_mean({2, 64, 383}, {1}, keepdim);          // pooling over tokens, inner 383
    check_mean({2, 64, 3}, {1}, keepdim, true);      // narrow inner, explicit dtype
    check_mean({2, 13, 7, 7}, {2, 3}, keepdim);      // global average pool
    check_mean({2, 13, 7, 7}, {-1, -2}, keepdim);
    check_mean({1, 300, 1000}, {1}, keepdim);        // several chunks at 2 threads
    check_mean({5, 6, 7}, {0, 2}, keepdim);          // not adjacent: portable
    check_mean({5, 6, 7}, {0}, keepdim);             // outer 1
    check_mean({5, 0, 7}, {1}, keepdim);             // empty reduction: NaN, portable
  }
}

}  // namespace
}  // namespace optimized
}  // namespace torchedge
