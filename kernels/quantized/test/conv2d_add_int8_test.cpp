// torchedge::conv2d_add_int8.out must equal add_int8.out(conv2d_int8.out(...),
// residual) bit for bit, with the residual as either operand of the add (float
// addition commutes), on every ISA (the suite also runs with
// TORCHEDGE_ISA=avx2 and =scalar) and on 1 and 2 threads; and the AVX2 path
// must equal the scalar path (int8_conv_scalar with a residual) bit for bit.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/optimized/threadpool/threadpool.h"
#include "kernels/quantized/support/int8_conv.h"
#include "kernels/quantized/support/quant_isa.h"
#include "kernels/quantized/test/int8_conv_test_data.h"
#include "kernels/quantized/test/quant_test_harness.h"

namespace torchedge {
namespace {

// The add's quantization (the conv's output is Quant's out_*).
struct AddQuant {
  double residual_scale = 0.07;
  int32_t residual_zp = 9;
  double out_scale = 0.09;
  int32_t out_zp = -3, out_min = -128, out_max = 127;
};

constexpr size_t kArena = size_t{16} << 20;

void conv_arguments(Args& args, const Geometry& g, const Quant& q, TestTensor& x, TestTensor& w,
                    TestTensor& s, TestTensor& b) {
  args.t(x).d(q.in_scale).i(q.in_zp).t(w).t(s);
  if (q.bias) {
    args.t(b);
  } else {
    args.none();
  }
  args.ints({g.kh, g.kw}).ints({g.sh, g.sw}).ints({g.ph, g.pw}).ints({g.dh, g.dw}).i(g.groups);
  args.d(q.out_scale).i(q.out_zp).i(q.out_min).i(q.out_max);
}

struct Outputs {
  std::vector<int8_t> fused, conv_then_add, add_swapped;
};

// The fused kernel, and conv2d_int8 then add_int8 (conv as a, then as b).
Outputs run_kernels(const Geometry& g, const Quant& q, const AddQuant& aq, const Data& d,
                    const std::vector<int8_t>& residual) {
  TestTensor x(ScalarType::Char, {g.n, g.cin, g.h, g.w});
  x.fill(d.x);
  const int32_t cout_g = g.cout / g.groups;
  TestTensor w(ScalarType::Char, {g.groups, (cout_g + 5) / 6, (g.k() + 3) / 4, 6, 4});
  w.fill(to_panels(g, d.w));
  TestTensor s(ScalarType::Float, {g.cout}), b(ScalarType::Float, {g.cout});
  s.fill(d.scales);
  b.fill(d.bias);
  const std::vector<int32_t> shape = {g.n, g.cout, g.oh(), g.ow()};
  TestTensor r(ScalarType::Char, shape), fused(ScalarType::Char, shape);
  TestTensor conv(ScalarType::Char, shape), sum(ScalarType::Char, shape);
  r.fill(residual);
  std::vector<unsigned char> arena(kArena);
  MemoryAllocator temp(arena.data(), arena.size());
  KernelContext ctx(&temp);
  Outputs o;
  Args f;
  conv_arguments(f, g, q, x, w, s, b);
  f.t(r).d(aq.residual_scale).i(aq.residual_zp);
  f.d(aq.out_scale).i(aq.out_zp).i(aq.out_min).i(aq.out_max);
  if (q.weight_bits != 8) f.i(q.weight_bits);
  f.t(fused);
  EXPECT_EQ(f.run_with(native::conv2d_add_int8_out, ctx), Error::Ok);
  o.fused = fused.values<int8_t>();
  Args c;
  conv_arguments(c, g, q, x, w, s, b);
  if (q.weight_bits != 8) c.i(q.weight_bits);
  c.t(conv);
  EXPECT_EQ(c.run_with(native::conv2d_int8_out, ctx), Error::Ok);
  for (bool swapped : {false, true}) {
    Args a;
    if (swapped) {
      a.t(r).d(aq.residual_scale).i(aq.residual_zp).t(conv).d(q.out_scale).i(q.out_zp);
    } else {
      a.t(conv).d(q.out_scale).i(q.out_zp).t(r).d(aq.residual_scale).i(aq.residual_zp);
    }
    a.d(aq.out_scale).i(aq.out_zp).i(aq.out_min).i(aq.out_max).t(sum);
    EXPECT_EQ(a.run_with(native::add_int8_out, ctx), Error::Ok);
    (swapped ? o.add_swapped : o.conv_then_add) = sum.values<int8_t>();
  }
  return o;
}

// The scalar path with the residual (what the AVX2 path must equal).
std::vector<int8_t> scalar_path(const Geometry& g, const Quant& q, const AddQuant& aq,
                                const Data& d, const std::vector<int8_t>& residual) {
  const std::vector<int8_t> panels = to_panels(g, d.w);
  std::vector<int8_t> out(residual.size());
  quantized::Int8ConvProblem p = problem_of(g, q, d, panels, out.data());
  p.residual = residual.data();
  p.residual_add.a_scale = q.out_scale;
  p.residual_add.a_zero_point = q.out_zp;
  p.residual_add.b_scale = aq.residual_scale;
  p.residual_add.b_zero_point = aq.residual_zp;
  p.residual_add.out_params = {static_cast<float>(1.0 / aq.out_scale),
                               static_cast<float>(aq.out_zp), static_cast<float>(aq.out_min),
                               static_cast<float>(aq.out_max)};
  for (int32_t n = 0; n < g.n; ++n) {
    for (int32_t gr = 0; gr < g.groups; ++gr) {
      quantized::int8_conv_scalar(p, n, gr, 0, g.cout / g.groups);
    }
  }
  return out;
}

void expect_equal(const std::vector<int8_t>& want, const std::vector<int8_t>& got,
                  const char* what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i] != got[i] && bad++ < 5) {
      ADD_FAILURE() << what << ": element " << i << " want " << int{want[i]} << " got "
                    << int{got[i]};
    }
  }
  ASSERT_EQ(bad, 0u) << what << ": " << bad << " of " << want.size() << " differ";
}

void check_case(const Geometry& g, const Quant& q, const AddQuant& aq, uint32_t seed) {
  SCOPED_TRACE(testing::Message() << "N" << g.n << " Cin" << g.cin << " " << g.h << "x" << g.w
                                  << " Cout" << g.cout << " k" << g.kh << "x" << g.kw << " s"
                                  << g.sh << " g" << g.groups << " threads " << num_threads()
                                  << " weight bits " << q.weight_bits << " isa "
                                  << quantized::quant_isa_name(quantized::quant_isa()));
  const Data d = random_data(g, seed, q.weight_bits);
  std::vector<int8_t> residual(static_cast<size_t>(g.n) * g.cout * g.oh() * g.ow());
  std::mt19937 gen(seed + 3);
  std::uniform_int_distribution<int> i8(-128, 127);
  for (int8_t& v : residual) v = static_cast<int8_t>(i8(gen));
  const Outputs o = run_kernels(g, q, aq, d, residual);
  expect_equal(o.conv_then_add, o.fused, "vs add_int8(conv2d_int8(...), residual)");
  expect_equal(o.add_swapped, o.fused, "vs add_int8(residual, conv2d_int8(...))");
  expect_equal(scalar_path(g, q, aq, d, residual), o.fused, "vs scalar path");
}

// Flat 1x1 (ResNet-50's block tail), 3x3 (ResNet-18's), pixel counts that are
// and are not multiples of 16 (a 7x7 map's half-width last strip), an odd
// channel count (a row pairs with itself), groups, and the output-channel
// split at 2 threads (Cout above the pixel count).
const Geometry kCases[] = {
    {1, 16, 8, 8, 24, 1, 1, 1, 1, 0, 0, 1, 1, 1},   {1, 7, 5, 9, 13, 1, 1, 1, 1, 0, 0, 1, 1, 1},
    {2, 9, 13, 21, 20, 3, 3, 1, 1, 1, 1, 1, 1, 1},  {1, 40, 7, 7, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1},
    {1, 8, 19, 30, 11, 3, 3, 2, 2, 1, 1, 1, 1, 1},  {1, 4, 20, 20, 8, 3, 3, 1, 1, 2, 2, 2, 2, 2},
    {1, 40, 5, 5, 100, 3, 3, 1, 1, 1, 1, 1, 1, 1},  {2, 24, 7, 7, 70, 1, 1, 1, 1, 0, 0, 1, 1, 1},
};

TEST(Conv2dAddInt8, EqualsConvThenAddOnOneAndTwoThreads) {
  for (size_t threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    uint32_t seed = 300;
    for (const Geometry& g : kCases) {
      check_case(g, Quant{}, AddQuant{}, seed += 11);
      if (HasFatalFailure()) break;
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dAddInt8, SevenBitWeightsOnOneAndTwoThreads) {
  Quant q;
  q.weight_bits = 7;  // the AVX2 u8 path, with its residual epilogue
  for (size_t threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    uint32_t seed = 700;
    for (const Geometry& g : kCases) {
      q.in_zp = q.in_zp == -128 ? 5 : -128;
      check_case(g, q, AddQuant{}, seed += 13);
      if (HasFatalFailure()) break;
    }
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

TEST(Conv2dAddInt8, ClampedRangesAndNoBias) {
  // A conv with a hardtanh-like range feeding an add with relu (the sum's
  // range starting at its zero point), no bias, scales that saturate.
  Quant q;
  q.out_min = -40;
  q.out_max = 70;
  q.bias = false;
  AddQuant aq;
  aq.out_min = aq.out_zp;
  aq.out_scale = 0.02;
  aq.residual_zp = -128;
  for (size_t threads : {1, 2}) {
    ASSERT_EQ(set_num_threads(threads), Error::Ok);
    check_case({1, 12, 9, 23, 18, 3, 3, 1, 1, 1, 1, 1, 1, 1}, q, aq, 41);
    check_case({1, 32, 14, 14, 64, 1, 1, 1, 1, 0, 0, 1, 1, 1}, q, aq, 42);
  }
  ASSERT_EQ(set_num_threads(1), Error::Ok);
}

// One call with a residual of `residual_shape`/`residual_dtype` and the
// given add quantization (the argument checks).
Error run_with_residual(const AddQuant& aq, std::vector<int32_t> residual_shape,
                        ScalarType residual_dtype = ScalarType::Char, bool alias_out = false,
                        const Quant& q = Quant{}) {
  const Geometry g{1, 8, 6, 6, 12, 3, 3, 1, 1, 1, 1, 1, 1, 1};
  const Data d = random_data(g, 1);
  TestTensor x(ScalarType::Char, {g.n, g.cin, g.h, g.w});
  TestTensor w(ScalarType::Char, {1, 2, (g.k() + 3) / 4, 6, 4});
  TestTensor s(ScalarType::Float, {g.cout}), b(ScalarType::Float, {g.cout});
  s.fill(d.scales);
  TestTensor r(residual_dtype, residual_shape);
  TestTensor out(ScalarType::Char, {g.n, g.cout, g.oh(), g.ow()});
  Args args;
  conv_arguments(args, g, q, x, w, s, b);
  if (alias_out) {
    args.t(out);
  } else {
    args.t(r);
  }
  args.d(aq.residual_scale).i(aq.residual_zp);
  args.d(aq.out_scale).i(aq.out_zp).i(aq.out_min).i(aq.out_max).t(out);
  std::vector<unsigned char> arena(kArena);
  MemoryAllocator temp(arena.data(), arena.size());
  KernelContext ctx(&temp);
  return args.run_with(native::conv2d_add_int8_out, ctx);
}

TEST(Conv2dAddInt8, RejectsBadArguments) {
  const std::vector<int32_t> shape = {1, 12, 6, 6};
  ASSERT_EQ(run_with_residual(AddQuant{}, shape), Error::Ok);
  EXPECT_EQ(run_with_residual(AddQuant{}, shape, ScalarType::Float), Error::InvalidArgument);
  EXPECT_EQ(run_with_residual(AddQuant{}, {1, 12, 6, 5}), Error::InvalidArgument);
  EXPECT_EQ(run_with_residual(AddQuant{}, {12, 6, 6}), Error::InvalidArgument);
  EXPECT_EQ(run_with_residual(AddQuant{}, shape, ScalarType::Char, true),
            Error::InvalidArgument);  // residual is out
  AddQuant bad;
  bad.residual_scale = 0.0;
  EXPECT_EQ(run_with_residual(bad, shape), Error::InvalidArgument);
  bad = AddQuant{};
  bad.residual_zp = 128;
  EXPECT_EQ(run_with_residual(bad, shape), Error::InvalidArgument);
  bad = AddQuant{};
  bad.out_scale = std::numeric_limits<double>::infinity();
  EXPECT_EQ(run_with_residual(bad, shape), Error::InvalidArgument);
  bad = AddQuant{};
  bad.out_min = 5;
  bad.out_max = 4;
  EXPECT_EQ(run_with_residual(bad, shape), Error::InvalidArgument);
  Quant bad_conv;
  bad_conv.out_scale = -1.0;  // conv_scale
  EXPECT_EQ(run_with_residual(AddQuant{}, shape, ScalarType::Char, false, bad_conv),
            Error::InvalidArgument);
  bad_conv = Quant{};
  bad_conv.out_min = 100;  // conv_min > conv_max
  bad_conv.out_max = 99;
  EXPECT_EQ(run_with_residual(AddQuant{}, shape, ScalarType::Char, false, bad_conv),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
