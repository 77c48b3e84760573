#include "runtime/core/tensor.h"

#include <cstdio>

#include "runtime/core/error_message.h"

namespace torchedge {

Tensor::Tensor(ScalarType dtype, int dim, SizesType* sizes, uint8_t* dim_order,
               SizesType* strides, void* data, TensorShapeDynamism dynamism)
    : dtype_(dtype),
      dim_(static_cast<int8_t>(dim)),
      dynamism_(dynamism),
      sizes_(sizes),
      dim_order_(dim_order),
      strides_(strides),
      data_(data) {
  compute_strides();
  capacity_numel_ = numel_;
}

void Tensor::compute_strides() {
  // Walk the dim order from innermost to outermost; each stride is the
  // product of the sizes of the dims laid out inside it.
  size_t running = 1;
  for (int i = dim_ - 1; i >= 0; --i) {
    const int d = dim_order_[i];
    strides_[d] = static_cast<SizesType>(running);
    running *= static_cast<size_t>(sizes_[d]);
  }
  numel_ = running;
}

bool Tensor::is_contiguous() const {
  for (int i = 0; i < dim_; ++i) {
    if (dim_order_[i] != i) return false;
  }
  return true;
}

Error Tensor::resize(Span<const SizesType> new_sizes) {
  char want[128];
  char have[128];
  TE_CHECK_OR_RETURN(new_sizes.size() == static_cast<size_t>(dim_), Error::InvalidArgument,
                     "cannot resize a %d-d tensor %s to %s", dim_,
                     format_sizes(sizes(), have, sizeof(have)),
                     format_sizes(new_sizes, want, sizeof(want)));
  size_t numel = 1;
  bool same = true;
  for (size_t i = 0; i < new_sizes.size(); ++i) {
    TE_CHECK_OR_RETURN(new_sizes[i] >= 0, Error::InvalidArgument, "negative size in %s",
                       format_sizes(new_sizes, want, sizeof(want)));
    numel *= static_cast<size_t>(new_sizes[i]);
    same = same && new_sizes[i] == sizes_[i];
  }
  if (same) return Error::Ok;
  TE_CHECK_OR_RETURN(dynamism_ != TensorShapeDynamism::Static, Error::InvalidArgument,
                     "static shape %s cannot become %s", format_sizes(sizes(), have, sizeof(have)),
                     format_sizes(new_sizes, want, sizeof(want)));
  TE_CHECK_OR_RETURN(numel <= capacity_numel_, Error::InvalidArgument,
                     "shape %s (%zu elements) exceeds the planned upper bound of %zu elements",
                     format_sizes(new_sizes, want, sizeof(want)), numel, capacity_numel_);
  for (size_t i = 0; i < new_sizes.size(); ++i) sizes_[i] = new_sizes[i];
  compute_strides();
  return Error::Ok;
}

const char* format_sizes(Span<const Tensor::SizesType> sizes, char* buffer, size_t capacity) {
  if (capacity == 0) return buffer;
  size_t used = 0;
  auto append = [&](const char* text, long value, bool with_value) {
    if (used + 1 >= capacity) return;
    const int n = with_value ? snprintf(buffer + used, capacity - used, text, value)
                             : snprintf(buffer + used, capacity - used, "%s", text);
    if (n > 0) used += static_cast<size_t>(n) < capacity - used ? static_cast<size_t>(n)
                                                                : capacity - used - 1;
  };
  buffer[0] = '\0';
  append("[", 0, false);
  for (size_t i = 0; i < sizes.size(); ++i) {
    append(i == 0 ? "%ld" : ", %ld", static_cast<long>(sizes[i]), true);
  }
  append("]", 0, false);
  return buffer;
}

}  // namespace torchedge
