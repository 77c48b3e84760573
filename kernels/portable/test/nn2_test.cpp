// Tests of the second nn group (nn2_kernels.inc): any/all, bilinear
// upsampling, group norm, max/min.dim, prod, cumsum, sort, topk, scatter,
// adaptive max pooling and grid sampling. Expected values come from eager
// PyTorch 2.13 on CPU; each block names the torch expression. The Python
// harness (tests/ops/test_nn2_ops.py) covers every dtype and shape case.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/nn2_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

template <typename T>
std::vector<T> as(std::vector<T> v) {
  return v;
}

TEST(Nn2Truth, AnyAllAlongDimAndEverywhere) {
  TestTensor x(ScalarType::Float, {2, 3});
  x.fill(std::vector<float>{0, 1, -0.0f, 0, 0, kNan});
  TestTensor out(ScalarType::Bool, {2});
  ASSERT_EQ(Args().t(x).i(1).b(false).t(out).run(native::any_out), Error::Ok);
  EXPECT_EQ(out.values<bool>(), as<bool>({true, true}));  // torch.any(x, 1): NaN is true
  ASSERT_EQ(Args().t(x).i(-1).b(false).t(out).run(native::all_dim_out), Error::Ok);
  EXPECT_EQ(out.values<bool>(), as<bool>({false, false}));  // torch.all(x, 1)
  TestTensor all(ScalarType::Byte, {});  // an out= tensor may be uint8
  ASSERT_EQ(Args().t(x).t(all).run(native::any_all_out), Error::Ok);
  EXPECT_EQ(all.values<uint8_t>(), as<uint8_t>({1}));
  TestTensor empty(ScalarType::Float, {0, 2});
  TestTensor empty_out(ScalarType::Bool, {2});
  ASSERT_EQ(Args().t(empty).i(0).b(false).t(empty_out).run(native::all_dim_out), Error::Ok);
  EXPECT_EQ(empty_out.values<bool>(), as<bool>({true, true}));  // all of nothing
  TestTensor bad(ScalarType::Int, {2});
  EXPECT_EQ(Args().t(x).i(1).b(false).t(bad).run(native::any_out), Error::InvalidType);
}

TEST(Nn2Truth, DimsNoneReducesAllAndEmptyListNone) {
  TestTensor x(ScalarType::Long, {2, 2});
  x.fill(std::vector<int64_t>{0, 3, 0, 0});
  TestTensor all(ScalarType::Bool, {});
  ASSERT_EQ(Args().t(x).none().b(false).t(all).run(native::any_dims_out), Error::Ok);
  EXPECT_EQ(all.values<bool>(), as<bool>({true}));
  TestTensor same(ScalarType::Bool, {2, 2});  // torch.any(x, dim=()) keeps every dim
  ASSERT_EQ(Args().t(x).ints({}).b(false).t(same).run(native::any_dims_out), Error::Ok);
  EXPECT_EQ(same.values<bool>(), as<bool>({false, true, false, false}));
}

TEST(Nn2Upsample, BilinearScaleAndAlignCorners) {
  TestTensor x(ScalarType::Float, {1, 1, 2, 2});
  x.fill(std::vector<float>{1, 2, 3, 4});
  TestTensor out(ScalarType::Float, {1, 1, 4, 4});
  ASSERT_EQ(Args().t(x).none().b(false).doubles({2.0, 2.0}).t(out).run(
                native::upsample_bilinear2d_vec_out),
            Error::Ok);
  // F.interpolate(x, scale_factor=2, mode="bilinear")
  expect_near_all(out.values<float>(), {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f,
                                        2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
  TestTensor ac(ScalarType::Float, {1, 1, 3, 3});
  ASSERT_EQ(Args().t(x).ints({3, 3}).b(true).none().t(ac).run(native::upsample_bilinear2d_vec_out),
            Error::Ok);
  // F.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)
  expect_near_all(ac.values<float>(), {1, 1.5f, 2, 2, 2.5f, 3, 3, 3.5f, 4});
}

TEST(Nn2Upsample, BilinearFractionalScaleUsesOneOverScale) {
  TestTensor x(ScalarType::Float, {1, 1, 2, 3}, {0, 2, 3, 1});  // channels-last
  x.fill(arange(6));
  TestTensor out(ScalarType::Float, {1, 1, 3, 4});
  ASSERT_EQ(Args().t(x).none().b(false).doubles({1.5, 1.5}).t(out).run(
                native::upsample_bilinear2d_vec_out),
            Error::Ok);
  // F.interpolate(torch.arange(6.).reshape(1, 1, 2, 3), scale_factor=1.5, mode="bilinear")
  expect_near_all(out.values<float>(), {0, 0.5f, 1.1666667f, 1.8333334f, 1.5f, 2, 2.666667f,
                                        3.3333335f, 3, 3.5f, 4.1666665f, 4.8333335f});
}

TEST(Nn2Upsample, BilinearRejectsBadArguments) {
  TestTensor x3(ScalarType::Float, {1, 2, 2});
  TestTensor x(ScalarType::Float, {1, 1, 2, 2});
  TestTensor out(ScalarType::Float, {1, 1, 4, 4});
  EXPECT_EQ(Args().t(x3).ints({4, 4}).b(false).none().t(out).run(
                native::upsample_bilinear2d_vec_out),
            Error::InvalidArgument);  // not 4-d
  EXPECT_EQ(Args().t(x).ints({4, 4}).b(false).doubles({2, 2}).t(out).run(
                native::upsample_bilinear2d_vec_out),
            Error::InvalidArgument);  // both size and scales
  TestTensor ints(ScalarType::Int, {1, 1, 2, 2});
  TestTensor int_out(ScalarType::Int, {1, 1, 4, 4});
  EXPECT_EQ(Args().t(ints).ints({4, 4}).b(false).none().t(int_out).run(
                native::upsample_bilinear2d_vec_out),
            Error::InvalidType);
}

TEST(Nn2GroupNorm, NormalizesEachGroupWithAffine) {
  TestTensor x(ScalarType::Float, {1, 4, 4});
  x.fill(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 9, 0, 1, -1, 2, 2, 2, 2, 2});
  TestTensor w(ScalarType::Float, {4}), b(ScalarType::Float, {4});
  w.fill(std::vector<float>{1, 2, 1, 0.5f});
  b.fill(std::vector<float>{0, 1, 0, -1});
  TestTensor out(ScalarType::Float, {1, 4, 4}), mean(ScalarType::Float, {1, 2}),
      rstd(ScalarType::Float, {1, 2});
  ASSERT_EQ(Args().t(x).t(w).t(b).i(1).i(4).i(4).i(2).d(1e-5).t(out).t(mean).t(rstd).run(
                native::native_group_norm_out),
            Error::Ok);
  // torch.ops.aten.native_group_norm(x, w, b, 1, 4, 4, 2, 1e-5)
  expect_near_all(out.values<float>(),
                  {-1.4518148f, -1.0513141f, -0.6508136f, -0.2503129f, 1.3003755f, 2.1013765f,
                   2.9023778f, 4.5043802f, -1.1470737f, -0.2294147f, -2.0647328f, 0.6882443f,
                   -0.6558778f, -0.6558778f, -0.6558778f, -0.6558778f});
  expect_near_all(mean.values<float>(), {4.625f, 1.25f});
  expect_near_all(rstd.values<float>(), {0.4005006f, 0.9176590f});
  EXPECT_EQ(Args().t(x).t(w).t(b).i(1).i(4).i(4).i(3).d(1e-5).t(out).t(mean).t(rstd).run(
                native::native_group_norm_out),
            Error::InvalidArgument);  // 4 channels in 3 groups
}

TEST(Nn2Reduction, MaxMinDimNanAndTies) {
  TestTensor m(ScalarType::Float, {2, 4}, {1, 0});  // column-major storage
  m.fill(std::vector<float>{1, kNan, 3, 5, 2, 7, 7, 1});
  TestTensor values(ScalarType::Float, {2}), indices(ScalarType::Long, {2});
  ASSERT_EQ(Args().t(m).i(1).b(false).t(values).t(indices).run(native::max_dim_max), Error::Ok);
  // torch.max(m, 1): the NaN wins; the first of two 7s
  std::vector<float> v = values.values<float>();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 7);
  EXPECT_EQ(indices.values<int64_t>(), as<int64_t>({1, 1}));
  ASSERT_EQ(Args().t(m).i(1).b(false).t(values).t(indices).run(native::min_dim_min), Error::Ok);
  EXPECT_EQ(indices.values<int64_t>(), as<int64_t>({1, 3}));  // torch.min(m, 1)
  TestTensor empty(ScalarType::Float, {2, 0});
  EXPECT_EQ(Args().t(empty).i(1).b(false).t(values).t(indices).run(native::max_dim_max),
            Error::InvalidArgument);
}

TEST(Nn2Reduction, ProdAndCumsumOfInt8AccumulateInInt64) {
  TestTensor x(ScalarType::Char, {2, 3});
  x.fill(std::vector<int8_t>{100, 100, -3, 5, -2, 7});
  TestTensor prod(ScalarType::Long, {2});
  ASSERT_EQ(Args().t(x).i(1).b(false).none().t(prod).run(native::prod_int_out), Error::Ok);
  EXPECT_EQ(prod.values<int64_t>(), as<int64_t>({-30000, -70}));  // torch.prod(x, 1)
  TestTensor sums(ScalarType::Long, {2, 3});
  ASSERT_EQ(Args().t(x).i(1).none().t(sums).run(native::cumsum_out), Error::Ok);
  EXPECT_EQ(sums.values<int64_t>(), as<int64_t>({100, 200, 197, 5, 3, 10}));  // torch.cumsum(x, 1)
  EXPECT_EQ(Args().t(x).i(1).i(static_cast<int64_t>(ScalarType::Float)).t(sums).run(
                native::cumsum_out),
            Error::InvalidType);  // dtype does not match out
}

TEST(Nn2Sort, StableDescendingWithNan) {
  TestTensor s(ScalarType::Float, {5});
  s.fill(std::vector<float>{3, kNan, -1, 3, 0});
  TestTensor values(ScalarType::Float, {5}), indices(ScalarType::Long, {5});
  ASSERT_EQ(Args().t(s).b(true).i(0).b(true).t(values).t(indices).run(native::sort_values_stable),
            Error::Ok);
  // torch.sort(s, descending=True, stable=True)
  EXPECT_EQ(indices.values<int64_t>(), as<int64_t>({1, 0, 3, 4, 2}));
  std::vector<float> v = values.values<float>();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(std::vector<float>(v.begin() + 1, v.end()), as<float>({3, 3, 0, -1}));
}

TEST(Nn2Sort, TopkLargestSmallestAndBadK) {
  TestTensor x(ScalarType::Float, {5});
  x.fill(std::vector<float>{4, 9, -2, 7, 1});
  TestTensor values(ScalarType::Float, {3}), indices(ScalarType::Long, {3});
  ASSERT_EQ(Args().t(x).i(3).i(-1).b(true).b(true).t(values).t(indices).run(native::topk_values),
            Error::Ok);
  EXPECT_EQ(values.values<float>(), as<float>({9, 7, 4}));  // torch.topk(x, 3)
  EXPECT_EQ(indices.values<int64_t>(), as<int64_t>({1, 3, 0}));
  ASSERT_EQ(Args().t(x).i(2).i(0).b(false).b(true).t(values).t(indices).run(native::topk_values),
            Error::Ok);
  EXPECT_EQ(indices.values<int64_t>(), as<int64_t>({2, 4}));  // torch.topk(x, 2, largest=False)
  EXPECT_EQ(Args().t(x).i(6).i(0).b(true).b(true).t(values).t(indices).run(native::topk_values),
            Error::InvalidArgument);
}

TEST(Nn2Scatter, SrcAddValueAndBadIndex) {
  TestTensor self(ScalarType::Float, {2, 4});
  TestTensor index(ScalarType::Long, {2, 3});
  index.fill(std::vector<int64_t>{3, 0, 3, 1, 1, 2});
  TestTensor src(ScalarType::Float, {2, 3});
  src.fill(std::vector<float>{1, 2, 3, 4, 5, 6});
  TestTensor out(ScalarType::Float, {2, 4});
  ASSERT_EQ(Args().t(self).i(1).t(index).t(src).t(out).run(native::scatter_src_out), Error::Ok);
  // torch.zeros(2, 4).scatter(1, index, src): the last write wins
  EXPECT_EQ(out.values<float>(), as<float>({2, 0, 0, 3, 0, 5, 6, 0}));
  ASSERT_EQ(Args().t(self).i(1).t(index).t(src).t(out).run(native::scatter_add_out), Error::Ok);
  // torch.zeros(2, 4).scatter_add(1, index, src)
  EXPECT_EQ(out.values<float>(), as<float>({2, 0, 0, 4, 0, 9, 6, 0}));
  ASSERT_EQ(Args().t(self).i(1).t(index).d(7.0).t(out).run(native::scatter_value_out), Error::Ok);
  EXPECT_EQ(out.values<float>(), as<float>({7, 0, 0, 7, 0, 7, 7, 0}));  // .scatter(1, index, 7.)
  index.fill(std::vector<int64_t>{3, 0, 4, 1, 1, 2});
  EXPECT_EQ(Args().t(self).i(1).t(index).t(src).t(out).run(native::scatter_src_out),
            Error::InvalidArgument);  // 4 is out of range
  index.fill(std::vector<int64_t>{3, 0, -1, 1, 1, 2});
  EXPECT_EQ(Args().t(self).i(1).t(index).t(src).t(out).run(native::scatter_add_out),
            Error::InvalidArgument);  // ATen takes no negative index
}

TEST(Nn2Scatter, ReduceMeanFloorsAndNeedsScratch) {
  TestTensor self(ScalarType::Int, {3});
  self.fill(std::vector<int32_t>{5, -3, 4});
  TestTensor index(ScalarType::Long, {4});
  index.fill(std::vector<int64_t>{0, 0, 1, 0});
  TestTensor src(ScalarType::Int, {4});
  src.fill(std::vector<int32_t>{2, 2, 3, -9});
  TestTensor out(ScalarType::Int, {3});
  // Args has no string argument, so this call is boxed by hand.
  auto run = [&](const char* reduce, bool include_self, bool with_temp = true) {
    EValue values[] = {EValue(self.get()),  EValue(int64_t{0}),
                       EValue(index.get()), EValue(src.get()),
                       EValue(StringView{reduce, std::strlen(reduce)}),
                       EValue(include_self), EValue(out.get())};
    EValue* ptrs[7];
    for (int i = 0; i < 7; ++i) ptrs[i] = &values[i];
    std::vector<unsigned char> arena(1 << 12);
    MemoryAllocator temp(arena.data(), arena.size());
    KernelContext ctx(with_temp ? &temp : nullptr);
    return native::scatter_reduce_two_out(ctx, {ptrs, 7});
  };
  // self.scatter_reduce(0, index, src, reduce, include_self=...)
  ASSERT_EQ(run("mean", true), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), as<int32_t>({0, 0, 4}));
  ASSERT_EQ(run("mean", false), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), as<int32_t>({-2, 3, 4}));  // floor(-5 / 3)
  ASSERT_EQ(run("amax", false), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), as<int32_t>({2, 3, 4}));
  ASSERT_EQ(run("prod", true), Error::Ok);
  EXPECT_EQ(out.values<int32_t>(), as<int32_t>({-180, -9, 4}));
  EXPECT_EQ(run("mean", true, /*with_temp=*/false), Error::MemoryAllocationFailed);
  EXPECT_EQ(run("median", true), Error::InvalidArgument);
}

TEST(Nn2Pooling, AdaptiveMaxPoolWindowsAndIndices) {
  TestTensor x(ScalarType::Float, {1, 1, 4, 5});
  std::vector<float> v = arange(20);
  v[0] = 30;
  x.fill(v);
  TestTensor out(ScalarType::Float, {1, 1, 2, 3}), indices(ScalarType::Long, {1, 1, 2, 3});
  ASSERT_EQ(Args().t(x).ints({2, 3}).t(out).t(indices).run(native::adaptive_max_pool2d_out),
            Error::Ok);
  // F.adaptive_max_pool2d(x, (2, 3), return_indices=True)
  EXPECT_EQ(out.values<float>(), as<float>({30, 8, 9, 16, 18, 19}));
  EXPECT_EQ(indices.values<int64_t>(), as<int64_t>({0, 8, 9, 16, 18, 19}));
}

TEST(Nn2GridSample, BilinearAndNearestPaddingModes) {
  TestTensor x(ScalarType::Float, {1, 1, 2, 3});
  x.fill(arange(6));
  TestTensor grid(ScalarType::Float, {1, 1, 4, 2});
  grid.fill(std::vector<float>{-1, -1, 0, 0, 0.5f, 0.9f, 1.2f, 0});
  TestTensor out(ScalarType::Float, {1, 1, 1, 4});
  struct Case {
    int64_t mode, padding;
    bool align;
    std::vector<float> want;  // F.grid_sample(x, grid, mode, padding_mode, align_corners)
  };
  const Case cases[] = {
      {0, 0, false, {0, 2.5f, 2.85f, 0.7f}},     {0, 0, true, {0, 2.5f, 4.35f, 2.8f}},
      {0, 1, false, {0, 2.5f, 4.75f, 3.5f}},     {0, 2, true, {0, 2.5f, 4.35f, 3.3f}},
      {1, 0, false, {0, 1, 5, 0}},               {1, 2, false, {0, 1, 5, 2}},
  };
  for (const Case& c : cases) {
    ASSERT_EQ(Args().t(x).t(grid).i(c.mode).i(c.padding).b(c.align).t(out).run(
                  native::grid_sampler_2d_out),
              Error::Ok);
    expect_near_all(out.values<float>(), c.want, 1e-5f);
  }
  EXPECT_EQ(Args().t(x).t(grid).i(2).i(0).b(false).t(out).run(native::grid_sampler_2d_out),
            Error::NotSupported);  // bicubic
}

}  // namespace
}  // namespace torchedge
