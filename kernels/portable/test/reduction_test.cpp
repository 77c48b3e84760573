// Tests of the reduction kernels (sum, mean, var, amax, amin, argmax,
// argmin) and softmax / log_softmax. Expected values come from eager
// PyTorch 2.13 on CPU; each block names the torch expression.
#include <cstdint>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace {

using native::amax_out;
using native::amin_out;
using native::argmax_out;
using native::argmin_out;
using native::log_softmax_out;
using native::mean_dtype_out;
using native::mean_out;
using native::softmax_out;
using native::sum_intlist_out;
using native::sum_out;
using native::var_correction_out;

// x = [[[1, 4, -2, 0], [3, 3, 5, -1], [0.5, -6, 2, 2]],
//      [[7, 1, 1, -3], [0, 2, 2, 2], [-1, -1, 8, 4]]]  (shape [2, 3, 4])
const std::vector<float> kX = {1, 4, -2, 0, 3, 3, 5, -1, 0.5f, -6, 2, 2,
                               7, 1, 1, -3, 0, 2, 2, 2, -1,   -1, 8, 4};

struct ReductionFixture {
  TestTensor x{ScalarType::Float, {2, 3, 4}};
  TestTensor x_cl{ScalarType::Float, {2, 3, 4}, {2, 0, 1}};  // another dim order
  ReductionFixture() {
    x.fill(kX);
    x_cl.fill(kX);
  }
};

TEST(NnReduction, SumDimsKeepdimAndAll) {
  ReductionFixture f;
  for (TestTensor* x : {&f.x, &f.x_cl}) {
    TestTensor out(ScalarType::Float, {2, 4});
    ASSERT_EQ(Args().t(*x).ints({1}).b(false).none().t(out).run(sum_intlist_out), Error::Ok);
    // torch.sum(x, [1])
    expect_near_all(out.values<float>(), {4.5f, 1, 5, 1, 6, 2, 11, 3});
  }
  TestTensor keep(ScalarType::Float, {1, 3, 1});
  ASSERT_EQ(Args().t(f.x).ints({0, -1}).b(true).none().t(keep).run(sum_intlist_out), Error::Ok);
  // torch.sum(x, [0, 2], keepdim=True)
  expect_near_all(keep.values<float>(), {9, 16, 8.5f});
  TestTensor all(ScalarType::Float, {});
  ASSERT_EQ(Args().t(f.x).none().b(false).none().t(all).run(sum_intlist_out), Error::Ok);
  expect_near_all(all.values<float>(), {33.5f});  // torch.sum(x)
  all.fill(std::vector<float>{0});
  ASSERT_EQ(Args().t(f.x_cl).none().t(all).run(sum_out), Error::Ok);
  expect_near_all(all.values<float>(), {33.5f});
  ASSERT_EQ(Args().t(f.x).i(6).t(all).run(mean_dtype_out), Error::Ok);
  expect_near_all(all.values<float>(), {33.5f / 24});  // torch.mean(x, dtype=torch.float32)
  EXPECT_EQ(Args().t(f.x).ints({1, -2}).b(false).none().t(keep).run(sum_intlist_out),
            Error::InvalidArgument);  // dim 1 twice
}

TEST(NnReduction, SumIntegerOutWraps) {
  TestTensor x(ScalarType::Char, {2, 3});
  x.fill(std::vector<int8_t>{100, 100, 100, -5, 3, 1});
  TestTensor out8(ScalarType::Char, {2});
  ASSERT_EQ(Args().t(x).ints({1}).b(false).i(1).t(out8).run(sum_intlist_out), Error::Ok);
  // torch.sum(x, [1], dtype=torch.int8)
  EXPECT_EQ(out8.values<int8_t>(), (std::vector<int8_t>{44, -1}));
  TestTensor out64(ScalarType::Long, {2});
  ASSERT_EQ(Args().t(x).ints({1}).b(false).none().t(out64).run(sum_intlist_out), Error::Ok);
  EXPECT_EQ(out64.values<int64_t>(), (std::vector<int64_t>{300, -1}));
  // dtype must match out's dtype.
  EXPECT_EQ(Args().t(x).ints({1}).b(false).i(4).t(out8).run(sum_intlist_out), Error::InvalidType);
}

TEST(NnReduction, MeanAndVar) {
  ReductionFixture f;
  TestTensor out(ScalarType::Float, {2, 3});
  ASSERT_EQ(Args().t(f.x_cl).ints({-1}).b(false).none().t(out).run(mean_out), Error::Ok);
  // torch.mean(x, [-1])
  expect_near_all(out.values<float>(), {0.75f, 2.5f, -0.375f, 1.5f, 1.5f, 2.5f});
  ASSERT_EQ(Args().t(f.x).ints({2}).none().b(false).t(out).run(var_correction_out), Error::Ok);
  // torch.var(x, [2])
  expect_near_all(out.values<float>(), {6.25f, 6.333333f, 14.5625f, 17, 1, 19});
  TestTensor out4(ScalarType::Float, {4});
  ASSERT_EQ(Args().t(f.x).ints({0, 1}).i(0).b(false).t(out4).run(var_correction_out), Error::Ok);
  // torch.var(x, [0, 1], correction=0)
  expect_near_all(out4.values<float>(), {6.979167f, 10.91667f, 9.888889f, 5.222222f});
  TestTensor ints(ScalarType::Int, {2, 3});
  EXPECT_EQ(Args().t(ints).ints({1}).b(false).none().t(out4).run(mean_out), Error::InvalidType);
}

TEST(NnReduction, AmaxAmin) {
  ReductionFixture f;
  TestTensor out(ScalarType::Float, {2, 4});
  ASSERT_EQ(Args().t(f.x_cl).ints({1}).b(false).t(out).run(amax_out), Error::Ok);
  // torch.amax(x, [1])
  expect_near_all(out.values<float>(), {3, 4, 5, 2, 7, 2, 8, 4});
  TestTensor out3(ScalarType::Float, {3});
  ASSERT_EQ(Args().t(f.x).ints({0, 2}).b(false).t(out3).run(amin_out), Error::Ok);
  // torch.amin(x, [0, 2])
  expect_near_all(out3.values<float>(), {-3, -1, -6});
  TestTensor nan_in(ScalarType::Float, {3});
  nan_in.fill(std::vector<float>{1, NAN, 3});
  TestTensor scalar(ScalarType::Float, {});
  ASSERT_EQ(Args().t(nan_in).ints({}).b(false).t(scalar).run(amax_out), Error::Ok);
  EXPECT_TRUE(std::isnan(scalar.values<float>()[0]));  // torch.amax(...) is nan
  TestTensor empty(ScalarType::Float, {2, 0});
  EXPECT_EQ(Args().t(empty).ints({1}).b(false).t(out3).run(amax_out), Error::InvalidArgument);
}

TEST(NnReduction, ArgmaxArgmin) {
  ReductionFixture f;
  TestTensor out(ScalarType::Long, {2, 3});
  ASSERT_EQ(Args().t(f.x).i(2).b(false).t(out).run(argmax_out), Error::Ok);
  // torch.argmax(x, 2)
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 2, 2, 0, 1, 2}));
  TestTensor flat(ScalarType::Long, {});
  ASSERT_EQ(Args().t(f.x_cl).none().b(false).t(flat).run(argmax_out), Error::Ok);
  EXPECT_EQ(flat.values<int64_t>(), (std::vector<int64_t>{22}));  // torch.argmax(x)
  TestTensor out4(ScalarType::Long, {2, 4});
  ASSERT_EQ(Args().t(f.x).i(1).b(false).t(out4).run(argmin_out), Error::Ok);
  // torch.argmin(x, 1)
  EXPECT_EQ(out4.values<int64_t>(), (std::vector<int64_t>{2, 2, 0, 1, 2, 2, 0, 0}));
  TestTensor wrong(ScalarType::Int, {2, 3});
  EXPECT_EQ(Args().t(f.x).i(2).b(false).t(wrong).run(argmax_out), Error::InvalidType);
}

TEST(NnSoftmax, SoftmaxAndLogSoftmax) {
  TestTensor x(ScalarType::Float, {2, 4});
  x.fill(std::vector<float>{1, 2, 3, 4, -1, 0, 1, 100});
  TestTensor out(ScalarType::Float, {2, 4});
  ASSERT_EQ(Args().t(x).i(1).b(false).t(out).run(softmax_out), Error::Ok);
  // torch.ops.aten._softmax(x, 1, False)
  expect_near_all(out.values<float>(), {0.0320586f, 0.08714432f, 0.2368828f, 0.6439143f, 0, 0,
                                        0, 1});
  ASSERT_EQ(Args().t(x).i(0).b(false).t(out).run(softmax_out), Error::Ok);
  // torch.ops.aten._softmax(x, 0, False)
  expect_near_all(out.values<float>(), {0.880797f, 0.880797f, 0.880797f, 0, 0.1192029f,
                                        0.1192029f, 0.1192029f, 1});
  ASSERT_EQ(Args().t(x).i(-1).b(false).t(out).run(log_softmax_out), Error::Ok);
  // torch.ops.aten._log_softmax(x, 1, False)
  expect_near_all(out.values<float>(), {-3.44019f, -2.44019f, -1.44019f, -0.4401897f, -101, -100,
                                        -99, 0});
  EXPECT_EQ(Args().t(x).i(1).b(true).t(out).run(softmax_out), Error::NotSupported);
  EXPECT_EQ(Args().t(x).i(2).b(false).t(out).run(log_softmax_out), Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
