// Tests of the third nn group (nn3_kernels.inc): reflection/replication
// padding, select/slice scatter, diagonal, 3-d pooling, cdist/pdist, masked
// scatter, training-mode batch norm, col2im and copy, plus the layer-norm
// and mean dtype fixes. Expected values come from eager PyTorch 2.13 on CPU; each
// block names the torch expression. The Python harness
// (tests/ops/op_table_nn3.py) covers every dtype and shape case.
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/nn3_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

template <typename T>
std::vector<T> as(std::vector<T> v) {
  return v;
}

TEST(Nn3Pad, Reflection1dAndNegativeCrop) {
  TestTensor x(ScalarType::Float, {1, 5});
  x.fill(arange(5));
  TestTensor out(ScalarType::Float, {1, 8});
  ASSERT_EQ(Args().t(x).ints({2, 1}).t(out).run(native::reflection_pad1d_out), Error::Ok);
  // aten.reflection_pad1d(arange(5.).reshape(1, 5), [2, 1])
  EXPECT_EQ(out.values<float>(), as<float>({2, 1, 0, 1, 2, 3, 4, 3}));
  ASSERT_EQ(Args().t(x).ints({-1, 2}).t(out).run(native::reflection_pad1d_out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 6}));
  EXPECT_EQ(out.values<float>(), as<float>({1, 2, 3, 4, 3, 2}));  // [-1, 2]
}

TEST(Nn3Pad, ReflectionErrors) {
  TestTensor x(ScalarType::Float, {1, 5});
  TestTensor out(ScalarType::Float, {1, 16});
  // eager: "Padding size should be less than the corresponding input dimension"
  EXPECT_EQ(Args().t(x).ints({5, 0}).t(out).run(native::reflection_pad1d_out),
            Error::InvalidArgument);
  EXPECT_EQ(Args().t(x).ints({-3, -3}).t(out).run(native::reflection_pad1d_out),
            Error::InvalidArgument);  // output width -1
  EXPECT_EQ(Args().t(x).ints({1, 1, 1}).t(out).run(native::reflection_pad1d_out),
            Error::InvalidArgument);  // padding must have 2 values
  TestTensor flat(ScalarType::Float, {5});
  EXPECT_EQ(Args().t(flat).ints({1, 1}).t(out).run(native::reflection_pad1d_out),
            Error::InvalidArgument);  // 2-d or 3-d input
  TestTensor empty_channels(ScalarType::Float, {0, 5});
  EXPECT_EQ(Args().t(empty_channels).ints({1, 1}).t(out).run(native::reflection_pad1d_out),
            Error::InvalidArgument);  // only the batch dim may be empty
  TestTensor b(ScalarType::Bool, {1, 5});
  TestTensor bout(ScalarType::Bool, {1, 7});
  EXPECT_EQ(Args().t(b).ints({1, 1}).t(bout).run(native::reflection_pad1d_out),
            Error::InvalidType);  // eager has no bool kernel
}

TEST(Nn3Pad, Reflection2dAnd3d) {
  TestTensor x(ScalarType::Float, {1, 3, 3});
  x.fill(arange(9));
  TestTensor out(ScalarType::Float, {1, 4, 5});
  ASSERT_EQ(Args().t(x).ints({1, 1, 1, 0}).t(out).run(native::reflection_pad2d_out), Error::Ok);
  // aten.reflection_pad2d(arange(9.).reshape(1, 3, 3), [1, 1, 1, 0])
  EXPECT_EQ(out.values<float>(), as<float>({4, 3, 4, 5, 4, 1, 0, 1, 2, 1, 4, 3, 4, 5, 4, 7, 6,
                                            7, 8, 7}));
  TestTensor v(ScalarType::Float, {1, 2, 2, 2});
  v.fill(arange(8));
  TestTensor vout(ScalarType::Float, {1, 3, 2, 3});
  ASSERT_EQ(Args().t(v).ints({1, 0, 0, 0, 0, 1}).t(vout).run(native::reflection_pad3d_out),
            Error::Ok);
  // aten.reflection_pad3d(arange(8.).reshape(1, 2, 2, 2), [1, 0, 0, 0, 0, 1])
  EXPECT_EQ(vout.values<float>(), as<float>({1, 0, 1, 3, 2, 3, 5, 4, 5, 7, 6, 7, 1, 0, 1, 3, 2,
                                             3}));
}

TEST(Nn3Pad, ReplicationAllRanksAndChannelsLast) {
  TestTensor x(ScalarType::Long, {1, 3});
  x.fill(std::vector<int64_t>{1, 2, 3});
  TestTensor out(ScalarType::Long, {1, 4});
  ASSERT_EQ(Args().t(x).ints({2, -1}).t(out).run(native::replication_pad1d_out), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), as<int64_t>({1, 1, 1, 2}));  // replication_pad1d([2, -1])
  TestTensor p(ScalarType::Float, {1, 1, 2, 2}, {0, 2, 3, 1});  // channels-last
  p.fill(std::vector<float>{1, 2, 3, 4});
  TestTensor pout(ScalarType::Float, {1, 1, 3, 3}, {0, 2, 3, 1});
  ASSERT_EQ(Args().t(p).ints({1, 0, 0, 1}).t(pout).run(native::replication_pad2d_out), Error::Ok);
  // aten.replication_pad2d(tensor([[[[1., 2], [3, 4]]]]), [1, 0, 0, 1])
  EXPECT_EQ(pout.values<float>(), as<float>({1, 1, 2, 3, 3, 4, 3, 3, 4}));
  TestTensor v(ScalarType::Char, {1, 1, 1, 2});
  v.fill(std::vector<int8_t>{5, 6});
  TestTensor vout(ScalarType::Char, {1, 1, 2, 3});
  ASSERT_EQ(Args().t(v).ints({0, 1, 1, 0, 0, 0}).t(vout).run(native::replication_pad3d_out),
            Error::Ok);
  EXPECT_EQ(vout.values<int8_t>(), as<int8_t>({5, 6, 6, 5, 6, 6}));  // replication_pad3d
  TestTensor big(ScalarType::Long, {1, 12});  // pads past the size are fine here
  ASSERT_EQ(Args().t(x).ints({7, 0}).t(big).run(native::replication_pad1d_out), Error::Ok);
  EXPECT_EQ(big.shape(), (std::vector<int32_t>{1, 10}));
  EXPECT_EQ(Args().t(x).ints({-2, -2}).t(big).run(native::replication_pad1d_out),
            Error::InvalidArgument);  // eager: "input (W: 3) is too small"
}

TEST(Nn3Scatter, SelectScatterConvertsSrcAndChecksShape) {
  TestTensor x(ScalarType::Float, {2, 3});
  TestTensor src(ScalarType::Int, {2});
  src.fill(std::vector<int32_t>{7, 8});
  TestTensor out(ScalarType::Float, {2, 3});
  ASSERT_EQ(Args().t(x).t(src).i(1).i(-1).t(out).run(native::select_scatter_out), Error::Ok);
  // torch.select_scatter(zeros(2, 3), tensor([7, 8], dtype=int32), 1, -1)
  EXPECT_EQ(out.values<float>(), as<float>({0, 0, 7, 0, 0, 8}));
  EXPECT_EQ(Args().t(x).t(src).i(1).i(3).t(out).run(native::select_scatter_out),
            Error::InvalidArgument);  // index 3 out of range
  EXPECT_EQ(Args().t(x).t(src).i(2).i(0).t(out).run(native::select_scatter_out),
            Error::InvalidArgument);  // dim 2 out of range
  TestTensor wrong(ScalarType::Int, {3});
  EXPECT_EQ(Args().t(x).t(wrong).i(1).i(0).t(out).run(native::select_scatter_out),
            Error::InvalidArgument);  // src must be [2]
  TestTensor scalar(ScalarType::Float, {});
  EXPECT_EQ(Args().t(scalar).t(scalar).i(0).i(0).t(scalar).run(native::select_scatter_out),
            Error::InvalidArgument);  // select() of a 0-d tensor
}

TEST(Nn3Scatter, SliceScatterStepAndErrors) {
  TestTensor x(ScalarType::Int, {2, 5});
  TestTensor src(ScalarType::Int, {2, 2});
  src.fill(std::vector<int32_t>{1, 2, 3, 4});
  TestTensor out(ScalarType::Int, {2, 5});
  ASSERT_EQ(Args().t(x).t(src).i(1).i(1).none().i(3).t(out).run(native::slice_scatter_out),
            Error::Ok);
  // torch.slice_scatter(zeros(2, 5, dtype=int32), src, 1, 1, None, 3)
  EXPECT_EQ(out.values<int32_t>(), as<int32_t>({0, 1, 0, 0, 2, 0, 3, 0, 0, 4}));
  EXPECT_EQ(Args().t(x).t(src).i(1).i(0).none().i(0).t(out).run(native::slice_scatter_out),
            Error::InvalidArgument);  // step must be positive
  EXPECT_EQ(Args().t(x).t(src).i(1).i(0).none().i(1).t(out).run(native::slice_scatter_out),
            Error::InvalidArgument);  // src [2, 2] vs slice [2, 5]
  EXPECT_EQ(Args().t(x).t(src).i(-3).i(0).none().i(1).t(out).run(native::slice_scatter_out),
            Error::InvalidArgument);  // dim -3 out of range
}

TEST(Nn3Scatter, DiagonalOffsetsAndDims) {
  TestTensor x(ScalarType::Float, {3, 4});
  x.fill(arange(12));
  TestTensor out(ScalarType::Float, {4});
  ASSERT_EQ(Args().t(x).i(1).i(0).i(1).t(out).run(native::diagonal_copy_out), Error::Ok);
  EXPECT_EQ(out.values<float>(), as<float>({1, 6, 11}));  // torch.diagonal(x, 1)
  ASSERT_EQ(Args().t(x).i(5).i(0).i(1).t(out).run(native::diagonal_copy_out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{0}));  // offset past the matrix
  TestTensor b(ScalarType::Float, {2, 3, 4});
  b.fill(arange(24));
  TestTensor bout(ScalarType::Float, {2, 2});
  ASSERT_EQ(Args().t(b).i(-1).i(1).i(2).t(bout).run(native::diagonal_copy_out), Error::Ok);
  // torch.diagonal(arange(24.).reshape(2, 3, 4), -1, 1, 2)
  EXPECT_EQ(bout.values<float>(), as<float>({4, 9, 16, 21}));
  EXPECT_EQ(Args().t(x).i(0).i(1).i(-1).t(out).run(native::diagonal_copy_out),
            Error::InvalidArgument);  // identical dims
  TestTensor v(ScalarType::Float, {3});
  EXPECT_EQ(Args().t(v).i(0).i(0).i(1).t(out).run(native::diagonal_copy_out),
            Error::InvalidArgument);  // rank 1
}

TEST(Nn3Pool, AvgPool3dPaddingModes) {
  TestTensor x(ScalarType::Float, {1, 1, 2, 2, 4});
  x.fill(arange(16));
  TestTensor out(ScalarType::Float, {1, 1, 2, 2, 3});
  ASSERT_EQ(Args().t(x).ints({2}).ints({}).ints({0}).b(false).b(true).none().t(out).run(
                native::avg_pool3d_out),
            Error::Ok);
  expect_near_all(out.values<float>(), {6.5f, 8.5f});  // F.avg_pool3d(x, 2)
  ASSERT_EQ(Args().t(x).ints({1, 2, 2}).ints({1, 2, 2}).ints({0, 1, 1}).b(false).b(false).none()
                .t(out).run(native::avg_pool3d_out),
            Error::Ok);
  // F.avg_pool3d(x, (1, 2, 2), (1, 2, 2), (0, 1, 1), count_include_pad=False)
  expect_near_all(out.values<float>(), {0, 1.5f, 3, 4, 5.5f, 7, 8, 9.5f, 11, 12, 13.5f, 15});
  ASSERT_EQ(Args().t(x).ints({1, 2, 2}).ints({1, 2, 2}).ints({0, 1, 1}).b(false).b(true).none()
                .t(out).run(native::avg_pool3d_out),
            Error::Ok);
  expect_near_all(out.values<float>(),  // ... count_include_pad=True
                  {0, 0.75f, 0.75f, 1, 2.75f, 1.75f, 2, 4.75f, 2.75f, 3, 6.75f, 3.75f});
  EXPECT_EQ(Args().t(x).ints({2}).ints({}).ints({2}).b(false).b(true).none().t(out).run(
                native::avg_pool3d_out),
            Error::InvalidArgument);  // pad over half the kernel
  EXPECT_EQ(Args().t(x).ints({2, 2}).ints({}).ints({0}).b(false).b(true).none().t(out).run(
                native::avg_pool3d_out),
            Error::InvalidArgument);  // kernel_size needs 1 or 3 values
}

TEST(Nn3Pool, MaxPool3dIndicesAndAdaptive) {
  TestTensor x(ScalarType::Float, {1, 2, 2, 2});  // unbatched [C, D, H, W]
  x.fill(std::vector<float>{1, 5, 3, 5, 2, 0, 4, 6});
  TestTensor out(ScalarType::Float, {1, 1, 1, 2});
  TestTensor idx(ScalarType::Long, {1, 1, 1, 2});
  ASSERT_EQ(Args().t(x).ints({2, 2, 1}).ints({}).ints({0}).ints({1}).b(false).t(out).t(idx).run(
                native::max_pool3d_with_indices_out),
            Error::Ok);
  // F.max_pool3d(x, (2, 2, 1), return_indices=True)
  EXPECT_EQ(out.values<float>(), as<float>({4, 6}));
  EXPECT_EQ(idx.values<int64_t>(), as<int64_t>({6, 7}));
  TestTensor bad_idx(ScalarType::Int, {1, 1, 1, 2});
  EXPECT_EQ(Args().t(x).ints({2, 2, 1}).ints({}).ints({0}).ints({1}).b(false).t(out).t(bad_idx)
                .run(native::max_pool3d_with_indices_out),
            Error::InvalidType);
  TestTensor a(ScalarType::Float, {1, 1, 3, 2, 2});
  a.fill(arange(12));
  TestTensor aout(ScalarType::Float, {1, 1, 2, 1, 1});
  ASSERT_EQ(Args().t(a).ints({2, 1, 1}).t(aout).run(native::adaptive_avg_pool3d_out), Error::Ok);
  // F.adaptive_avg_pool3d(arange(12.).reshape(1, 1, 3, 2, 2), (2, 1, 1)): depth windows 0-1, 1-2
  expect_near_all(aout.values<float>(), {3.5f, 7.5f});
  EXPECT_EQ(Args().t(a).ints({2, 1}).t(aout).run(native::adaptive_avg_pool3d_out),
            Error::InvalidArgument);
}

TEST(Nn3Distance, CdistNormsAndPdist) {
  TestTensor x1(ScalarType::Float, {2, 2});
  x1.fill(std::vector<float>{0, 0, 1, 1});
  TestTensor x2(ScalarType::Float, {3, 2});
  x2.fill(std::vector<float>{3, 4, 1, 0, 1, 1});
  TestTensor out(ScalarType::Float, {2, 3});
  const double inf = std::numeric_limits<double>::infinity();
  struct Case {
    double p;
    std::vector<float> want;  // torch.cdist(x1, x2, p)
  } cases[] = {{2, {5, 1, 1.4142135f, 3.6055512f, 1, 0}},
               {1, {7, 1, 2, 5, 1, 0}},
               {inf, {4, 1, 1, 3, 1, 0}},
               {0, {2, 1, 2, 2, 1, 0}}};
  for (const Case& c : cases) {
    ASSERT_EQ(Args().t(x1).t(x2).d(c.p).none().t(out).run(native::cdist_forward_out), Error::Ok);
    expect_near_all(out.values<float>(), c.want);
  }
  EXPECT_EQ(Args().t(x1).t(x2).d(-1).none().t(out).run(native::cdist_forward_out),
            Error::InvalidArgument);  // p < 0
  EXPECT_EQ(Args().t(x1).t(x2).d(2).i(3).t(out).run(native::cdist_forward_out),
            Error::InvalidArgument);  // compute_mode 3
  TestTensor p(ScalarType::Double, {3, 2});
  p.fill(std::vector<double>{0, 0, 3, 4, 6, 8});
  TestTensor pout(ScalarType::Double, {3});
  ASSERT_EQ(Args().t(p).d(2).t(pout).run(native::pdist_forward_out), Error::Ok);
  EXPECT_EQ(pout.values<double>(), as<double>({5, 10, 5}));  // F.pdist(p)
  ASSERT_EQ(Args().t(p).d(1).t(pout).run(native::pdist_forward_out), Error::Ok);
  EXPECT_EQ(pout.values<double>(), as<double>({7, 14, 7}));  // F.pdist(p, 1)
  TestTensor cube(ScalarType::Double, {2, 2, 2});
  EXPECT_EQ(Args().t(cube).d(2).t(pout).run(native::pdist_forward_out), Error::InvalidArgument);
}

TEST(Nn3Masked, MaskedScatterBroadcastsAndCountsSource) {
  TestTensor x(ScalarType::Float, {2, 3});
  TestTensor mask(ScalarType::Bool, {3});
  mask.fill(std::vector<bool>{true, false, true});
  TestTensor src(ScalarType::Float, {2, 2});
  src.fill(std::vector<float>{1, 2, 3, 4});
  TestTensor out(ScalarType::Float, {2, 3});
  ASSERT_EQ(Args().t(x).t(mask).t(src).t(out).run(native::masked_scatter_out), Error::Ok);
  // zeros(2, 3).masked_scatter(tensor([True, False, True]), tensor([[1., 2], [3, 4]]))
  EXPECT_EQ(out.values<float>(), as<float>({1, 0, 2, 3, 0, 4}));
  TestTensor short_src(ScalarType::Float, {3});
  EXPECT_EQ(Args().t(x).t(mask).t(short_src).t(out).run(native::masked_scatter_out),
            Error::InvalidArgument);  // 4 trues, 3 source elements
  TestTensor byte_mask(ScalarType::Byte, {3});
  EXPECT_EQ(Args().t(x).t(byte_mask).t(src).t(out).run(native::masked_scatter_out),
            Error::InvalidType);  // eager: only boolean masks
}

TEST(Nn3Norm, BatchNormTrainingStatistics) {
  TestTensor x(ScalarType::Float, {2, 2});
  x.fill(std::vector<float>{1, 2, 3, 6});
  TestTensor w(ScalarType::Float, {2});
  w.fill(std::vector<float>{2, 1});
  TestTensor b(ScalarType::Float, {2});
  b.fill(std::vector<float>{0, 1});
  TestTensor out(ScalarType::Float, {2, 2});
  TestTensor mean(ScalarType::Float, {2});
  TestTensor invstd(ScalarType::Float, {2});
  ASSERT_EQ(Args().t(x).t(w).t(b).b(true).d(0.1).d(0.0).t(out).t(mean).t(invstd).run(
                native::native_batch_norm_legit_no_stats_out),
            Error::Ok);
  // aten._native_batch_norm_legit.no_stats(x, w, b, True, 0.1, 0.0)
  expect_near_all(out.values<float>(), {-2, 0, 2, 2});
  expect_near_all(mean.values<float>(), {2, 4});
  expect_near_all(invstd.values<float>(), {1, 0.5f});
  EXPECT_EQ(Args().t(x).t(w).t(b).b(false).d(0.1).d(0.0).t(out).t(mean).t(invstd).run(
                native::native_batch_norm_legit_no_stats_out),
            Error::InvalidArgument);  // no running statistics to use
  TestTensor empty(ScalarType::Float, {0, 2});
  EXPECT_EQ(Args().t(empty).none().none().b(true).d(0.1).d(0.0).t(out).t(mean).t(invstd).run(
                native::native_batch_norm_legit_no_stats_out),
            Error::InvalidArgument);
}

TEST(Nn3Fixes, LayerNormHalfInputFloatParamsHalfStats) {
  TestTensor x(ScalarType::Half, {1, 4});
  x.fill(std::vector<Half>{Half(1.0f), Half(2.0f), Half(3.0f), Half(4.0f)});
  TestTensor w(ScalarType::Float, {4});
  w.fill(std::vector<float>{1, 1, 1, 1});
  TestTensor b(ScalarType::Float, {4});
  TestTensor out(ScalarType::Half, {1, 4});
  TestTensor mean(ScalarType::Half, {1, 1});  // what export declares (eager: float32)
  TestTensor rstd(ScalarType::Half, {1, 1});
  ASSERT_EQ(Args().t(x).ints({4}).t(w).t(b).d(1e-5).t(out).t(mean).t(rstd).run(
                native::native_layer_norm_out),
            Error::Ok);
  std::vector<float> got;
  for (Half h : out.values<Half>()) got.push_back(h);
  // aten.native_layer_norm(x.half(), [4], ones(4), zeros(4), 1e-5)
  expect_near_all(got, {-1.341796875f, -0.447265625f, 0.447265625f, 1.341796875f}, 1e-3f);
  EXPECT_NEAR(static_cast<float>(mean.values<Half>()[0]), 2.5f, 1e-3f);
  EXPECT_NEAR(static_cast<float>(rstd.values<Half>()[0]), 0.8944f, 1e-3f);
  TestTensor wrong(ScalarType::Double, {1, 1});
  EXPECT_EQ(Args().t(x).ints({4}).t(w).t(b).d(1e-5).t(out).t(wrong).t(rstd).run(
                native::native_layer_norm_out),
            Error::InvalidType);
}

TEST(Nn3Fixes, MeanOfInt32ExtremesConvertsFirst) {
  TestTensor x(ScalarType::Int, {7});
  x.fill(std::vector<int32_t>{2147483647, -2147483647 - 1, 2147483646, -2147483647, 1, -1, 0});
  TestTensor out(ScalarType::Float, {});
  ASSERT_EQ(Args().t(x).none().b(false).i(static_cast<int64_t>(ScalarType::Float)).t(out).run(
                native::mean_out),
            Error::Ok);
  // torch.mean(x, dtype=torch.float32) is 0.0 (each value rounds to +-2^31
  // first); the exact mean would be -2/7.
  EXPECT_EQ(out.values<float>(), as<float>({0.0f}));
}

TEST(Nn3Fold, Col2imSumsOverlapsAndDropsPadding) {
  TestTensor x(ScalarType::Float, {4, 2});  // unbatched: C * 2 * 2 columns, 2 blocks
  x.fill(arange(8));
  TestTensor out(ScalarType::Float, {1, 2, 3});
  ASSERT_EQ(Args().t(x).ints({2, 3}).ints({2, 2}).ints({1}).ints({0}).ints({1}).t(out).run(
                native::col2im_out),
            Error::Ok);
  // aten.col2im(arange(8.).reshape(4, 2), [2, 3], [2, 2], [1, 1], [0, 0], [1, 1])
  EXPECT_EQ(out.values<float>(), as<float>({0, 3, 3, 4, 11, 7}));
  TestTensor p(ScalarType::Float, {4, 4});
  p.fill(arange(16));
  TestTensor pout(ScalarType::Float, {1, 2, 2});
  ASSERT_EQ(Args().t(p).ints({2, 2}).ints({2, 2}).ints({1}).ints({1}).ints({2}).t(pout).run(
                native::col2im_out),
            Error::Ok);
  EXPECT_EQ(pout.values<float>(), as<float>({12, 9, 6, 3}));  // padding 1, stride 2
  TestTensor bad(ScalarType::Float, {3, 2});  // 3 columns: not a multiple of 2 * 2
  EXPECT_EQ(Args().t(bad).ints({2, 3}).ints({2, 2}).ints({1}).ints({0}).ints({1}).t(out).run(
                native::col2im_out),
            Error::InvalidArgument);
  EXPECT_EQ(Args().t(x).ints({3, 3}).ints({2, 2}).ints({1}).ints({0}).ints({1}).t(out).run(
                native::col2im_out),
            Error::InvalidArgument);  // 3 x 3 output needs 4 blocks, input has 2
}

TEST(Nn3Copy, BroadcastsAndConverts) {
  TestTensor self(ScalarType::Byte, {2, 2});
  TestTensor src(ScalarType::Float, {2});
  src.fill(std::vector<float>{300.7f, -1.5f});
  TestTensor out(ScalarType::Byte, {2, 2});
  ASSERT_EQ(Args().t(self).t(src).b(false).t(out).run(native::copy_out), Error::Ok);
  // aten.copy(zeros(2, 2, dtype=uint8), tensor([300.7, -1.5]))
  EXPECT_EQ(out.values<uint8_t>(), as<uint8_t>({44, 255, 44, 255}));
  TestTensor wide(ScalarType::Float, {3});
  EXPECT_EQ(Args().t(self).t(wide).b(false).t(out).run(native::copy_out),
            Error::InvalidArgument);  // 3 does not broadcast to 2
  TestTensor bigger(ScalarType::Float, {2, 2, 2});
  EXPECT_EQ(Args().t(self).t(bigger).b(false).t(out).run(native::copy_out),
            Error::InvalidArgument);  // src may not grow self
}

}  // namespace
}  // namespace torchedge
