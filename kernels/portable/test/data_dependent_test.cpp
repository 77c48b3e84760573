// Tests of the data-dependent kernels (data_dependent_kernels.inc): the
// true output size is written into an out planned larger, values follow
// eager PyTorch 2.13 (each block names the torch expression), and an out
// planned smaller than the data needs is an error, not an overflow. The
// Python harness (tests/ops/op_table_data_dependent.py) covers every dtype.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/portable/test/nn_test_harness.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/data_dependent_kernels.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native

namespace {

using I = std::vector<int64_t>;

TEST(DataDependent, NonzeroWritesTheTrueRowCount) {
  TestTensor x(ScalarType::Float, {2, 3});
  x.fill(std::vector<float>{0, 1.5f, 0, NAN, 0, -2});
  TestTensor out(ScalarType::Long, {6, 2});  // planned at numel
  ASSERT_EQ(Args().t(x).t(out).run(native::nonzero_out), Error::Ok);
  EXPECT_EQ(out.shape(), (std::vector<int32_t>{3, 2}));
  EXPECT_EQ(out.values<int64_t>(), (I{0, 1, 1, 0, 1, 2}));  // torch.nonzero(x); NaN counts
  TestTensor small(ScalarType::Long, {2, 2});  // planned below what the data needs
  EXPECT_NE(Args().t(x).t(small).run(native::nonzero_out), Error::Ok);
}

TEST(DataDependent, NonzeroStaticPadsWithFillValue) {
  TestTensor x(ScalarType::Long, {4});
  x.fill(std::vector<int64_t>{0, 3, 0, 5});
  TestTensor out(ScalarType::Long, {3, 1});
  ASSERT_EQ(Args().t(x).i(3).i(-7).t(out).run(native::nonzero_static_out), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (I{1, 3, -7}));  // torch.nonzero_static(x, size=3, fill_value=-7)
}

TEST(DataDependent, MaskedSelectBroadcasts) {
  TestTensor x(ScalarType::Float, {2, 1});
  x.fill(std::vector<float>{10, 20});
  TestTensor mask(ScalarType::Bool, {3});
  mask.fill(std::vector<bool>{true, false, true});
  TestTensor out(ScalarType::Float, {6});
  ASSERT_EQ(Args().t(x).t(mask).t(out).run(native::masked_select_out), Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{10, 10, 20, 20}));
  TestTensor bad(ScalarType::Bool, {3, 2});  // (2, 1) and (3, 2) do not broadcast
  EXPECT_EQ(Args().t(x).t(bad).t(out).run(native::masked_select_out), Error::InvalidArgument);
}

TEST(DataDependent, UniqueSortsCountsAndInverts) {
  TestTensor x(ScalarType::Float, {5});
  x.fill(std::vector<float>{3, 1, NAN, 1, NAN});
  TestTensor values(ScalarType::Float, {5}), inverse(ScalarType::Long, {5}),
      counts(ScalarType::Long, {5});
  ASSERT_EQ(Args().t(x).b(true).b(true).b(true).t(values).t(inverse).t(counts).run(
                native::_unique2_out),
            Error::Ok);
  // torch.unique(x, return_inverse=True, return_counts=True): NaNs last, each its own value
  const std::vector<float> v = values.values<float>();
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 1.0f);
  EXPECT_EQ(v[1], 3.0f);
  EXPECT_TRUE(std::isnan(v[2]) && std::isnan(v[3]));
  EXPECT_EQ(inverse.values<int64_t>(), (I{1, 0, 2, 0, 3}));
  EXPECT_EQ(counts.values<int64_t>(), (I{2, 1, 1, 1}));
}

TEST(DataDependent, UniqueConsecutiveMergesRunsOnly) {
  TestTensor x(ScalarType::Long, {6});
  x.fill(std::vector<int64_t>{2, 2, 1, 2, 2, 2});
  TestTensor values(ScalarType::Long, {6}), inverse(ScalarType::Long, {1}),
      counts(ScalarType::Long, {6});
  ASSERT_EQ(Args().t(x).b(false).b(true).none().t(values).t(inverse).t(counts).run(
                native::unique_consecutive_out),
            Error::Ok);
  EXPECT_EQ(values.values<int64_t>(), (I{2, 1, 2}));
  EXPECT_EQ(counts.values<int64_t>(), (I{2, 1, 3}));
  EXPECT_EQ(inverse.shape(), (std::vector<int32_t>{0}));  // not requested
  EXPECT_EQ(Args().t(x).b(false).b(true).i(0).t(values).t(inverse).t(counts).run(
                native::unique_consecutive_out),
            Error::NotSupported);  // along a dim
}

}  // namespace
}  // namespace torchedge
