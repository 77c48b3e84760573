#include "extension/module/tensor_buffer.h"

namespace torchedge {

TensorBuffer::TensorBuffer(ScalarType dtype, const std::vector<int32_t>& sizes)
    : sizes_(sizes), strides_(sizes.size()), dim_order_(sizes.size()), dtype_(dtype) {
  size_t numel = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    dim_order_[i] = static_cast<uint8_t>(i);
    numel *= static_cast<size_t>(sizes[i] < 0 ? 0 : sizes[i]);
  }
  storage_.assign((numel * element_size(dtype) + 7) / 8 + 1, 0);
  rebind();
}

TensorBuffer::TensorBuffer(TensorBuffer&& other) noexcept
    : sizes_(std::move(other.sizes_)),
      strides_(std::move(other.strides_)),
      dim_order_(std::move(other.dim_order_)),
      storage_(std::move(other.storage_)),
      dtype_(other.dtype_) {
  rebind();
}

void TensorBuffer::rebind() {
  tensor_ = Tensor(dtype_, static_cast<int>(sizes_.size()), sizes_.data(), dim_order_.data(),
                   strides_.data(), storage_.data());
}

}  // namespace torchedge
