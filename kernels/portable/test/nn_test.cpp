// Tests of convolution and the GEMM-based kernels (mm, addmm, bmm,
// linear). Expected values come from eager PyTorch 2.13 on CPU; each block
// names the torch expression. Larger cases (several K blocks, edge tiles)
// compare against a naive double-precision loop in the test.
#include <cstdint>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace {

using native::addmm_out;
using native::bmm_out;
using native::convolution_out;
using native::linear_out;
using native::mm_out;

// x = torch.arange(32.) * 0.25 - 3 reshaped [1, 2, 4, 4];
// w = torch.arange(54.) * 0.1 - 2 reshaped [3, 2, 3, 3]; b = [0.5, -1, 2].
struct Conv2dFixture {
  TestTensor x{ScalarType::Float, {1, 2, 4, 4}};
  TestTensor w{ScalarType::Float, {3, 2, 3, 3}};
  TestTensor b{ScalarType::Float, {3}};
  Conv2dFixture() {
    x.fill(arange(32, 0.25f, -3.0f));
    w.fill(arange(54, 0.1f, -2.0f));
    b.fill(std::vector<float>{0.5f, -1.0f, 2.0f});
  }
};

Error run_conv(TestTensor& x, TestTensor& w, TestTensor* b, std::vector<int64_t> stride,
               std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups,
               TestTensor& out, bool transposed = false) {
  Args a;
  a.t(x).t(w);
  if (b != nullptr) {
    a.t(*b);
  } else {
    a.none();
  }
  a.ints(stride).ints(padding).ints(dilation).b(transposed).ints({0}).i(groups).t(out);
  return a.run(convolution_out);
}

TEST(NnConvolution, Conv2dStridePaddingBias) {
  Conv2dFixture f;
  TestTensor out(ScalarType::Float, {1, 3, 4, 4});
  ASSERT_EQ(run_conv(f.x, f.w, &f.b, {1, 1}, {1, 1}, {1, 1}, 1, out), Error::Ok);
  // torch.ops.aten.convolution(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)
  expect_near_all(out.values<float>(),
                  {11.2f,   15.4f,   12.4f,   7.3f,    12.125f, 15.425f, 10.25f,  4.775f,
                   -1.075f, -5.275f, -10.45f, -9.625f, -7.9f,   -14.9f,  -18.8f,  -14.6f,
                   4.3f,    8.5f,    10.9f,   7.6f,    13.325f, 22.025f, 24.95f,  16.775f,
                   21.725f, 33.725f, 36.65f,  23.975f, 14.0f,   21.4f,   22.9f,   14.5f,
                   1.9f,    6.1f,    13.9f,   12.4f,   19.025f, 33.125f, 44.15f,  33.275f,
                   49.025f, 77.225f, 88.25f,  62.075f, 40.4f,   62.2f,   69.1f,   48.1f});
}

TEST(NnConvolution, Conv2dStride2ResizesOutput) {
  Conv2dFixture f;
  TestTensor out(ScalarType::Float, {1, 3, 4, 4});  // capacity; resized to [1, 3, 2, 2]
  ASSERT_EQ(run_conv(f.x, f.w, nullptr, {2, 2}, {1}, {1}, 1, out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 3, 2, 2}));
  // torch.ops.aten.convolution(x, w, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)
  expect_near_all(out.values<float>(), {10.7f, 11.9f, -1.575f, -10.95f, 5.3f, 11.9f, 22.725f,
                                        37.65f, -0.1f, 11.9f, 47.025f, 86.25f});
}

TEST(NnConvolution, Conv2dDilationChannelsLast) {
  Conv2dFixture f;
  TestTensor x_cl(ScalarType::Float, {1, 2, 4, 4}, {0, 2, 3, 1});
  x_cl.fill(f.x.values<float>());
  TestTensor out(ScalarType::Float, {1, 3, 4, 4}, {0, 2, 3, 1});
  ASSERT_EQ(run_conv(x_cl, f.w, &f.b, {1, 1}, {2, 2}, {2, 2}, 1, out), Error::Ok);
  // torch.ops.aten.convolution(x, w, b, [1, 1], [2, 2], [2, 2], False, [0, 0], 1)
  expect_near_all(out.values<float>(),
                  {7.1f,  5.2f,  6.9f,  4.8f,  -0.5f, -2.4f, -1.5f, -3.6f, 6.5f,  4.0f,
                   6.3f,  3.6f,  -3.5f, -6.0f, -4.5f, -7.2f, 9.2f,  10.9f, 9.0f,  10.5f,
                   16.0f, 17.7f, 15.0f, 16.5f, 8.6f,  9.7f,  8.4f,  9.3f,  13.0f, 14.1f,
                   12.0f, 12.9f, 15.8f, 21.1f, 15.6f, 20.7f, 37.0f, 42.3f, 36.0f, 41.1f,
                   15.2f, 19.9f, 15.0f, 19.5f, 34.0f, 38.7f, 33.0f, 37.5f});
}

TEST(NnConvolution, Depthwise) {
  Conv2dFixture f;
  TestTensor w(ScalarType::Float, {2, 1, 3, 3});
  w.fill(arange(18, 0.1f, -0.5f));
  TestTensor out(ScalarType::Float, {1, 2, 4, 4});
  ASSERT_EQ(run_conv(f.x, w, nullptr, {1, 1}, {1, 1}, {1, 1}, 2, out), Error::Ok);
  // torch.ops.aten.convolution(x, torch.arange(18.) * 0.1 - 0.5 reshaped [2, 1, 3, 3],
  //     None, [1, 1], [1, 1], [1, 1], False, [0, 0], 2)
  expect_near_all(out.values<float>(),
                  {-0.625f, -0.125f, -0.05f,  0.325f,  1.8f,    3.525f,  3.3f,   2.475f,
                   1.5f,    2.625f,  2.4f,    1.575f,  0.625f,  0.925f,  0.55f,  0.175f,
                   6.825f,  10.525f, 11.95f,  7.975f,  12.075f, 18.15f,  19.95f, 13.05f,
                   17.175f, 25.35f,  27.15f,  17.55f,  10.475f, 15.175f, 16.15f, 10.225f});
}

TEST(NnConvolution, Conv1d) {
  TestTensor x(ScalarType::Float, {1, 2, 5});
  x.fill(arange(10, 1.0f, -4.0f));
  TestTensor w(ScalarType::Float, {2, 2, 3});
  w.fill(arange(12, 0.5f, -3.0f));
  TestTensor b(ScalarType::Float, {2});
  b.fill(std::vector<float>{1.0f, -1.0f});
  TestTensor out(ScalarType::Float, {1, 2, 3});
  ASSERT_EQ(run_conv(x, w, &b, {2}, {1}, {1}, 1, out), Error::Ok);
  // torch.ops.aten.convolution(torch.arange(10.) - 4 reshaped [1, 2, 5],
  //     torch.arange(12.) * 0.5 - 3 reshaped [2, 2, 3], [1., -1.], [2], [1], [1], False, [0], 1)
  expect_near_all(out.values<float>(), {15, 9, -7, 1, 16, 15});
}

TEST(NnConvolution, TransposedScattersEachInputPixel) {
  TestTensor x(ScalarType::Float, {1, 1, 2, 2});
  x.fill(std::vector<float>{1, 2, 3, 4});
  TestTensor w(ScalarType::Float, {1, 2, 2, 2});  // [in, out, kh, kw]
  w.fill(std::vector<float>{1, 1, 1, 1, 1, 0, 0, -1});
  TestTensor b(ScalarType::Float, {2});
  b.fill(std::vector<float>{0.5f, 0.0f});
  TestTensor out(ScalarType::Float, {1, 2, 4, 4});
  ASSERT_EQ(run_conv(x, w, &b, {2, 2}, {0}, {1}, 1, out, /*transposed=*/true), Error::Ok);
  // Stride 2 with a 2x2 kernel: every input pixel owns one 2x2 output block.
  expect_near_all(out.values<float>(),
                  {1.5f, 1.5f, 2.5f, 2.5f, 1.5f, 1.5f, 2.5f, 2.5f,  //
                   3.5f, 3.5f, 4.5f, 4.5f, 3.5f, 3.5f, 4.5f, 4.5f,  //
                   1, 0, 2, 0, 0, -1, 0, -2,                        //
                   3, 0, 4, 0, 0, -3, 0, -4});
}

TEST(NnConvolution, Int8Wraps) {
  TestTensor x(ScalarType::Char, {1, 1, 4, 4});
  TestTensor w(ScalarType::Char, {1, 1, 2, 2});
  std::vector<int8_t> xs(16);
  for (int i = 0; i < 16; ++i) xs[i] = static_cast<int8_t>(i * 10);
  x.fill(xs);
  w.fill(std::vector<int8_t>{3, 3, 3, 3});
  TestTensor out(ScalarType::Char, {1, 1, 2, 2});
  ASSERT_EQ(run_conv(x, w, nullptr, {2, 2}, {0}, {1}, 1, out), Error::Ok);
  // torch.ops.aten.convolution(torch.arange(16, dtype=torch.int8).reshape(1, 1, 4, 4) * 10,
  //     torch.full((1, 1, 2, 2), 3, dtype=torch.int8), None, [2, 2], [0, 0], [1, 1], ...)
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{44, 28, -20, -36}));
}

// Many K blocks, edge tiles in M and N, padding: against a naive loop.
TEST(NnConvolution, LargeMatchesNaiveLoop) {
  const int cin = 40, cout = 7, h = 9, wd = 11, k = 3;  // K = 360 > one block
  TestTensor x(ScalarType::Float, {2, cin, h, wd});
  TestTensor w(ScalarType::Float, {cout, cin, k, k});
  TestTensor b(ScalarType::Float, {cout});
  std::vector<float> xs(2 * cin * h * wd), ws(cout * cin * k * k);
  for (size_t i = 0; i < xs.size(); ++i) xs[i] = static_cast<float>((i * 37) % 23) * 0.1f - 1.1f;
  for (size_t i = 0; i < ws.size(); ++i) ws[i] = static_cast<float>((i * 11) % 17) * 0.05f - 0.4f;
  x.fill(xs);
  w.fill(ws);
  b.fill(std::vector<float>{1, 2, 3, 4, 5, 6, 7});
  TestTensor out(ScalarType::Float, {2, cout, 5, 6});
  ASSERT_EQ(run_conv(x, w, &b, {2, 2}, {1, 1}, {1, 1}, 1, out), Error::Ok);
  std::vector<float> want;
  for (int n = 0; n < 2; ++n) {
    for (int co = 0; co < cout; ++co) {
      for (int oh = 0; oh < 5; ++oh) {
        for (int ow = 0; ow < 6; ++ow) {
          double s = co + 1;
          for (int ci = 0; ci < cin; ++ci) {
            for (int kh = 0; kh < k; ++kh) {
              for (int kw = 0; kw < k; ++kw) {
                const int ih = oh * 2 - 1 + kh, iw = ow * 2 - 1 + kw;
                if (ih < 0 || ih >= h || iw < 0 || iw >= wd) continue;
                s += static_cast<double>(xs[((n * cin + ci) * h + ih) * wd + iw]) *
                     ws[((co * cin + ci) * k + kh) * k + kw];
              }
            }
          }
          want.push_back(static_cast<float>(s));
        }
      }
    }
  }
  expect_near_all(out.values<float>(), want, 1e-5f);
}

TEST(NnConvolution, RejectsBadInput) {
  Conv2dFixture f;
  TestTensor out(ScalarType::Float, {1, 3, 4, 4});
  // Transposed: the weight [3, 2, 3, 3] reads as 3 input channels, but x has 2.
  EXPECT_EQ(run_conv(f.x, f.w, &f.b, {1, 1}, {1, 1}, {1, 1}, 1, out, /*transposed=*/true),
            Error::InvalidArgument);
  EXPECT_EQ(run_conv(f.x, f.w, &f.b, {1, 1}, {1, 1}, {1, 1}, 2, out), Error::InvalidArgument);
  EXPECT_EQ(run_conv(f.x, f.w, &f.b, {0, 1}, {1, 1}, {1, 1}, 1, out), Error::InvalidArgument);
  TestTensor tiny(ScalarType::Float, {1, 2, 1, 1});
  EXPECT_EQ(run_conv(tiny, f.w, &f.b, {1, 1}, {0, 0}, {1, 1}, 1, out), Error::InvalidArgument);
  TestTensor w64(ScalarType::Double, {3, 2, 3, 3});
  EXPECT_EQ(run_conv(f.x, w64, &f.b, {1, 1}, {1, 1}, {1, 1}, 1, out), Error::InvalidType);
}

// a = torch.arange(6.) - 2 reshaped [2, 3]; b = torch.arange(12.) * 0.5 - 1 reshaped [3, 4].
struct MatmulFixture {
  TestTensor a{ScalarType::Float, {2, 3}};
  TestTensor b{ScalarType::Float, {3, 4}};
  MatmulFixture() {
    a.fill(arange(6, 1.0f, -2.0f));
    b.fill(arange(12, 0.5f, -1.0f));
  }
};

TEST(NnMatmul, Mm) {
  MatmulFixture f;
  TestTensor out(ScalarType::Float, {2, 4});
  ASSERT_EQ(Args().t(f.a).t(f.b).t(out).run(mm_out), Error::Ok);
  // torch.mm(a, b)
  expect_near_all(out.values<float>(), {1, -0.5f, -2, -3.5f, 10, 13, 16, 19});
}

TEST(NnMatmul, MmTransposedOperandAndShapeError) {
  MatmulFixture f;
  TestTensor bt(ScalarType::Float, {3, 4}, {1, 0});  // column-major storage
  bt.fill(f.b.values<float>());
  TestTensor out(ScalarType::Float, {2, 4});
  ASSERT_EQ(Args().t(f.a).t(bt).t(out).run(mm_out), Error::Ok);
  expect_near_all(out.values<float>(), {1, -0.5f, -2, -3.5f, 10, 13, 16, 19});
  EXPECT_EQ(Args().t(f.a).t(f.a).t(out).run(mm_out), Error::InvalidArgument);
}

TEST(NnMatmul, AddmmBroadcastsSelf) {
  MatmulFixture f;
  TestTensor row(ScalarType::Float, {4});
  row.fill(std::vector<float>{1, 2, 3, 4});
  TestTensor out(ScalarType::Float, {2, 4});
  ASSERT_EQ(Args().t(row).t(f.a).t(f.b).d(0.5).d(2.0).t(out).run(addmm_out), Error::Ok);
  // torch.addmm(torch.tensor([1., 2, 3, 4]), a, b, beta=0.5, alpha=2)
  expect_near_all(out.values<float>(), {2.5f, 0, -2.5f, -5, 20.5f, 27, 33.5f, 40});
  TestTensor col(ScalarType::Float, {2, 1});
  col.fill(std::vector<float>{10, 20});
  ASSERT_EQ(Args().t(col).t(f.a).t(f.b).i(1).i(1).t(out).run(addmm_out), Error::Ok);
  // torch.addmm(torch.tensor([[10.], [20.]]), a, b)
  expect_near_all(out.values<float>(), {11, 9.5f, 8, 6.5f, 30, 33, 36, 39});
}

TEST(NnMatmul, AddmmBetaZeroIgnoresNan) {
  MatmulFixture f;
  TestTensor self(ScalarType::Float, {2, 4});
  self.fill(std::vector<float>(8, NAN));
  TestTensor out(ScalarType::Float, {2, 4});
  ASSERT_EQ(Args().t(self).t(f.a).t(f.b).i(0).i(1).t(out).run(addmm_out), Error::Ok);
  expect_near_all(out.values<float>(), {1, -0.5f, -2, -3.5f, 10, 13, 16, 19});
  TestTensor bad(ScalarType::Float, {3, 4});
  EXPECT_EQ(Args().t(bad).t(f.a).t(f.b).i(1).i(1).t(out).run(addmm_out), Error::InvalidArgument);
}

TEST(NnMatmul, Bmm) {
  TestTensor a(ScalarType::Float, {2, 2, 3});
  TestTensor b(ScalarType::Float, {2, 3, 2});
  a.fill(arange(12, 1.0f, -5.0f));
  b.fill(arange(12, 0.5f));
  TestTensor out(ScalarType::Float, {2, 2, 2});
  ASSERT_EQ(Args().t(a).t(b).t(out).run(bmm_out), Error::Ok);
  // torch.bmm(torch.arange(12.).reshape(2, 2, 3) - 5, torch.arange(12.).reshape(2, 3, 2) * 0.5)
  expect_near_all(out.values<float>(), {-10, -16, -1, -2.5f, 26, 29, 62, 69.5f});
}

TEST(NnMatmul, Linear3dAndVectorWeight) {
  TestTensor x(ScalarType::Float, {2, 2, 3});
  x.fill(arange(12, 1.0f, -6.0f));
  TestTensor w(ScalarType::Float, {4, 3});
  w.fill(arange(12, 0.25f, -1.0f));
  TestTensor b(ScalarType::Float, {4});
  b.fill(std::vector<float>{1, 0, -1, 2});
  TestTensor out(ScalarType::Float, {2, 2, 4});
  ASSERT_EQ(Args().t(x).t(w).t(b).t(out).run(linear_out), Error::Ok);
  // torch.nn.functional.linear(torch.arange(12.).reshape(2, 2, 3) - 6,
  //     torch.arange(12.).reshape(4, 3) * 0.25 - 1, torch.tensor([1., 0, -1, 2]))
  expect_near_all(out.values<float>(), {12.75f, 0.5f, -11.75f, -20, 6, 0.5f, -5, -6.5f, -0.75f,
                                        0.5f, 1.75f, 7, -7.5f, 0.5f, 8.5f, 20.5f});
  TestTensor v(ScalarType::Float, {3});
  v.fill(std::vector<float>{1, -1, 2});
  TestTensor out2(ScalarType::Float, {2, 2});
  ASSERT_EQ(Args().t(x).t(v).none().t(out2).run(linear_out), Error::Ok);
  expect_near_all(out2.values<float>(), {-9, -3, 3, 9});
  EXPECT_EQ(Args().t(x).t(b).none().t(out2).run(linear_out), Error::InvalidArgument);
}

TEST(NnMatmul, Int8Wraps) {
  TestTensor a(ScalarType::Char, {2, 2});
  TestTensor b(ScalarType::Char, {2, 2});
  a.fill(std::vector<int8_t>{100, 50, -128, 127});
  b.fill(std::vector<int8_t>{3, 1, 2, 2});
  TestTensor out(ScalarType::Char, {2, 2});
  ASSERT_EQ(Args().t(a).t(b).t(out).run(mm_out), Error::Ok);
  // torch.mm(torch.tensor([[100, 50], [-128, 127]], dtype=torch.int8), [[3, 1], [2, 2]])
  EXPECT_EQ(out.values<int8_t>(), (std::vector<int8_t>{-112, -56, 126, 126}));
}

// Half with K over one block: the partial-sum strip (temp allocator) and
// the per-block rounding fallback (no allocator) both stay close.
TEST(NnMatmul, HalfManyKBlocks) {
  const int m = 5, k = 700, n = 19;
  TestTensor a(ScalarType::Half, {m, k});
  TestTensor b(ScalarType::Half, {k, n});
  std::vector<Half> as(m * k), bs(k * n);
  std::vector<float> af(m * k), bf(k * n);
  for (int i = 0; i < m * k; ++i) af[i] = as[i] = static_cast<float>((i * 7) % 13) * 0.125f - 0.75f;
  for (int i = 0; i < k * n; ++i) bf[i] = bs[i] = static_cast<float>((i * 5) % 11) * 0.125f - 0.5f;
  a.fill(as);
  b.fill(bs);
  std::vector<float> want;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int p = 0; p < k; ++p) s += static_cast<double>(af[i * k + p]) * bf[p * n + j];
      want.push_back(static_cast<float>(Half(static_cast<float>(s))));
    }
  }
  for (bool with_temp : {true, false}) {
    TestTensor out(ScalarType::Half, {m, n});
    ASSERT_EQ(Args().t(a).t(b).t(out).run(mm_out, with_temp), Error::Ok);
    std::vector<float> got;
    for (Half h : out.values<Half>()) got.push_back(h);
    expect_near_all(got, want, with_temp ? 1e-3f : 4e-3f);
  }
}

}  // namespace
}  // namespace torchedge
