// The selective kernel library built from kernels/selective/test/mlp_ops.yaml
// (the mlp model's four kernels, float32 only): exactly those kernels are
// registered, only float32 is registered as their dtype (load_method's
// check), and only float32 is compiled (a call with another dtype reports
// the gap instead of computing).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "kernels/selective/register_selected_kernels.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_registry.h"

namespace torchedge {
namespace {

class SmallTensor {
 public:
  SmallTensor(ScalarType dtype, int32_t n) {
    sizes_[0] = n;
    tensor_ = Tensor(dtype, 1, sizes_, order_, strides_, data_);
    value_ = EValue(&tensor_);
  }
  EValue* value() { return &value_; }
  template <typename T>
  T* data() {
    return reinterpret_cast<T*>(data_);
  }

 private:
  int32_t sizes_[1];
  uint8_t order_[1] = {0};
  int32_t strides_[1];
  alignas(16) uint8_t data_[64] = {};
  Tensor tensor_;
  EValue value_;
};

class SelectiveKernelsTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(register_selected_kernels(), Error::Ok); }
};

TEST_F(SelectiveKernelsTest, RegistersExactlyTheListedKernels) {
  EXPECT_EQ(num_registered_kernels(), 4u);
  for (const char* name : {"aten::mul.out", "aten::relu.out", "aten::sigmoid.out",
                           "torchedge::linear_prepacked.out"}) {
    EXPECT_TRUE(find_kernel(name).ok()) << name;
  }
  auto missing = find_kernel("aten::add.out");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error(), Error::OperatorMissing);
}

TEST_F(SelectiveKernelsTest, RegistersOnlyTheListedDtypes) {
  const DtypeMask float32 = DtypeMask{1} << static_cast<int>(ScalarType::Float);
  EXPECT_EQ(kernel_dtypes("aten::mul.out"), float32);
  EXPECT_EQ(kernel_dtypes("aten::relu.out"), float32);
}

TEST_F(SelectiveKernelsTest, ComputesTheListedDtype) {
  auto mul = find_kernel("aten::mul.out");
  ASSERT_TRUE(mul.ok());
  SmallTensor a(ScalarType::Float, 3), b(ScalarType::Float, 3), out(ScalarType::Float, 3);
  const float av[] = {1.5f, -2.0f, 4.0f}, bv[] = {2.0f, 3.0f, -0.25f};
  memcpy(a.data<float>(), av, sizeof(av));
  memcpy(b.data<float>(), bv, sizeof(bv));
  EValue* args[] = {a.value(), b.value(), out.value()};
  KernelContext ctx;
  ASSERT_EQ((*mul)(ctx, {args, 3}), Error::Ok) << last_error_message();
  EXPECT_EQ(out.data<float>()[0], 3.0f);
  EXPECT_EQ(out.data<float>()[1], -6.0f);
  EXPECT_EQ(out.data<float>()[2], -1.0f);
}

TEST_F(SelectiveKernelsTest, AnotherDtypeIsNotCompiledIn) {
  auto mul = find_kernel("aten::mul.out");
  ASSERT_TRUE(mul.ok());
  SmallTensor a(ScalarType::Long, 2), b(ScalarType::Long, 2), out(ScalarType::Long, 2);
  EValue* args[] = {a.value(), b.value(), out.value()};
  KernelContext ctx;
  EXPECT_EQ((*mul)(ctx, {args, 3}), Error::InvalidType);
  const std::string message = last_error_message();
  EXPECT_NE(message.find("int64"), std::string::npos) << message;
  EXPECT_NE(message.find("not compiled into this selective build"), std::string::npos) << message;
}

}  // namespace
}  // namespace torchedge
