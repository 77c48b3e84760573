// torchedge/runtime/core/tensor.h
//
// Tensor: a typed, shaped, non-owning view of memory.
//
// Ownership: a Tensor owns nothing. Its sizes/dim_order/strides arrays and
// its data live in memory the caller provides (for a Method: the method
// allocator for metadata, the planned arena or the program's constant
// segment for data). All of them must outlive the Tensor.
//
// Shapes are int32 (as in the file format). Strides always describe the
// dim order densely (torchedge never holds non-dense tensors); dim_order[0]
// is the outermost dimension, so contiguous is {0, 1, ..., n-1} and
// channels-last 4-D is {0, 2, 3, 1}.
//
// Resizing keeps the rank and never moves data: a STATIC tensor accepts only
// its own shape, a DYNAMIC_BOUND tensor any shape whose element count fits
// the capacity it was created with (its upper bound).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/error.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"

namespace torchedge {

constexpr int kTensorDimensionLimit = 16;

enum class TensorShapeDynamism : uint8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };

class Tensor final {
 public:
  using SizesType = int32_t;

  Tensor() = default;

  /// `sizes`, `dim_order` and `strides` must each hold `dim` elements;
  /// `strides` is (re)computed here from sizes and dim_order. `data` may be
  /// null until bound (inputs). The initial shape is the capacity bound.
  Tensor(ScalarType dtype, int dim, SizesType* sizes, uint8_t* dim_order, SizesType* strides,
         void* data, TensorShapeDynamism dynamism = TensorShapeDynamism::Static);

  ScalarType dtype() const { return dtype_; }
  int dim() const { return dim_; }
  size_t numel() const { return numel_; }
  size_t nbytes() const { return numel_ * element_size(dtype_); }
  /// Bytes available at data() (the bound the tensor was created with).
  size_t capacity_bytes() const { return capacity_numel_ * element_size(dtype_); }
  TensorShapeDynamism shape_dynamism() const { return dynamism_; }

  Span<const SizesType> sizes() const { return {sizes_, static_cast<size_t>(dim_)}; }
  Span<const SizesType> strides() const { return {strides_, static_cast<size_t>(dim_)}; }
  Span<const uint8_t> dim_order() const { return {dim_order_, static_cast<size_t>(dim_)}; }
  /// Size of dimension `d`; negative d counts from the end. `d` must be valid.
  SizesType size(int d) const { return sizes_[d < 0 ? d + dim_ : d]; }
  SizesType stride(int d) const { return strides_[d < 0 ? d + dim_ : d]; }
  bool is_contiguous() const;

  void* mutable_data() const { return data_; }
  const void* data() const { return data_; }
  template <typename T>
  T* mutable_data_as() const { return static_cast<T*>(data_); }
  template <typename T>
  const T* data_as() const { return static_cast<const T*>(data_); }

  /// Points the tensor at new memory (which must hold capacity_bytes()).
  void set_data(void* data) { data_ = data; }

  /// Changes the shape within the rules above. On error the tensor is
  /// unchanged and a message naming both shapes is recorded.
  Error resize(Span<const SizesType> new_sizes);

 private:
  void compute_strides();

  ScalarType dtype_ = ScalarType::Float;
  int8_t dim_ = 0;
  TensorShapeDynamism dynamism_ = TensorShapeDynamism::Static;
  SizesType* sizes_ = nullptr;
  uint8_t* dim_order_ = nullptr;
  SizesType* strides_ = nullptr;
  void* data_ = nullptr;
  size_t numel_ = 1;
  size_t capacity_numel_ = 1;
};

/// Writes "[1, 3, 224, 224]" into `buffer` (always terminated); returns buffer.
const char* format_sizes(Span<const Tensor::SizesType> sizes, char* buffer, size_t capacity);

}  // namespace torchedge
