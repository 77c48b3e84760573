// torchedge/backends/xnnpack/test/delegate_harness.h
//
// What the XNNPACK backend tests share: LoadedDelegate (init a blob through
// the registered backend with a private method allocator, execute on test
// tensors, destroy at scope exit) and helpers to lay out NCHW weights the
// way preprocess does. Reuses TestTensor/Args from the portable kernel
// tests, so results can be checked against the portable kernels.
#pragma once

#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "backends/xnnpack/test/blob_builder.h"
#include "backends/xnnpack/xnnpack_backend.h"
#include "kernels/portable/test/nn_test_harness.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {

using xnnpack::Boundary;
using xnnpack::OpCode;
using xnnpack::testing::BlobBuilder;

class LoadedDelegate {
 public:
  explicit LoadedDelegate(const std::vector<uint8_t>& blob, size_t allocator_bytes = 8 << 20)
      // The arena starts 64-aligned so that the bytes init needs do not depend
      // on where the heap put pool_ (the backend makes 64-aligned requests).
      : pool_(allocator_bytes / 8 + 9),
        allocator_(align64(pool_.data()), allocator_bytes) {
    register_xnnpack_backend();
    backend_ = find_backend("XnnpackBackend");
    Result<DelegateHandle*> handle =
        backend_->init({blob.data(), blob.size()}, {}, &allocator_);
    init_error_ = handle.ok() ? Error::Ok : handle.error();
    if (handle.ok()) handle_ = handle.get();
  }
  ~LoadedDelegate() {
    if (handle_ != nullptr) backend_->destroy(handle_);
  }
  LoadedDelegate(const LoadedDelegate&) = delete;
  LoadedDelegate& operator=(const LoadedDelegate&) = delete;

  Error init_error() const { return init_error_; }
  size_t allocator_used() const { return allocator_.used(); }

  Error execute(std::vector<TestTensor*> args) {
    prepare(args);
    return execute_prepared();
  }

  // Boxes the arguments once, so execute_prepared() itself allocates nothing.
  void prepare(const std::vector<TestTensor*>& args) {
    values_.clear();
    ptrs_.clear();
    for (TestTensor* t : args) values_.emplace_back(t->get());
    for (EValue& v : values_) ptrs_.push_back(&v);
  }
  Error execute_prepared() { return backend_->execute(handle_, {ptrs_.data(), ptrs_.size()}); }

 private:
  static void* align64(uint64_t* p) {
    const uintptr_t address = reinterpret_cast<uintptr_t>(p);
    return reinterpret_cast<void*>((address + 63) & ~uintptr_t{63});
  }

  std::vector<uint64_t> pool_;
  MemoryAllocator allocator_;
  const BackendInterface* backend_ = nullptr;
  DelegateHandle* handle_ = nullptr;
  Error init_error_ = Error::Internal;
  std::vector<EValue> values_;
  std::vector<EValue*> ptrs_;
};

// PyTorch OIHW weights -> XNNPACK OHWI (regular and grouped convolution).
inline std::vector<float> oihw_to_ohwi(const std::vector<float>& w, uint32_t o, uint32_t i,
                                       uint32_t h, uint32_t k) {
  std::vector<float> out(w.size());
  for (uint32_t a = 0; a < o; ++a)
    for (uint32_t b = 0; b < i; ++b)
      for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < k; ++x)
          out[((a * h + y) * k + x) * i + b] = w[((a * i + b) * h + y) * k + x];
  return out;
}

// PyTorch depthwise [C*M, 1, H, W] -> XNNPACK [1, H, W, C*M].
inline std::vector<float> depthwise_to_hwc(const std::vector<float>& w, uint32_t cm, uint32_t h,
                                           uint32_t k) {
  std::vector<float> out(w.size());
  for (uint32_t c = 0; c < cm; ++c)
    for (uint32_t y = 0; y < h; ++y)
      for (uint32_t x = 0; x < k; ++x) out[(y * k + x) * cm + c] = w[(c * h + y) * k + x];
  return out;
}

// Deterministic values in [-1, 1).
inline std::vector<float> pseudo_random(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = static_cast<float>(s >> 8) / static_cast<float>(1u << 23) - 1.0f;
  }
  return v;
}

constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace
}  // namespace torchedge
