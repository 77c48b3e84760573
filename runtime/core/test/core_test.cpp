// Tests of the core types: errors and messages, Result, allocators, the
// dtype table, 16-bit floats, Tensor shapes and resizing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "runtime/core/error_message.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace {

Error fails_with_message() {
  TE_CHECK_OR_RETURN(1 + 1 == 3, Error::InvalidArgument, "expected %d, got %d", 3, 2);
  return Error::Ok;
}

Result<int> half_of(int x) {
  TE_CHECK_OR_RETURN(x % 2 == 0, Error::InvalidArgument, "%d is odd", x);
  return x / 2;
}

Error quarter(int x, int* out) {
  TE_ASSIGN_OR_RETURN(int h, half_of(x));
  TE_ASSIGN_OR_RETURN(int q, half_of(h));
  *out = q;
  return Error::Ok;
}

TEST(ErrorTest, CheckRecordsMessageAndContextPrepends) {
  EXPECT_EQ(fails_with_message(), Error::InvalidArgument);
  EXPECT_STREQ(last_error_message(), "expected 3, got 2");
  prepend_error_context("instruction %d", 4);
  EXPECT_STREQ(last_error_message(), "instruction 4: expected 3, got 2");
  EXPECT_STREQ(error_name(Error::InvalidProgram), "InvalidProgram");
}

TEST(ErrorTest, LongMessagesAreTruncatedNotOverflowed) {
  char big[2 * kErrorMessageCapacity];
  memset(big, 'x', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  record_error_message("%s", big);
  EXPECT_EQ(strlen(last_error_message()), kErrorMessageCapacity - 1);
  prepend_error_context("%s", big);
  EXPECT_EQ(strlen(last_error_message()), kErrorMessageCapacity - 1);
}

TEST(ResultTest, ValueAndErrorPropagate) {
  int q = 0;
  EXPECT_EQ(quarter(12, &q), Error::Ok);
  EXPECT_EQ(q, 3);
  EXPECT_EQ(quarter(6, &q), Error::InvalidArgument);
  EXPECT_STREQ(last_error_message(), "3 is odd");
  Result<int> ok_result(5);
  EXPECT_TRUE(ok_result.ok());
  Result<int> bad(Error::Ok);  // Ok is not an error value: becomes Internal
  EXPECT_EQ(bad.error(), Error::Internal);
}

TEST(MemoryAllocatorTest, AlignsAndRefusesOverflow) {
  alignas(64) uint8_t pool[256];
  MemoryAllocator a(pool, sizeof(pool));
  void* p = a.allocate(3, 1);
  void* q = a.allocate(8, 64);
  ASSERT_NE(p, nullptr);
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(q) % 64, 0u);
  EXPECT_EQ(a.allocate(1000), nullptr);
  EXPECT_EQ(a.allocate(SIZE_MAX), nullptr);
  EXPECT_EQ(a.allocate_array<uint64_t>(SIZE_MAX / 4), nullptr);
  a.reset();
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.allocate(256, 1), static_cast<void*>(pool));
}

TEST(ScalarTypeTest, TableMatchesWireValues) {
  EXPECT_EQ(element_size(ScalarType::Float), 4u);
  EXPECT_EQ(element_size(ScalarType::Long), 8u);
  EXPECT_EQ(element_size(ScalarType::BFloat16), 2u);
  EXPECT_STREQ(to_string(ScalarType::Bool), "bool");
  EXPECT_TRUE(is_valid_scalar_type(6));
  EXPECT_TRUE(is_valid_scalar_type(9));    // complex64
  EXPECT_FALSE(is_valid_scalar_type(12));  // qint8
  EXPECT_FALSE(is_valid_scalar_type(-1));
  EXPECT_FALSE(is_valid_scalar_type(99));
  EXPECT_EQ(ScalarTypeOf<int64_t>::value, ScalarType::Long);
}

TEST(HalfTest, RoundTripsAndRoundsToNearestEven) {
  // Values from torch.tensor([...]).to(torch.float16).float()
  EXPECT_EQ(static_cast<float>(Half(1.0f)), 1.0f);
  EXPECT_EQ(static_cast<float>(Half(0.1f)), 0.0999755859375f);
  EXPECT_EQ(static_cast<float>(Half(65504.f)), 65504.f);
  EXPECT_TRUE(std::isinf(static_cast<float>(Half(1e6f))));
  EXPECT_EQ(static_cast<float>(Half(1e-7f)), 1.1920928955078125e-07f);  // subnormal
  EXPECT_TRUE(std::isnan(static_cast<float>(Half(NAN))));
  // torch.tensor([0.1, 3.14159]).to(torch.bfloat16).float()
  EXPECT_EQ(static_cast<float>(BFloat16(0.1f)), 0.10009765625f);
  EXPECT_EQ(static_cast<float>(BFloat16(3.14159f)), 3.140625f);
}

TEST(TensorTest, StridesFollowDimOrder) {
  int32_t sizes[4] = {2, 3, 4, 5};
  int32_t strides[4];
  uint8_t contiguous[4] = {0, 1, 2, 3};
  float data[120];
  Tensor t(ScalarType::Float, 4, sizes, contiguous, strides, data);
  EXPECT_EQ(t.numel(), 120u);
  EXPECT_EQ(t.nbytes(), 480u);
  EXPECT_EQ(t.stride(0), 60);
  EXPECT_EQ(t.stride(3), 1);
  EXPECT_TRUE(t.is_contiguous());
  uint8_t channels_last[4] = {0, 2, 3, 1};
  Tensor cl(ScalarType::Float, 4, sizes, channels_last, strides, data);
  EXPECT_EQ(cl.stride(1), 1);
  EXPECT_EQ(cl.stride(3), 3);
  EXPECT_EQ(cl.stride(2), 15);
  EXPECT_EQ(cl.stride(0), 60);
  EXPECT_FALSE(cl.is_contiguous());
}

TEST(TensorTest, ResizeRespectsDynamismAndBound) {
  int32_t sizes[2] = {4, 8};
  int32_t strides[2];
  uint8_t order[2] = {0, 1};
  float data[32];
  Tensor fixed(ScalarType::Float, 2, sizes, order, strides, data);
  const int32_t same[2] = {4, 8};
  const int32_t smaller[2] = {2, 8};
  EXPECT_EQ(fixed.resize({same, 2}), Error::Ok);
  EXPECT_EQ(fixed.resize({smaller, 2}), Error::InvalidArgument);
  EXPECT_NE(strstr(last_error_message(), "static shape [4, 8] cannot become [2, 8]"), nullptr);

  int32_t dsizes[2] = {4, 8};
  Tensor dynamic(ScalarType::Float, 2, dsizes, order, strides, data,
                 TensorShapeDynamism::DynamicBound);
  EXPECT_EQ(dynamic.resize({smaller, 2}), Error::Ok);
  EXPECT_EQ(dynamic.numel(), 16u);
  EXPECT_EQ(dynamic.stride(0), 8);
  const int32_t larger[2] = {5, 8};
  EXPECT_EQ(dynamic.resize({larger, 2}), Error::InvalidArgument);
  EXPECT_EQ(dynamic.numel(), 16u);  // unchanged on failure
  const int32_t rank1[1] = {4};
  EXPECT_EQ(dynamic.resize({rank1, 1}), Error::InvalidArgument);
}

TEST(TensorTest, RankZeroHasOneElement) {
  float value = 3.f;
  Tensor scalar(ScalarType::Float, 0, nullptr, nullptr, nullptr, &value);
  EXPECT_EQ(scalar.numel(), 1u);
  EXPECT_EQ(scalar.nbytes(), 4u);
}

TEST(EValueTest, TagsAndBoxedIntLists) {
  EValue a(int64_t{3});
  EValue b(int64_t{7});
  EValue* items[2] = {&a, &b};
  int64_t scratch[2];
  EValue list(IntListRef(items, scratch, 2));
  EXPECT_EQ(list.tag(), Tag::IntList);
  EXPECT_EQ(list.to_int_list()[1], 7);
  b = EValue(int64_t{9});  // a value computed at run time shows through
  EXPECT_EQ(list.to_int_list()[1], 9);
  EXPECT_TRUE(EValue(2.5).is_scalar());
  EXPECT_EQ(EValue(true).scalar_as_int(), 1);
  EXPECT_STREQ(tag_name(Tag::OptionalTensorList), "OptionalTensorList");
}

}  // namespace
}  // namespace torchedge
