// Tests of the shape kernels that combine or pick elements
// (shape_kernels.inc): concatenation and splitting, tiling, indexing.
// Expected values come from eager PyTorch; each names the expression.
#include <gtest/gtest.h>

#include "kernels/portable/test/shape_test_harness.h"

namespace torchedge {
namespace {

// ---- concatenation and splitting ----------------------------------------------

TEST(ShapeCat, PromotesInputsAndSkipsLegacyEmpty) {
  TestTensor a(ScalarType::Float, {2, 3});
  a.fill(iota<float>(6));
  TestTensor b(ScalarType::Int, {1, 3});
  b.fill<int32_t>({7, 8, 9});
  TestTensor empty(ScalarType::Float, {0});
  TestTensor out(ScalarType::Float, {3, 3});
  Call c;
  ASSERT_EQ(c.run(native::cat_out, {c.tensors({&a, &empty, &b}), c.i(-2), c.t(out)}), Error::Ok);
  // torch.cat([torch.arange(6.).reshape(2, 3), torch.tensor([[7, 8, 9]], dtype=torch.int32)])
  EXPECT_EQ(out.values<float>(), (std::vector<float>{0, 1, 2, 3, 4, 5, 7, 8, 9}));
}

TEST(ShapeCat, ConcatenatesInnerDim) {
  TestTensor a(ScalarType::Bool, {2, 1});
  a.fill<bool>({true, false});
  TestTensor b(ScalarType::Bool, {2, 2});
  b.fill<bool>({false, true, true, true});
  TestTensor out(ScalarType::Bool, {2, 3});
  Call c;
  ASSERT_EQ(c.run(native::cat_out, {c.tensors({&a, &b}), c.i(1), c.t(out)}), Error::Ok);
  EXPECT_EQ(out.values<bool>(), (std::vector<bool>{true, false, true, false, true, true}));
}

TEST(ShapeCat, RejectsBadInputs) {
  TestTensor f(ScalarType::Float, {2});
  TestTensor i(ScalarType::Long, {2});
  TestTensor out_long(ScalarType::Long, {4});
  TestTensor m(ScalarType::Float, {2, 2});
  TestTensor out(ScalarType::Float, {4});
  TestTensor scalar(ScalarType::Float, {});
  Call c;
  // torch.cat([float, long], out=long): "input types can't be cast"
  EXPECT_EQ(c.run(native::cat_out, {c.tensors({&i, &f}), c.i(0), c.t(out_long)}),
            Error::InvalidType);
  EXPECT_EQ(c.run(native::cat_out, {c.tensors({&f, &m}), c.i(0), c.t(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(c.run(native::cat_out, {c.tensors({&scalar}), c.i(0), c.t(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(c.run(native::cat_out, {c.tensors({}), c.i(0), c.t(out)}), Error::InvalidArgument);
}

TEST(ShapeStack, InsertsNewDim) {
  TestTensor a(ScalarType::Long, {2});
  a.fill<int64_t>({1, 2});
  TestTensor b(ScalarType::Long, {2});
  b.fill<int64_t>({3, 4});
  TestTensor out(ScalarType::Long, {2, 2});
  Call c;
  ASSERT_EQ(c.run(native::stack_out, {c.tensors({&a, &b}), c.i(1), c.t(out)}), Error::Ok);
  // torch.stack([torch.tensor([1, 2]), torch.tensor([3, 4])], 1).flatten()
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 3, 2, 4}));
  TestTensor c3(ScalarType::Long, {3});
  EXPECT_EQ(c.run(native::stack_out, {c.tensors({&a, &c3}), c.i(0), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeSplitCopy, LastChunkIsShorter) {
  TestTensor self(ScalarType::Char, {5, 2});
  self.fill(iota<int8_t>(10));
  TestTensor o0(ScalarType::Char, {2, 2}), o1(ScalarType::Char, {2, 2}), o2(ScalarType::Char, {1, 2});
  Call c;
  ASSERT_EQ(c.run(native::split_copy_tensor_out,
                  {c.t(self), c.i(2), c.i(0), c.tensors({&o0, &o1, &o2})}),
            Error::Ok);
  EXPECT_EQ(o1.values<int8_t>(), (std::vector<int8_t>{4, 5, 6, 7}));
  EXPECT_EQ(o2.values<int8_t>(), (std::vector<int8_t>{8, 9}));
  // torch.split(torch.empty(5, 2), 2) has 3 chunks, not 2.
  EXPECT_EQ(c.run(native::split_copy_tensor_out,
                  {c.t(self), c.i(2), c.i(0), c.tensors({&o0, &o1})}),
            Error::InvalidArgument);
}

TEST(ShapeSplitWithSizesCopy, SplitsInnerDim) {
  TestTensor self(ScalarType::Float, {2, 3});
  self.fill(iota<float>(6));
  TestTensor o0(ScalarType::Float, {2, 1}), o1(ScalarType::Float, {2, 2});
  Call c;
  ASSERT_EQ(c.run(native::split_with_sizes_copy_out,
                  {c.t(self), c.ints({1, 2}), c.i(-1), c.tensors({&o0, &o1})}),
            Error::Ok);
  EXPECT_EQ(o0.values<float>(), (std::vector<float>{0, 3}));
  EXPECT_EQ(o1.values<float>(), (std::vector<float>{1, 2, 4, 5}));
  EXPECT_EQ(c.run(native::split_with_sizes_copy_out,
                  {c.t(self), c.ints({1, 1}), c.i(1), c.tensors({&o0, &o1})}),
            Error::InvalidArgument);
}

TEST(ShapeUnbindCopy, SelectsEverySlice) {
  TestTensor self(ScalarType::Double, {2, 2});
  self.fill<double>({1, 2, 3, 4});
  TestTensor o0(ScalarType::Double, {2}), o1(ScalarType::Double, {2});
  Call c;
  ASSERT_EQ(c.run(native::unbind_copy_int_out, {c.t(self), c.i(1), c.tensors({&o0, &o1})}),
            Error::Ok);
  EXPECT_EQ(o0.values<double>(), (std::vector<double>{1, 3}));
  EXPECT_EQ(o1.values<double>(), (std::vector<double>{2, 4}));
}


// ---- tiling and reordering ------------------------------------------------------

TEST(ShapeRepeat, TilesWithNewLeadingDim) {
  TestTensor self(ScalarType::Int, {2, 2});
  self.fill<int32_t>({1, 2, 3, 4});
  TestTensor out(ScalarType::Int, {2, 2, 4});
  Call c;
  ASSERT_EQ(c.run(native::repeat_out, {c.t(self), c.ints({2, 1, 2}), c.t(out)}), Error::Ok);
  // torch.tensor([[1, 2], [3, 4]]).repeat(2, 1, 2).flatten()
  EXPECT_EQ(out.values<int32_t>(),
            (std::vector<int32_t>{1, 2, 1, 2, 3, 4, 3, 4, 1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(c.run(native::repeat_out, {c.t(self), c.ints({2}), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeFlip, ReversesDims) {
  TestTensor self(ScalarType::Long, {2, 3});
  self.fill(iota<int64_t>(6));
  TestTensor out(ScalarType::Long, {2, 3});
  Call c;
  ASSERT_EQ(c.run(native::flip_out, {c.t(self), c.ints({0, -1}), c.t(out)}), Error::Ok);
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
  EXPECT_EQ(c.run(native::flip_out, {c.t(self), c.ints({0, 0}), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeRoll, FlatAndPerDim) {
  TestTensor self(ScalarType::Long, {2, 3});
  self.fill(iota<int64_t>(6));
  TestTensor out(ScalarType::Long, {2, 3});
  Call c;
  ASSERT_EQ(c.run(native::roll_out, {c.t(self), c.ints({2}), c.ints({}), c.t(out)}), Error::Ok);
  // torch.arange(6).reshape(2, 3).roll(2).flatten()
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{4, 5, 0, 1, 2, 3}));
  ASSERT_EQ(c.run(native::roll_out, {c.t(self), c.ints({1, -1}), c.ints({0, 1}), c.t(out)}),
            Error::Ok);
  // torch.arange(6).reshape(2, 3).roll([1, -1], [0, 1]).flatten()
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{4, 5, 3, 1, 2, 0}));
  EXPECT_EQ(c.run(native::roll_out, {c.t(self), c.ints({1, 2}), c.ints({}), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeRoll, FlatIntoChannelsLastOut) {
  TestTensor self(ScalarType::Float, {1, 2, 1, 2});
  self.fill(iota<float>(4));
  TestTensor out(ScalarType::Float, {1, 2, 1, 2}, {0, 2, 3, 1});
  Call c;
  ASSERT_EQ(c.run(native::roll_out, {c.t(self), c.ints({-1}), c.ints({}), c.t(out)}),
            Error::Ok);
  EXPECT_EQ(out.values<float>(), (std::vector<float>{1, 2, 3, 0}));
}


// ---- indexing -----------------------------------------------------------------

TEST(ShapeIndexSelect, PicksSlices) {
  TestTensor self(ScalarType::Float, {2, 3, 4});
  self.fill(iota<float>(24));
  TestTensor index(ScalarType::Int, {2});
  index.fill<int32_t>({2, 0});
  TestTensor out(ScalarType::Float, {2, 2, 4});
  Call c;
  ASSERT_EQ(c.run(native::index_select_out, {c.t(self), c.i(1), c.t(index), c.t(out)}),
            Error::Ok);
  // torch.index_select(torch.arange(24.).reshape(2, 3, 4), 1, torch.tensor([2, 0]))
  EXPECT_EQ(out.values<float>(), (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3,
                                                     20, 21, 22, 23, 12, 13, 14, 15}));
  index.fill<int32_t>({-1, 0});  // negative indices are out of bounds for index_select
  EXPECT_EQ(c.run(native::index_select_out, {c.t(self), c.i(1), c.t(index), c.t(out)}),
            Error::InvalidArgument);
}

TEST(ShapeGather, PicksAlongDim) {
  TestTensor self(ScalarType::Long, {2, 3});
  self.fill<int64_t>({1, 2, 3, 4, 5, 6});
  TestTensor index(ScalarType::Long, {2, 2});
  index.fill<int64_t>({0, 0, 2, 1});
  TestTensor out(ScalarType::Long, {2, 2});
  Call c;
  ASSERT_EQ(c.run(native::gather_out, {c.t(self), c.i(1), c.t(index), c.b(false), c.t(out)}),
            Error::Ok);
  // torch.gather(torch.tensor([[1, 2, 3], [4, 5, 6]]), 1, torch.tensor([[0, 0], [2, 1]]))
  EXPECT_EQ(out.values<int64_t>(), (std::vector<int64_t>{1, 1, 6, 5}));
  index.fill<int64_t>({0, 0, 3, 1});
  EXPECT_EQ(c.run(native::gather_out, {c.t(self), c.i(1), c.t(index), c.b(false), c.t(out)}),
            Error::InvalidArgument);
}

class ShapeIndexTensor : public ::testing::Test {
 protected:
  ShapeIndexTensor() { self.fill(iota<float>(24)); }
  TestTensor self{ScalarType::Float, {2, 3, 4}};  // torch.arange(24.).reshape(2, 3, 4)
  Call c;
};

TEST_F(ShapeIndexTensor, SeparatedIndicesGoFirst) {
  TestTensor i0(ScalarType::Long, {2}), i2(ScalarType::Long, {2});
  i0.fill<int64_t>({1, 0});
  i2.fill<int64_t>({3, -3});
  TestTensor out(ScalarType::Float, {2, 3});
  ASSERT_EQ(c.run(native::index_tensor_out,
                  {c.t(self), c.tensors({&i0, nullptr, &i2}, true), c.t(out)}),
            Error::Ok);
  // x[[1, 0], :, [3, -3]]
  EXPECT_EQ(out.values<float>(), (std::vector<float>{15, 19, 23, 1, 5, 9}));
}

TEST_F(ShapeIndexTensor, AdjacentIndicesBroadcastInPlace) {
  TestTensor i1(ScalarType::Long, {2, 1}), i2(ScalarType::Int, {2});
  i1.fill<int64_t>({2, 0});
  i2.fill<int32_t>({3, 1});
  TestTensor out(ScalarType::Float, {2, 2, 2});
  ASSERT_EQ(c.run(native::index_tensor_out,
                  {c.t(self), c.tensors({nullptr, &i1, &i2}, true), c.t(out)}),
            Error::Ok);
  // x[:, [[2], [0]], [3, 1]]
  EXPECT_EQ(out.values<float>(), (std::vector<float>{11, 9, 3, 1, 23, 21, 15, 13}));
}

TEST_F(ShapeIndexTensor, BoolMasks) {
  TestTensor mask(ScalarType::Bool, {2, 3});
  mask.fill<bool>({true, false, true, false, false, true});
  TestTensor out(ScalarType::Float, {3, 4});
  ASSERT_EQ(c.run(native::index_tensor_out, {c.t(self), c.tensors({&mask}, true), c.t(out)}),
            Error::Ok);
  // x[[[True, False, True], [False, False, True]]]
  EXPECT_EQ(out.values<float>(),
            (std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11, 20, 21, 22, 23}));
  TestTensor rows(ScalarType::Bool, {2});
  rows.fill<bool>({true, false});
  TestTensor cols(ScalarType::Long, {4});
  cols.fill<int64_t>({2, 1, 0, 1});
  TestTensor out2(ScalarType::Float, {4, 4});
  ASSERT_EQ(c.run(native::index_tensor_out,
                  {c.t(self), c.tensors({&rows, &cols}, true), c.t(out2)}),
            Error::Ok);
  // x[[True, False], [2, 1, 0, 1]]
  EXPECT_EQ(out2.values<float>(), (std::vector<float>{8, 9, 10, 11, 4, 5, 6, 7,
                                                      0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_F(ShapeIndexTensor, RejectsBadIndices) {
  TestTensor oob(ScalarType::Long, {1});
  oob.fill<int64_t>({2});
  TestTensor flt(ScalarType::Float, {1});
  TestTensor bad_mask(ScalarType::Bool, {3});
  TestTensor out(ScalarType::Float, {1, 3, 4});
  EXPECT_EQ(c.run(native::index_tensor_out, {c.t(self), c.tensors({&oob}, true), c.t(out)}),
            Error::InvalidArgument);
  EXPECT_EQ(c.run(native::index_tensor_out, {c.t(self), c.tensors({&flt}, true), c.t(out)}),
            Error::InvalidType);
  EXPECT_EQ(
      c.run(native::index_tensor_out, {c.t(self), c.tensors({&bad_mask}, true), c.t(out)}),
      Error::InvalidArgument);
  EXPECT_EQ(c.run(native::index_tensor_out,
                  {c.t(self), c.tensors({nullptr, nullptr, nullptr, &oob}, true), c.t(out)}),
            Error::InvalidArgument);
}

}  // namespace
}  // namespace torchedge
