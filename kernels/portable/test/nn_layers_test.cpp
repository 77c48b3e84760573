// Tests of the normalization, pooling, embedding, padding and upsampling
// kernels. Expected values come from eager PyTorch 2.13 on CPU; each block
// names the torch expression that produced them.
#include <cstdint>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace {

using native::adaptive_avg_pool2d_out;
using native::avg_pool2d_out;
using native::constant_pad_nd_out;
using native::embedding_out;
using native::max_pool2d_with_indices_out;
using native::native_batch_norm_legit_no_training_out;
using native::native_batch_norm_out;
using native::native_layer_norm_out;
using native::upsample_nearest2d_out;
using native::upsample_nearest2d_vec_out;

// x = torch.arange(24.) * 0.3 - 3 reshaped [2, 3, 2, 2]; weight [1, 2, 0.5],
// bias [0, 1, -1], running_mean [0.5, -1, 2], running_var [1, 4, 0.25], eps 1e-5.
struct BatchNormFixture {
  TestTensor x{ScalarType::Float, {2, 3, 2, 2}};
  TestTensor w{ScalarType::Float, {3}}, b{ScalarType::Float, {3}};
  TestTensor mean{ScalarType::Float, {3}}, var{ScalarType::Float, {3}};
  TestTensor out{ScalarType::Float, {2, 3, 2, 2}};
  TestTensor save_mean{ScalarType::Float, {3}}, save_invstd{ScalarType::Float, {3}};
  BatchNormFixture() {
    x.fill(arange(24, 0.3f, -3.0f));
    w.fill(std::vector<float>{1, 2, 0.5f});
    b.fill(std::vector<float>{0, 1, -1});
    mean.fill(std::vector<float>{0.5f, -1, 2});
    var.fill(std::vector<float>{1, 4, 0.25f});
  }
};

const std::vector<float> kBatchNormWant = {
    -3.499982f, -3.199984f, -2.899986f,    -2.599987f, 0.200001f,  0.5000006f,
    0.8000003f, 1.1f,       -3.599948f,    -3.299954f, -2.99996f,  -2.699966f,
    0.09999964f, 0.3999981f, 0.6999968f,   0.999995f,  3.799997f,  4.099997f,
    4.399996f,  4.699996f,  -2.002716e-05f, 0.2999741f, 0.5999683f, 0.8999621f};

TEST(NnBatchNorm, LegitNoTraining) {
  BatchNormFixture f;
  ASSERT_EQ(Args()
                .t(f.x).t(f.w).t(f.b).t(f.mean).t(f.var).d(0.1).d(1e-5)
                .t(f.out).t(f.save_mean).t(f.save_invstd)
                .run(native_batch_norm_legit_no_training_out),
            Error::Ok);
  // torch.ops.aten._native_batch_norm_legit_no_training(x, w, b, mean, var, 0.1, 1e-5)
  expect_near_all(f.out.values<float>(), kBatchNormWant, 2e-5f);
  EXPECT_EQ(f.save_mean.shape(), (std::vector<int32_t>{0}));
  EXPECT_EQ(f.save_invstd.shape(), (std::vector<int32_t>{0}));
}

TEST(NnBatchNorm, ChannelsLastAndNativeBatchNorm) {
  BatchNormFixture f;
  TestTensor x_cl(ScalarType::Float, {2, 3, 2, 2}, {0, 2, 3, 1});
  x_cl.fill(f.x.values<float>());
  TestTensor out_cl(ScalarType::Float, {2, 3, 2, 2}, {0, 2, 3, 1});
  ASSERT_EQ(Args()
                .t(x_cl).t(f.w).t(f.b).t(f.mean).t(f.var).b(false).d(0.1).d(1e-5)
                .t(out_cl).t(f.save_mean).t(f.save_invstd)
                .run(native_batch_norm_out),
            Error::Ok);
  expect_near_all(out_cl.values<float>(), kBatchNormWant, 2e-5f);
  EXPECT_EQ(Args()
                .t(x_cl).t(f.w).t(f.b).t(f.mean).t(f.var).b(true).d(0.1).d(1e-5)
                .t(out_cl).t(f.save_mean).t(f.save_invstd)
                .run(native_batch_norm_out),
            Error::NotSupported);
}

TEST(NnBatchNorm, RejectsWrongParameterSize) {
  BatchNormFixture f;
  TestTensor short_mean(ScalarType::Float, {2});
  EXPECT_EQ(Args()
                .t(f.x).t(f.w).t(f.b).t(short_mean).t(f.var).d(0.1).d(1e-5)
                .t(f.out).t(f.save_mean).t(f.save_invstd)
                .run(native_batch_norm_legit_no_training_out),
            Error::InvalidArgument);
}

// x = torch.arange(12.) * 0.5 - 2 reshaped [2, 2, 3], x[1, 1, 2] = 7.
TEST(NnLayerNorm, LastDimAffine) {
  TestTensor x(ScalarType::Float, {2, 2, 3});
  std::vector<float> xs = arange(12, 0.5f, -2.0f);
  xs[11] = 7;
  x.fill(xs);
  TestTensor w(ScalarType::Float, {3}), b(ScalarType::Float, {3});
  w.fill(std::vector<float>{1, 2, 3});
  b.fill(std::vector<float>{0, -1, 1});
  TestTensor out(ScalarType::Float, {2, 2, 3});
  TestTensor mean(ScalarType::Float, {2, 2, 1}), rstd(ScalarType::Float, {2, 2, 1});
  ASSERT_EQ(Args().t(x).ints({3}).t(w).t(b).d(1e-5).t(out).t(mean).t(rstd)
                .run(native_layer_norm_out),
            Error::Ok);
  // torch.ops.aten.native_layer_norm(x, [3], [1., 2, 3], [0., -1, 1], 1e-5)
  expect_near_all(out.values<float>(), {-1.224708f, -1, 4.674124f, -1.224708f, -1, 4.674124f,
                                        -1.224708f, -1, 4.674124f, -0.8276048f, -2.158647f,
                                        5.220785f});
  expect_near_all(mean.values<float>(), {-1.5f, 0, 1.5f, 4.166667f});
  expect_near_all(rstd.values<float>(), {2.449416f, 2.449416f, 2.449416f, 0.4965629f});
}

TEST(NnLayerNorm, TwoDimsNoAffineAndShapeError) {
  TestTensor x(ScalarType::Float, {2, 2, 3});
  std::vector<float> xs = arange(12, 0.5f, -2.0f);
  xs[11] = 7;
  x.fill(xs);
  TestTensor out(ScalarType::Float, {2, 2, 3});
  TestTensor mean(ScalarType::Float, {2, 1, 1}), rstd(ScalarType::Float, {2, 1, 1});
  ASSERT_EQ(Args().t(x).ints({2, 3}).none().none().d(1e-5).t(out).t(mean).t(rstd)
                .run(native_layer_norm_out),
            Error::Ok);
  // torch.ops.aten.native_layer_norm(x, [2, 3], None, None, 1e-5)
  expect_near_all(out.values<float>(), {-1.46384f, -0.878304f, -0.292768f, 0.292768f, 0.878304f,
                                        1.46384f, -0.9296684f, -0.6761225f, -0.4225765f,
                                        -0.1690306f, 0.08451536f, 2.112883f});
  expect_near_all(mean.values<float>(), {-0.75f, 2.833333f});
  expect_near_all(rstd.values<float>(), {1.171072f, 0.5070919f});
  EXPECT_EQ(Args().t(x).ints({2}).none().none().d(1e-5).t(out).t(mean).t(rstd)
                .run(native_layer_norm_out),
            Error::InvalidArgument);
}

// x = [[1, 5, 3, 2, 0], [4, -1, 6, 8, 2], [0, 3, 3, 7, -5], [2, 2, 9, 1, 4]] as [1, 1, 4, 5].
struct PoolFixture {
  TestTensor x{ScalarType::Float, {1, 1, 4, 5}};
  PoolFixture() {
    x.fill(std::vector<float>{1, 5, 3, 2, 0, 4, -1, 6, 8, 2, 0, 3, 3, 7, -5, 2, 2, 9, 1, 4});
  }
};

TEST(NnPool, MaxPoolWithIndices) {
  PoolFixture f;
  TestTensor out(ScalarType::Float, {1, 1, 2, 3}), idx(ScalarType::Long, {1, 1, 2, 3});
  ASSERT_EQ(Args().t(f.x).ints({2, 2}).ints({2, 2}).ints({0, 0}).ints({1, 1}).b(true)
                .t(out).t(idx).run(max_pool2d_with_indices_out),
            Error::Ok);
  // torch.ops.aten.max_pool2d_with_indices(x, [2, 2], [2, 2], [0, 0], [1, 1], True)
  expect_near_all(out.values<float>(), {5, 8, 2, 3, 9, 4});
  EXPECT_EQ(idx.values<int64_t>(), (std::vector<int64_t>{1, 8, 9, 11, 17, 19}));
  // stride [] defaults to the kernel size; padding 1.
  ASSERT_EQ(Args().t(f.x).ints({3, 3}).ints({2}).ints({1}).ints({1}).b(false)
                .t(out).t(idx).run(max_pool2d_with_indices_out),
            Error::Ok);
  // torch.ops.aten.max_pool2d_with_indices(x, [3, 3], [2, 2], [1, 1], [1, 1], False)
  expect_near_all(out.values<float>(), {5, 8, 8, 4, 9, 8});
  EXPECT_EQ(idx.values<int64_t>(), (std::vector<int64_t>{1, 8, 8, 5, 17, 8}));
  EXPECT_EQ(Args().t(f.x).ints({2, 2}).ints({}).ints({2}).ints({1}).b(false)
                .t(out).t(idx).run(max_pool2d_with_indices_out),
            Error::InvalidArgument);  // padding over half the kernel
}

TEST(NnPool, AvgPoolModes) {
  PoolFixture f;
  TestTensor out(ScalarType::Float, {1, 1, 2, 3});
  ASSERT_EQ(Args().t(f.x).ints({2, 2}).ints({2, 2}).ints({0}).b(true).b(true).none().t(out)
                .run(avg_pool2d_out),
            Error::Ok);
  // torch.ops.aten.avg_pool2d(x, [2, 2], [2, 2], [0, 0], True, True)
  expect_near_all(out.values<float>(), {2.25f, 4.75f, 1, 1.75f, 5, -0.5f});
  ASSERT_EQ(Args().t(f.x).ints({3}).ints({2}).ints({1}).b(false).b(false).none().t(out)
                .run(avg_pool2d_out),
            Error::Ok);
  // torch.ops.aten.avg_pool2d(x, [3, 3], [2, 2], [1, 1], False, False)
  expect_near_all(out.values<float>(), {2.25f, 3.833333f, 3, 1.666667f, 4.222222f, 2.833333f});
  ASSERT_EQ(Args().t(f.x).ints({3}).ints({2}).ints({1}).b(false).b(true).none().t(out)
                .run(avg_pool2d_out),
            Error::Ok);
  expect_near_all(out.values<float>(), {1, 2.555556f, 1.333333f, 1.111111f, 4.222222f, 1.888889f});
  ASSERT_EQ(Args().t(f.x).ints({2}).ints({2}).ints({0}).b(false).b(true).i(3).t(out)
                .run(avg_pool2d_out),
            Error::Ok);
  // torch.ops.aten.avg_pool2d(x, [2, 2], [2, 2], [0, 0], False, True, 3)
  expect_near_all(out.values<float>(), {3, 6.333333f, 2.333333f, 6.666667f});
  EXPECT_EQ(Args().t(f.x).ints({2}).ints({2}).ints({0}).b(false).b(true).i(0).t(out)
                .run(avg_pool2d_out),
            Error::InvalidArgument);
}

TEST(NnPool, AdaptiveAvgPool) {
  PoolFixture f;
  TestTensor out(ScalarType::Float, {1, 1, 3, 3});
  ASSERT_EQ(Args().t(f.x).ints({2, 3}).t(out).run(adaptive_avg_pool2d_out), Error::Ok);
  // torch.ops.aten._adaptive_avg_pool2d(x, [2, 3])
  expect_near_all(out.values<float>(), {2.25f, 3.833333f, 3, 1.75f, 4.166667f, 1.75f});
  ASSERT_EQ(Args().t(f.x).ints({3, 2}).t(out).run(adaptive_avg_pool2d_out), Error::Ok);
  expect_near_all(out.values<float>(), {3, 3.5f, 2.5f, 3.5f, 3.166667f, 3.166667f});
  TestTensor flat(ScalarType::Float, {4, 5});
  EXPECT_EQ(Args().t(flat).ints({2, 2}).t(out).run(adaptive_avg_pool2d_out),
            Error::InvalidArgument);
}

TEST(NnEmbedding, GathersRowsAndChecksRange) {
  TestTensor w(ScalarType::Float, {5, 3});
  w.fill(arange(15, 1.0f, -7.0f));
  for (ScalarType index_type : {ScalarType::Long, ScalarType::Int}) {
    TestTensor idx(index_type, {2, 2});
    if (index_type == ScalarType::Long) {
      idx.fill(std::vector<int64_t>{4, 0, 2, 2});
    } else {
      idx.fill(std::vector<int32_t>{4, 0, 2, 2});
    }
    TestTensor out(ScalarType::Float, {2, 2, 3});
    ASSERT_EQ(Args().t(w).t(idx).i(-1).b(false).b(false).t(out).run(embedding_out), Error::Ok);
    // torch.embedding(torch.arange(15.).reshape(5, 3) - 7, [[4, 0], [2, 2]])
    expect_near_all(out.values<float>(), {5, 6, 7, -7, -6, -5, -1, 0, 1, -1, 0, 1});
  }
  TestTensor bad(ScalarType::Long, {1});
  bad.fill(std::vector<int64_t>{5});
  TestTensor out(ScalarType::Float, {1, 3});
  EXPECT_EQ(Args().t(w).t(bad).i(-1).b(false).b(false).t(out).run(embedding_out),
            Error::InvalidArgument);
}

TEST(NnConstantPad, PadsAndCrops) {
  TestTensor x(ScalarType::Float, {2, 3});
  x.fill(arange(6));
  TestTensor out(ScalarType::Float, {2, 6});
  ASSERT_EQ(Args().t(x).ints({1, 2}).d(-1.0).t(out).run(constant_pad_nd_out), Error::Ok);
  // torch.constant_pad_nd(torch.arange(6.).reshape(2, 3), [1, 2], -1.)
  expect_near_all(out.values<float>(), {-1, 0, 1, 2, -1, -1, -1, 3, 4, 5, -1, -1});
  TestTensor out2(ScalarType::Float, {3, 2});
  ASSERT_EQ(Args().t(x).ints({-1, 0, 1, 0}).d(9.0).t(out2).run(constant_pad_nd_out), Error::Ok);
  // torch.constant_pad_nd(torch.arange(6.).reshape(2, 3), [-1, 0, 1, 0], 9.)
  expect_near_all(out2.values<float>(), {9, 9, 1, 2, 4, 5});
  EXPECT_EQ(Args().t(x).ints({1, 1, 1}).d(0.0).t(out).run(constant_pad_nd_out),
            Error::InvalidArgument);
}

TEST(NnUpsample, NearestSizesAndScales) {
  TestTensor x(ScalarType::Float, {1, 1, 2, 3});
  x.fill(arange(6));
  TestTensor out(ScalarType::Float, {1, 1, 4, 4});
  ASSERT_EQ(Args().t(x).ints({3, 5}).none().t(out).run(upsample_nearest2d_vec_out), Error::Ok);
  // torch.ops.aten.upsample_nearest2d.vec(torch.arange(6.).reshape(1, 1, 2, 3), [3, 5], None)
  expect_near_all(out.values<float>(), {0, 0, 1, 1, 2, 0, 0, 1, 1, 2, 3, 3, 4, 4, 5});
  ASSERT_EQ(Args().t(x).none().doubles({2.0, 1.5}).t(out).run(upsample_nearest2d_vec_out),
            Error::Ok);
  // torch.ops.aten.upsample_nearest2d.vec(..., None, [2., 1.5])
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{1, 1, 4, 4}));
  expect_near_all(out.values<float>(), {0, 0, 1, 2, 0, 0, 1, 2, 3, 3, 4, 5, 3, 3, 4, 5});
  ASSERT_EQ(Args().t(x).ints({3, 5}).none().none().t(out).run(upsample_nearest2d_out), Error::Ok);
  expect_near_all(out.values<float>(), {0, 0, 1, 1, 2, 0, 0, 1, 1, 2, 3, 3, 4, 4, 5});
  EXPECT_EQ(Args().t(x).ints({3, 5}).doubles({2.0, 2.0}).t(out).run(upsample_nearest2d_vec_out),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
