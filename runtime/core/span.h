// torchedge/runtime/core/span.h
//
// Span<T>: a non-owning (pointer, size) view, like C++20 std::span. The
// pointed-to memory must outlive the span; nothing is copied or freed.
#pragma once

#include <cstddef>

namespace torchedge {

template <typename T>
class Span final {
 public:
  constexpr Span() : data_(nullptr), size_(0) {}
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <size_t N>
  constexpr /* implicit */ Span(T (&array)[N]) : data_(array), size_(N) {}
  /// Span<const T> from Span<T>.
  template <typename U>
  constexpr /* implicit */ Span(const Span<U>& other) : data_(other.data()), size_(other.size()) {}

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](size_t i) const { return data_[i]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

 private:
  T* data_;
  size_t size_;
};

}  // namespace torchedge
