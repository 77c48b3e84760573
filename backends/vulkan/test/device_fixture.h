// torchedge/backends/vulkan/test/device_fixture.h
//
// What the Vulkan runtime tests share: lavapipe as the driver unless one
// was chosen, host tensors with their own storage, and a fixture that
// registers the backend and skips (with the reason) where no Vulkan device
// exists.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "backends/vulkan/vulkan_backend.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"
#include "runtime/core/half.h"
#include "runtime/core/tensor.h"

namespace torchedge {
namespace vulkan {
namespace testing {

// Tests use lavapipe unless a driver was chosen (scripts/vulkan_device_check.sh
// sets TORCHEDGE_VULKAN_TEST_DEVICE=system to use the machine's GPU).
inline const bool kIcdChosen = [] {
  const char* system = getenv("TORCHEDGE_VULKAN_TEST_DEVICE");
  if ((system == nullptr || std::string(system) != "system") && getenv("VK_ICD_FILENAMES") == nullptr &&
      getenv("VK_DRIVER_FILES") == nullptr) {
    setenv("VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json", 0);
  }
  return true;
}();

// A float32 tensor (float16 with HalfTensor) with its own storage.
template <typename Element, ScalarType kType>
struct OwnedTensor {
  std::vector<int32_t> sizes;
  std::vector<int32_t> strides;
  std::vector<uint8_t> order;
  std::vector<Element> data;
  Tensor tensor;
  EValue value;

  OwnedTensor(std::vector<int32_t> s, const std::vector<float>& values)
      : sizes(std::move(s)), data(values.begin(), values.end()) {
    strides.resize(sizes.size());
    order.resize(sizes.size());
    int32_t step = 1;
    for (int d = static_cast<int>(sizes.size()) - 1; d >= 0; --d) {
      strides[d] = step;
      step *= sizes[d];
      order[d] = static_cast<uint8_t>(d);
    }
    tensor = Tensor(kType, static_cast<int>(sizes.size()), sizes.data(), order.data(),
                    strides.data(), data.data());
    value = EValue(&tensor);
  }
};
using HostTensor = OwnedTensor<float, ScalarType::Float>;
using HalfTensor = OwnedTensor<Half, ScalarType::Half>;

class VulkanRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(register_vulkan_backend(), Error::Ok);
    backend_ = find_backend("VulkanBackend");
    ASSERT_NE(backend_, nullptr);
    if (!backend_->is_available()) {
      GTEST_SKIP() << "no Vulkan device: " << last_error_message();
    }
  }

  Result<DelegateHandle*> init(const std::vector<uint8_t>& blob) {
    return backend_->init({blob.data(), blob.size()}, {}, &allocator_);
  }

  const BackendInterface* backend_ = nullptr;
  std::vector<uint64_t> arena_ = std::vector<uint64_t>(1 << 16);
  MemoryAllocator allocator_{arena_.data(), arena_.size() * 8};
};

}  // namespace testing
}  // namespace vulkan
}  // namespace torchedge
