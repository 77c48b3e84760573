// Tests of the view-like shape kernels (shape_kernels.inc): reshaping,
// permuting, broadcasting, slicing, squeezing and the dim-order copies.
// Expected values come from eager PyTorch; each names the expression.
#include <gtest/gtest.h>

#include "kernels/portable/test/shape_test_harness.h"

namespace torchedge {
namespace {

// ---- reshaping ---------------------------------------------------------------

TEST(ShapeViewCopy, InfersMinusOneAndCopies) {
  TestTensor self(ScalarType::Float, {2, 3});
  self.fill(iota<float>(6));
  TestTensor out(ScalarType::Float, {3, 2});
  Call c;
  ASSERT_EQ(c.run(native::view_copy_out, {c.t(self), c.ints({3, -1}), c.t(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (Sizes{3, 2}));
  EXPECT_EQ(out.values<float>(), iota<float>(6));
}

TEST(ShapeViewCopy, ReadsChannelsLastInLogicalOrder) {
  // x = torch.arange(8.).reshape(1, 2, 2, 2).to(memory_format=torch.channels_last);
  // x.view(8) == arange(8)
  TestTensor self(ScalarType::Float, {1, 2, 2, 2}, {0, 2, 3, 1});
  self.fill(iota<float>(8));
  TestTensor out(ScalarType::Float, {8});
  Call c;
  ASSERT_EQ(c.run(native::view_copy_out, {c.t(self), c.ints({8}), c.t(out)}), Error::Ok);
  EXPECT_EQ(out.values<float>(), iota<float>(8));
}

TEST(ShapeViewCopy, RejectsBadShapes) {
  TestTensor self(ScalarType::Float, {2, 3});
  TestTensor out1(ScalarType::Float, {4});
  TestTensor out2(ScalarType::Float, {6, 1});
  Call c;
  // x.view(4): "shape '[4]' is invalid for input of size 6"
  EXPECT_EQ(c.run(native::view_copy_out, {c.t(self), c.ints({4}), c.t(out1)}),
            Error::InvalidArgument);
  // x.view(-1, -1): "only one dimension can be inferred"
  EXPECT_EQ(c.run(native::view_copy_out, {c.t(self), c.ints({-1, -1}), c.t(out2)}),
            Error::InvalidArgument);
}

TEST(ShapeEtView, AliasesSelfWithoutCopying) {
  TestTensor self(ScalarType::Int, {2, 3});
  self.fill(iota<int32_t>(6));
  TestTensor out(ScalarType::Int, {6});
  Call c;
  ASSERT_EQ(c.run(native::et_view, {c.t(self), c.ints({-1}), c.t(out)}), Error::Ok);
  EXPECT_EQ((*out).data(), (*self).data());
  EXPECT_EQ(out.values<int32_t>(), iota<int32_t>(6));
}

TEST(ShapePermuteCopy, MovesDims) {
  TestTensor self(ScalarType::Float, {2, 3, 4});
  self.fill(iota<float>(24));
  TestTensor out(ScalarType::Float, {4, 2, 3});
  Call c;
  ASSERT_EQ(c.run(native::permute_copy_out, {c.t(self), c.ints({2, 0, -2}), c.t(out)}),
            Error::Ok);
  // torch.arange(24.).reshape(2, 3, 4).permute(2, 0, 1).flatten()
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0, 4, 8, 12, 16, 20, 1, 5, 9, 13, 17, 21,
                                2, 6, 10, 14, 18, 22, 3, 7, 11, 15, 19, 23}));
}

TEST(ShapePermuteCopy, RejectsDuplicateDimsAndHandlesRank0) {
  TestTensor self(ScalarType::Float, {2, 3});
  TestTensor out(ScalarType::Float, {3, 2});
  Call c;
  EXPECT_EQ(c.run(native::permute_copy_out, {c.t(self), c.ints({0, 0}), c.t(out)}),
            Error::InvalidArgument);
  TestTensor scalar(ScalarType::Long, {});
  scalar.fill<int64_t>({7});
  TestTensor scalar_out(ScalarType::Long, {});
  ASSERT_EQ(c.run(native::permute_copy_out, {c.t(scalar), c.ints({}), c.t(scalar_out)}),
            Error::Ok);
  EXPECT_EQ(scalar_out.values<int64_t>(), (std::vector<int64_t>{7}));
}

TEST(ShapeTransposeCopy, SwapsDimsIntoChannelsLastOut) {
  TestTensor self(ScalarType::Short, {2, 3});
  self.fill(iota<int16_t>(6));
  TestTensor out(ScalarType::Short, {3, 2}, {1, 0});
  Call c;
  ASSERT_EQ(c.run(native::transpose_copy_int_out, {c.t(self), c.i(0), c.i(-1), c.t(out)}),
            Error::Ok);
  // torch.arange(6).reshape(2, 3).t().flatten()
  EXPECT_EQ(out.values<int16_t>(), (std::vector<int16_t>{0, 3, 1, 4, 2, 5}));
}

TEST(ShapeTCopy, RejectsRank3) {
  TestTensor self(ScalarType::Float, {1, 2, 3});
  TestTensor out(ScalarType::Float, {1, 2, 3});
  Call c;
  EXPECT_EQ(c.run(native::t_copy_out, {c.t(self), c.t(out)}), Error::InvalidArgument);
}

TEST(ShapeExpandCopy, BroadcastsSizeOneAndNewDims) {
  TestTensor self(ScalarType::Float, {3, 1});
  self.fill<float>({1, 2, 3});
  TestTensor out(ScalarType::Float, {2, 3, 4});
  Call c;
  ASSERT_EQ(c.run(native::expand_copy_out,
                  {c.t(self), c.ints({2, -1, 4}), c.b(false), c.t(out)}),
            Error::Ok);
  // torch.tensor([[1.], [2.], [3.]]).expand(2, 3, 4).flatten()[:12]
  const std::vector<float> got = out.values<float>();
  EXPECT_EQ(std::vector<float>(got.begin(), got.begin() + 12),
            (std::vector<float>{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
  EXPECT_EQ(std::vector<float>(got.begin() + 12, got.end()),
            std::vector<float>(got.begin(), got.begin() + 12));
}

TEST(ShapeExpandCopy, RejectsNonSingletonChange) {
  TestTensor self(ScalarType::Float, {3, 2});
  TestTensor out(ScalarType::Float, {3, 4});
  Call c;
  EXPECT_EQ(c.run(native::expand_copy_out, {c.t(self), c.ints({3, 4}), c.b(false), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeClone, CopiesIntoOutDimOrder) {
  TestTensor self(ScalarType::Half, {1, 2, 2, 2});
  self.fill<Half>({0.f, 1.f, 2.f, 3.f, 4.f, 5.f, 6.f, 7.f});
  TestTensor out(ScalarType::Half, {1, 2, 2, 2}, {0, 2, 3, 1});
  Call c;
  ASSERT_EQ(c.run(native::clone_out, {c.t(self), c.i(2), c.t(out)}), Error::Ok);
  std::vector<float> got;
  for (Half h : out.values<Half>()) got.push_back(h);
  EXPECT_EQ(got, iota<float>(8));
  // Channels-last memory: channel is innermost.
  EXPECT_EQ(static_cast<float>((*out).data_as<Half>()[1]), 4.f);
  EXPECT_EQ(c.run(native::clone_out, {c.t(self), c.i(9), c.t(out)}), Error::InvalidArgument);
}

TEST(ShapeAliasCopy, RejectsDtypeMismatch) {
  TestTensor self(ScalarType::Float, {2});
  TestTensor out(ScalarType::Int, {2});
  Call c;
  EXPECT_EQ(c.run(native::alias_copy_out, {c.t(self), c.t(out)}), Error::InvalidType);
}


// ---- slicing ------------------------------------------------------------------

TEST(ShapeSliceCopy, ClampsLikePython) {
  TestTensor self(ScalarType::Float, {2, 5});
  self.fill(iota<float>(10));
  TestTensor out(ScalarType::Float, {2, 5});
  Call c;
  ASSERT_EQ(c.run(native::slice_copy_tensor_out,
                  {c.t(self), c.i(1), c.i(-100), c.none(), c.i(2), c.t(out)}),
            Error::Ok);
  // torch.arange(10.).reshape(2, 5)[:, -100::2]
  EXPECT_EQ(out.shape(), (Sizes{2, 3}));
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 2, 4, 5, 7, 9}));
  ASSERT_EQ(c.run(native::slice_copy_tensor_out,
                  {c.t(self), c.i(1), c.i(3), c.i(1), c.i(1), c.t(out)}),
            Error::Ok);
  EXPECT_EQ(out.shape(), (Sizes{2, 0}));
  EXPECT_EQ(c.run(native::slice_copy_tensor_out,
                  {c.t(self), c.i(1), c.i(0), c.i(3), c.i(0), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeNarrowCopy, NegativeStartAndBounds) {
  TestTensor self(ScalarType::Float, {2, 3});
  self.fill(iota<float>(6));
  TestTensor out(ScalarType::Float, {2, 2});
  Call c;
  // torch.arange(6.).reshape(2, 3).narrow(1, -3, 2)
  ASSERT_EQ(c.run(native::narrow_copy_out, {c.t(self), c.i(1), c.i(-3), c.i(2), c.t(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 3, 4}));
  EXPECT_EQ(c.run(native::narrow_copy_out, {c.t(self), c.i(1), c.i(2), c.i(2), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeSelectCopy, NegativeIndexAndOutOfRange) {
  TestTensor self(ScalarType::Float, {2, 3});
  self.fill(iota<float>(6));
  TestTensor out(ScalarType::Float, {2});
  Call c;
  ASSERT_EQ(c.run(native::select_copy_int_out, {c.t(self), c.i(1), c.i(-1), c.t(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{2, 5}));
  EXPECT_EQ(c.run(native::select_copy_int_out, {c.t(self), c.i(1), c.i(3), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeSqueezeUnsqueeze, AddAndRemoveSizeOneDims) {
  TestTensor self(ScalarType::Float, {1, 3, 1});
  self.fill<float>({1, 2, 3});
  TestTensor all(ScalarType::Float, {3});
  TestTensor one(ScalarType::Float, {3, 1});
  TestTensor some(ScalarType::Float, {1, 3});
  TestTensor more(ScalarType::Float, {1, 3, 1, 1});
  Call c;
  ASSERT_EQ(c.run(native::squeeze_copy_out, {c.t(self), c.t(all)}), Error::Ok);
  EXPECT_EQ(all.shape(), (Sizes{3}));
  ASSERT_EQ(c.run(native::squeeze_copy_dim_out, {c.t(self), c.i(0), c.t(one)}), Error::Ok);
  // squeeze(x, [1, 2]) keeps dim 1 (size 3), drops dim 2.
  ASSERT_EQ(c.run(native::squeeze_copy_dims_out, {c.t(self), c.ints({1, -1}), c.t(some)}),
            Error::Ok);
  EXPECT_EQ(some.values<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(c.run(native::squeeze_copy_dims_out, {c.t(self), c.ints({0, 0}), c.t(some)}),
            Error::InvalidArgument);
  ASSERT_EQ(c.run(native::unsqueeze_copy_out, {c.t(self), c.i(-1), c.t(more)}), Error::Ok);
  EXPECT_EQ(more.values<float>(), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(c.run(native::unsqueeze_copy_out, {c.t(self), c.i(5), c.t(more)}),
            Error::InvalidArgument);
}


// ---- upstream dim-order ops -------------------------------------------------------

TEST(ShapeToDimOrderCopy, ConvertsDtypes) {
  TestTensor self(ScalarType::Float, {4});
  self.fill<float>({-1.5f, 2.7f, 300.2f, 0.f});
  TestTensor as_int(ScalarType::Int, {4}), as_byte(ScalarType::Byte, {4}),
      as_bool(ScalarType::Bool, {4});
  Call c;
  for (TestTensor* out : {&as_int, &as_byte, &as_bool}) {
    ASSERT_EQ(c.run(native::_to_dim_order_copy_out,
                    {c.t(self), c.b(false), c.ints({0}), c.t(*out)}),
              Error::Ok);
  }
  // torch.tensor([-1.5, 2.7, 300.2, 0.]).to(torch.int32 / torch.uint8 / torch.bool)
  EXPECT_EQ(as_int.values<int32_t>(), (std::vector<int32_t>{-1, 2, 300, 0}));
  EXPECT_EQ(as_byte.values<uint8_t>(), (std::vector<uint8_t>{255, 2, 44, 0}));
  EXPECT_EQ(as_bool.values<bool>(), (std::vector<bool>{true, true, true, false}));
  TestTensor half(ScalarType::BFloat16, {4});
  ASSERT_EQ(c.run(native::_to_dim_order_copy_out, {c.t(self), c.b(false), c.none(), c.t(half)}),
            Error::Ok);
  // torch.tensor([-1.5, 2.7, 300.2, 0.]).bfloat16()
  std::vector<float> got;
  for (BFloat16 h : half.values<BFloat16>()) got.push_back(h);
  EXPECT_EQ(got, (std::vector<float>{-1.5f, 2.703125f, 300.f, 0.f}));
}

TEST(ShapeCloneDimOrder, ChecksDimOrderAgainstOut) {
  TestTensor self(ScalarType::Float, {1, 2, 1, 2});
  self.fill(iota<float>(4));
  TestTensor out(ScalarType::Float, {1, 2, 1, 2}, {0, 2, 3, 1});
  Call c;
  ASSERT_EQ(c.run(native::_clone_dim_order_out,
                  {c.t(self), c.b(false), c.ints({0, 2, 3, 1}), c.t(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), iota<float>(4));
  EXPECT_EQ(c.run(native::_clone_dim_order_out,
                  {c.t(self), c.b(false), c.ints({0, 1, 2, 3}), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeEmpty, ZeroSizedTensorsCopyNothing) {
  TestTensor self(ScalarType::Float, {0, 3});
  TestTensor out(ScalarType::Float, {3, 0});
  Call c;
  ASSERT_EQ(c.run(native::permute_copy_out, {c.t(self), c.ints({1, 0}), c.t(out)}), Error::Ok);
  EXPECT_EQ(out.shape(), (Sizes{3, 0}));
  TestTensor flat(ScalarType::Float, {0});
  ASSERT_EQ(c.run(native::view_copy_out, {c.t(self), c.ints({-1}), c.t(flat)}), Error::Ok);
}

}  // namespace
}  // namespace torchedge
