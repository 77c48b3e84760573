// torchedge/extension/module/tensor_buffer.h
//
// TensorBuffer: a Tensor that owns its shape arrays and data, for callers
// building inputs (apps, the CLI, the Python bindings). Heap-backed; build
// inputs before execute(), not inside it.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/core/tensor.h"

namespace torchedge {

class TensorBuffer final {
 public:
  /// Contiguous tensor of `sizes`, zero-filled.
  TensorBuffer(ScalarType dtype, const std::vector<int32_t>& sizes);
  TensorBuffer(TensorBuffer&& other) noexcept;
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  Tensor& tensor() { return tensor_; }
  const Tensor& tensor() const { return tensor_; }
  void* data() { return storage_.data(); }
  size_t nbytes() const { return tensor_.nbytes(); }

 private:
  void rebind();

  std::vector<int32_t> sizes_;
  std::vector<int32_t> strides_;
  std::vector<uint8_t> dim_order_;
  std::vector<uint64_t> storage_;  // uint64 keeps the data 8-byte aligned
  ScalarType dtype_;
  Tensor tensor_;
};

}  // namespace torchedge
