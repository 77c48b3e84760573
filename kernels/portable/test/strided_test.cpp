// Tests of the strided-window kernels (strided_kernels.inc): as_strided_copy
// and unfold_copy, their values and the argument errors eager raises. Expected
// values come from eager PyTorch 2.13 on CPU; each block names the torch
// expression. The Python harness (tests/ops/op_table_strided.py) covers every
// dtype and shape case.
#include <cstdint>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/strided_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

TEST(Strided, AsStridedOverlappingWindows) {
  TestTensor x(ScalarType::Float, {10});
  x.fill(arange(10));
  TestTensor out(ScalarType::Float, {4, 3});
  ASSERT_EQ(Args().t(x).ints({4, 3}).ints({2, 1}).i(1).t(out).run(native::as_strided_copy_out),
            Error::Ok);
  // torch.as_strided(arange(10.), (4, 3), (2, 1), 1)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8, 9}));
}

TEST(Strided, AsStridedRejectsWindowsPastSelf) {
  TestTensor x(ScalarType::Float, {10});
  TestTensor out(ScalarType::Float, {4, 3});
  // The last element would be 2 + 3 * 2 + 2 = 10: one past the end.
  EXPECT_EQ(Args().t(x).ints({4, 3}).ints({2, 1}).i(2).t(out).run(native::as_strided_copy_out),
            Error::InvalidArgument);
  EXPECT_EQ(Args().t(x).ints({4, 3}).ints({-2, 1}).i(9).t(out).run(native::as_strided_copy_out),
            Error::InvalidArgument);  // negative stride
  EXPECT_EQ(Args().t(x).ints({4, 3}).ints({2}).none().t(out).run(native::as_strided_copy_out),
            Error::InvalidArgument);  // size and stride differ in length
  EXPECT_EQ(Args().t(x).ints({2}).ints({1}).i(-1).t(out).run(native::as_strided_copy_out),
            Error::InvalidArgument);  // negative offset
}

TEST(Strided, UnfoldWindowsWithStep) {
  TestTensor x(ScalarType::Float, {2, 5});
  x.fill(arange(10));
  TestTensor out(ScalarType::Float, {2, 2, 2});
  ASSERT_EQ(Args().t(x).i(1).i(2).i(2).t(out).run(native::unfold_copy_out), Error::Ok);
  // arange(10.).reshape(2, 5).unfold(1, 2, 2)
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 2, 3, 5, 6, 7, 8}));
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{2, 2, 2}));
}

TEST(Strided, UnfoldErrors) {
  TestTensor x(ScalarType::Float, {2, 5});
  TestTensor out(ScalarType::Float, {2, 2, 2});
  EXPECT_EQ(Args().t(x).i(1).i(6).i(1).t(out).run(native::unfold_copy_out),
            Error::InvalidArgument);  // window larger than the dim
  EXPECT_EQ(Args().t(x).i(1).i(2).i(0).t(out).run(native::unfold_copy_out),
            Error::InvalidArgument);  // step 0
  EXPECT_EQ(Args().t(x).i(2).i(2).i(1).t(out).run(native::unfold_copy_out),
            Error::InvalidArgument);  // dim out of range
  TestTensor wrong(ScalarType::Float, {2, 2});
  EXPECT_EQ(Args().t(x).i(1).i(2).i(2).t(wrong).run(native::unfold_copy_out),
            Error::InvalidArgument);  // out rank
}

}  // namespace
}  // namespace torchedge
