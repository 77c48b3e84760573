// torchedge/runtime/core/evalue.h
//
// EValue: the tagged value a kernel argument or a method input/output holds.
//
// Ownership: an EValue owns nothing. Tensors, strings and list storage point
// into the program (flatbuffer) or the method allocator and must outlive it.
//
// Int lists are "boxed": the file stores, for each element, the index of an
// Int value, so an element can be computed at run time (a symbolic size).
// IntListRef::get() re-reads the elements into its unboxed array each call.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/span.h"
#include "runtime/core/tensor.h"

namespace torchedge {

class EValue;

enum class Tag : uint8_t {
  None,
  Int,
  Double,
  Bool,
  Tensor,
  String,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};

/// Name of a tag ("Tensor"), for error messages.
const char* tag_name(Tag tag);

struct StringView {
  const char* data;
  size_t size;
};

class IntListRef {
 public:
  IntListRef() = default;
  /// `items[i]` must point to Int EValues; `scratch` must hold `size` int64.
  IntListRef(EValue* const* items, int64_t* scratch, size_t size)
      : items_(items), scratch_(scratch), size_(size) {}
  /// The current element values (valid until the next get()).
  Span<const int64_t> get() const;
  size_t size() const { return size_; }

 private:
  EValue* const* items_ = nullptr;
  int64_t* scratch_ = nullptr;
  size_t size_ = 0;
};

class EValue final {
 public:
  EValue() : tag_(Tag::None) { payload_.i = 0; }
  explicit EValue(int64_t v) : tag_(Tag::Int) { payload_.i = v; }
  explicit EValue(double v) : tag_(Tag::Double) { payload_.d = v; }
  explicit EValue(bool v) : tag_(Tag::Bool) { payload_.b = v; }
  explicit EValue(Tensor* t) : tag_(Tag::Tensor) { payload_.t = t; }
  explicit EValue(StringView s) : tag_(Tag::String) { payload_.s = s; }
  explicit EValue(IntListRef l) : tag_(Tag::IntList) { payload_.il = l; }
  explicit EValue(Span<const double> l) : tag_(Tag::DoubleList) { payload_.dl = l; }
  explicit EValue(Span<const bool> l) : tag_(Tag::BoolList) { payload_.bl = l; }
  /// TensorList (no nulls) or OptionalTensorList (null = None).
  EValue(Span<Tensor* const> l, bool optional)
      : tag_(optional ? Tag::OptionalTensorList : Tag::TensorList) {
    payload_.tl = l;
  }

  Tag tag() const { return tag_; }
  bool is_none() const { return tag_ == Tag::None; }
  bool is_tensor() const { return tag_ == Tag::Tensor; }
  bool is_int() const { return tag_ == Tag::Int; }
  bool is_double() const { return tag_ == Tag::Double; }
  bool is_bool() const { return tag_ == Tag::Bool; }
  /// Int, Double or Bool: usable where the schema says `Scalar`.
  bool is_scalar() const { return tag_ == Tag::Int || tag_ == Tag::Double || tag_ == Tag::Bool; }

  // Accessors: the tag must match (checked by the caller or by kernels'
  // argument validation); a mismatch is a bug.
  int64_t to_int() const { return payload_.i; }
  double to_double() const { return payload_.d; }
  bool to_bool() const { return payload_.b; }
  Tensor& to_tensor() const { return *payload_.t; }
  Tensor* tensor_ptr() const { return payload_.t; }
  StringView to_string() const { return payload_.s; }
  Span<const int64_t> to_int_list() const { return payload_.il.get(); }
  Span<const double> to_double_list() const { return payload_.dl; }
  Span<const bool> to_bool_list() const { return payload_.bl; }
  Span<Tensor* const> to_tensor_list() const { return payload_.tl; }

  /// A Scalar as double (Int/Bool converted). Tag must be a scalar tag.
  double scalar_as_double() const {
    return tag_ == Tag::Double ? payload_.d
                               : (tag_ == Tag::Int ? static_cast<double>(payload_.i)
                                                   : (payload_.b ? 1.0 : 0.0));
  }
  /// A Scalar as int64 (Double truncated). Tag must be a scalar tag.
  int64_t scalar_as_int() const {
    return tag_ == Tag::Int ? payload_.i
                            : (tag_ == Tag::Double ? static_cast<int64_t>(payload_.d)
                                                   : (payload_.b ? 1 : 0));
  }

 private:
  Tag tag_;
  union Payload {
    int64_t i;
    double d;
    bool b;
    Tensor* t;
    StringView s;
    IntListRef il;
    Span<const double> dl;
    Span<const bool> bl;
    Span<Tensor* const> tl;
    Payload() : i(0) {}
  } payload_;
};

inline Span<const int64_t> IntListRef::get() const {
  for (size_t i = 0; i < size_; ++i) scratch_[i] = items_[i]->to_int();
  return {scratch_, size_};
}

}  // namespace torchedge
