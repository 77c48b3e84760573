// torchedge/kernels/portable/support/elementwise.h
//
// What every elementwise kernel (unary, binary, ternary, fills) shares:
//
//   1. Type promotion, exactly as eager ATen: promote_types(), the
//      three-tier result_type() (dimensioned tensors > zero-dim tensors >
//      Python scalars), expect_castable() for `out=` tensors of another
//      dtype (ATen's canCast, which lives in convert_copy.h).
//   2. Broadcasting: resize_to_broadcast() computes the broadcast shape
//      (numpy rules) and resizes `out` to it.
//   3. Element conversion: convert_element<To>(from), scalar_to<C>(Scalar).
//   4. Loops: map_unary / map_binary / map_ternary apply an op to every
//      element of `out`, reading each (broadcast) input at the same logical
//      index. Any dense dim order works for any operand.
//   5. Fills: fill_with_scalar() and ATen's overflow check for it.
//   6. Kernel skeletons for op families that differ only in the function
//      applied: unary ops (relu, exp, ...) and comparisons.
//
// A binary kernel, once its arguments are checked and `out` resized:
//
//   return switch_dtype_only<kRealTypes>(common, "mul.out", [&](auto tag) {
//     using T = decltype(tag);
//     return map_binary<T, T, T>(a, b, out, [](compute_t<T> x, compute_t<T> y) { return x * y; });
//   });
//
// Loop contract: the template arguments name the dtype each operand is
// computed as (TA, TB, ... for inputs, TOut for the result). The op gets
// compute_t<TA>, ... and returns something convertible to compute_t<TOut>.
// An input whose dtype is not TA is converted on load (actual -> TA ->
// compute_t<TA>, as ATen casts inputs to the common dtype first); the result
// is converted on store (compute_t<TOut> -> TOut -> out.dtype(), as ATen
// casts to an out= tensor of another dtype). When every dtype matches, the
// loop reads and writes typed pointers directly, and when every operand is
// dense in the same order and unbroadcast it is one flat loop.
// The maps fail (without writing) when an input does not broadcast to
// `out`'s shape or an operand's dtype is one torchedge cannot convert.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/kernel_args.h"
#include "runtime/core/error_message.h"
#include "runtime/core/evalue.h"
#include "runtime/core/tensor.h"

namespace torchedge {

// ---- 0. Dispatch -------------------------------------------------------------

/// True when T's dtype is in `set`, at compile time.
template <typename T>
constexpr bool is_in_dtype_set(DtypeSet set) {
  return (dtype_bit(ScalarTypeOf<T>::value) & set) != 0;
}

/// switch_dtype() that instantiates `f` only for the dtypes in kAllowed,
/// so a loop valid only for some dtypes (x & y) compiles and unused
/// instantiations cost no code.
template <DtypeSet kAllowed, typename F>
Error switch_dtype_only(ScalarType t, const char* op, F&& f) {
  if constexpr ((kAllowed & kComplexTypes) != 0) {
    if (is_complex(t)) return switch_complex_dtype(t, kAllowed, op, f);
  }
  return switch_dtype(t, kAllowed, op, [&](auto tag) {
    if constexpr (is_in_dtype_set<decltype(tag)>(kAllowed)) {
      return f(tag);
    } else {
      return Error::Internal;  // unreachable: switch_dtype rejected t already
    }
  });
}

// ---- 1. Type promotion ------------------------------------------------------

/// ATen's promoteTypes for torchedge's dtypes (bool < integral < floating;
/// uint8 with int8 -> int16; float16 with bfloat16 -> float32).
ScalarType promote_types(ScalarType a, ScalarType b);

/// The dtype a Python scalar takes in promotion: Double -> float32 (the
/// default dtype), Int -> int64, Bool -> bool. `scalar` must be a Scalar.
ScalarType scalar_dtype(const EValue& scalar);

/// ATen's result_type over any mix of operands: tensors with dim() > 0
/// decide unless a zero-dim tensor or a scalar is of a higher category
/// (bool < integral < floating), in which case that tier's dtype joins.
class ResultType final {
 public:
  void add(const Tensor& t);
  /// A Scalar EValue (None is ignored, for optional scalars).
  void add(const EValue& scalar);
  /// The promoted dtype; float32 if nothing was added.
  ScalarType get() const;

 private:
  struct Tier {
    bool set = false;
    ScalarType dtype = ScalarType::Float;
    void add(ScalarType t);
  };
  Tier dimensioned_, zero_dim_, wrapped_;
};

ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(const Tensor& a, const EValue& scalar);

/// The dtype of ops that always compute in floating point (exp, sigmoid,
/// true division): floating and complex dtypes stay, integral and bool
/// become float32.
inline ScalarType to_floating(ScalarType t) {
  return is_floating(t) || is_complex(t) ? t : ScalarType::Float;
}

/// Fails unless a `result` dtype may be written to `out` (can_cast).
Error expect_castable(ScalarType result, const Tensor& out, const char* op);

/// ATen's alpha check for add/sub/rsub: a bool alpha needs a bool result,
/// a floating alpha a floating result.
Error expect_valid_alpha(const EValue& alpha, ScalarType result, const char* op);

// ---- 2. Broadcasting --------------------------------------------------------

/// Resizes `out` to the broadcast shape of the inputs; fails if they do not
/// broadcast or `out` cannot take that shape (rank or capacity).
Error resize_to_broadcast(Tensor& out, const Tensor& a, const Tensor& b);
Error resize_to_broadcast(Tensor& out, const Tensor& a, const Tensor& b, const Tensor& c);

// ---- 3. Element conversion --------------------------------------------------

template <typename T>
constexpr bool is_reduced_float_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

/// Converts one element the way eager PyTorch does on x86 (and as
/// convert_copy.h does): 16-bit floats go through float, anything -> bool
/// is `!= 0` (NaN is true), floating -> 1- or 2-byte integers goes through
/// int32 (so -1.0 becomes 255 for uint8, 300.7 becomes 44).
template <typename To, typename From>
inline To convert_element(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (is_complex_v<From>) {
    // complex -> real keeps the real part (ATen warns and drops the
    // imaginary part); complex -> bool is true unless both parts are 0.
    if constexpr (is_complex_v<To>) {
      using R = typename To::value_type;
      return To(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else if constexpr (std::is_same_v<To, bool>) {
      return v.real() != 0 || v.imag() != 0;
    } else {
      return convert_element<To>(v.real());
    }
  } else if constexpr (is_complex_v<To>) {
    using R = typename To::value_type;
    return To(convert_element<R>(v), R(0));
  } else if constexpr (is_reduced_float_v<From>) {
    return convert_element<To>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<To> && sizeof(To) < 4 &&
                       std::is_floating_point_v<From>) {
    return static_cast<To>(static_cast<int32_t>(v));
  } else {
    return static_cast<To>(v);
  }
}

/// A Scalar EValue (Int, Double or Bool) as C, keeping int64 exact.
template <typename C>
inline C scalar_to(const EValue& v) {
  if (v.is_double()) return convert_element<C>(v.to_double());
  if (v.is_bool()) return convert_element<C>(v.to_bool());
  return convert_element<C>(v.to_int());
}

/// True for NaN; false for every integral or bool value.
template <typename C>
inline bool is_nan(C v) {
  if constexpr (is_complex_v<C>) {
    return complex_isnan(v);
  } else if constexpr (std::is_floating_point_v<C>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

/// NaN-propagating max/min as ATen's clamp uses them: NaN in either operand
/// wins, and a tie returns `a` (so max(-0.0, 0.0) is -0.0).
template <typename C>
inline C max_propagate_nan(C a, C b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return a < b ? b : a;
}
template <typename C>
inline C min_propagate_nan(C a, C b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  return b < a ? b : a;
}

/// Integer arithmetic that wraps like ATen's (two's complement) without
/// signed-overflow UB: integral operands are computed in an unsigned type
/// at least as wide as `unsigned`. Floating and bool operands use plain
/// arithmetic (bool: + is or, * is and, after the conversion back).
template <typename C>
using wrap_unsigned_t = std::conditional_t<(sizeof(C) < sizeof(unsigned)), unsigned,
                                           std::make_unsigned_t<C>>;
template <typename C>
constexpr bool is_wrapping_v = std::is_integral_v<C> && !std::is_same_v<C, bool>;

template <typename C>
inline C wrapping_add(C a, C b) {
  if constexpr (is_wrapping_v<C>) {
    using U = wrap_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return static_cast<C>(a + b);
  }
}
template <typename C>
inline C wrapping_sub(C a, C b) {
  if constexpr (is_wrapping_v<C>) {
    using U = wrap_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(a) - static_cast<U>(b));
  } else {
    return static_cast<C>(a - b);
  }
}
template <typename C>
inline C wrapping_mul(C a, C b) {
  if constexpr (is_wrapping_v<C>) {
    using U = wrap_unsigned_t<C>;
    return static_cast<C>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return static_cast<C>(a * b);
  }
}
template <typename C>
inline C wrapping_neg(C a) {
  return wrapping_sub(C(0), a);
}

// ---- 4. Loops ---------------------------------------------------------------

/// How to visit every element of `out` and the matching input elements:
/// dims in out's memory order, size-1 dims dropped, dims that are laid out
/// back to back in every operand merged. Operand 0 is out.
struct LoopPlan {
  static constexpr int kMaxOperands = 4;
  int rank = 0;  // >= 1 after plan_loop()
  int64_t numel = 0;
  bool flat = false;  // every operand is indexed by the flat element index
  int64_t sizes[kTensorDimensionLimit] = {};
  int64_t strides[kMaxOperands][kTensorDimensionLimit] = {};
};

/// Fills `plan` for `out` and `num_inputs` (<= 3) inputs; fails if an input
/// does not broadcast to out's shape.
Error plan_loop(const Tensor& out, const Tensor* const* inputs, int num_inputs, LoopPlan* plan);

/// Calls f(offsets) for every element, where offsets[k] is the element
/// offset of operand k.
template <int N, typename F>
void for_each_offset(const LoopPlan& p, F&& f) {
  if (p.numel == 0) return;
  const int inner = p.rank - 1;
  int64_t counter[kTensorDimensionLimit] = {};
  int64_t base[N] = {};
  for (;;) {
    int64_t off[N];
    for (int k = 0; k < N; ++k) off[k] = base[k];
    for (int64_t i = 0; i < p.sizes[inner]; ++i) {
      f(static_cast<const int64_t*>(off));
      for (int k = 0; k < N; ++k) off[k] += p.strides[k][inner];
    }
    int d = inner - 1;
    for (; d >= 0; --d) {  // odometer step over the outer dims
      for (int k = 0; k < N; ++k) base[k] += p.strides[k][d];
      if (++counter[d] < p.sizes[d]) break;
      for (int k = 0; k < N; ++k) base[k] -= p.strides[k][d] * p.sizes[d];
      counter[d] = 0;
    }
    if (d < 0) return;
  }
}

namespace elementwise_internal {

template <typename T>
using LoadFn = compute_t<T> (*)(const void* data, int64_t index);
template <typename T>
using StoreFn = void (*)(void* data, int64_t index, compute_t<T> value);

template <typename T, typename Src>
compute_t<T> load_converted(const void* data, int64_t i) {
  return static_cast<compute_t<T>>(convert_element<T>(static_cast<const Src*>(data)[i]));
}
template <typename T, typename Dst>
void store_converted(void* data, int64_t i, compute_t<T> v) {
  static_cast<Dst*>(data)[i] = convert_element<Dst>(static_cast<T>(v));
}

/// Loader from `src` to compute_t<T>; nullptr for an unsupported dtype.
/// Every dtype an operand may be loaded from or stored to with conversion.
constexpr DtypeSet kConvertibleTypes = kAllTypes | kComplexTypes;

template <typename T>
LoadFn<T> load_fn(ScalarType src) {
  LoadFn<T> fn = nullptr;
  if (!dtype_in(src, kConvertibleTypes)) return fn;
  (void)switch_dtype_only<kConvertibleTypes>(src, "load", [&](auto tag) {
    fn = &load_converted<T, decltype(tag)>;
    return Error::Ok;
  });
  return fn;
}
template <typename T>
StoreFn<T> store_fn(ScalarType dst) {
  StoreFn<T> fn = nullptr;
  if (!dtype_in(dst, kConvertibleTypes)) return fn;
  (void)switch_dtype_only<kConvertibleTypes>(dst, "store", [&](auto tag) {
    fn = &store_converted<T, decltype(tag)>;
    return Error::Ok;
  });
  return fn;
}

template <typename T>
struct DirectIn {
  const T* data;
  compute_t<T> load(int64_t i) const { return static_cast<compute_t<T>>(data[i]); }
};
template <typename T>
struct ConvertingIn {
  const void* data;
  LoadFn<T> fn;
  compute_t<T> load(int64_t i) const { return fn(data, i); }
};
template <typename T>
struct DirectOut {
  T* data;
  void store(int64_t i, compute_t<T> v) const { data[i] = static_cast<T>(v); }
};
template <typename T>
struct ConvertingOut {
  void* data;
  StoreFn<T> fn;
  void store(int64_t i, compute_t<T> v) const { fn(data, i, v); }
};

template <typename Out, typename Op, size_t... I, typename... In>
void run(const LoopPlan& plan, Out out, Op& op, std::index_sequence<I...>, In... in) {
  if (plan.flat) {
    for (int64_t i = 0; i < plan.numel; ++i) out.store(i, op(in.load(i)...));
    return;
  }
  for_each_offset<1 + sizeof...(In)>(
      plan, [&](const int64_t* off) { out.store(off[0], op(in.load(off[I + 1])...)); });
}

Error unconvertible_dtype(const Tensor& out, const Tensor* const* inputs, int num_inputs);

template <typename TOut, typename... TIn, size_t... I, typename Op>
Error map(std::index_sequence<I...> seq, Tensor& out, Op& op, const Tensor* const* ins) {
  constexpr int kInputs = static_cast<int>(sizeof...(TIn));
  LoopPlan plan;
  TE_RETURN_IF_ERROR(plan_loop(out, ins, kInputs, &plan));
  const bool direct = out.dtype() == ScalarTypeOf<TOut>::value &&
                      ((ins[I]->dtype() == ScalarTypeOf<TIn>::value) && ...);
  if (direct) {
    run(plan, DirectOut<TOut>{out.mutable_data_as<TOut>()}, op, seq,
        DirectIn<TIn>{ins[I]->template data_as<TIn>()}...);
    return Error::Ok;
  }
  const StoreFn<TOut> store = store_fn<TOut>(out.dtype());
  const bool convertible = store != nullptr && ((load_fn<TIn>(ins[I]->dtype()) != nullptr) && ...);
  if (!convertible) return unconvertible_dtype(out, ins, kInputs);
  run(plan, ConvertingOut<TOut>{out.mutable_data(), store}, op, seq,
      ConvertingIn<TIn>{ins[I]->data(), load_fn<TIn>(ins[I]->dtype())}...);
  return Error::Ok;
}

}  // namespace elementwise_internal

/// out[i] = op(a[i]); `out` must already have a's shape.
template <typename TA, typename TOut, typename Op>
Error map_unary(const Tensor& a, Tensor& out, Op op) {
  const Tensor* ins[] = {&a};
  return elementwise_internal::map<TOut, TA>(std::index_sequence_for<TA>{}, out, op, ins);
}

/// out[i] = op(a[i], b[i]) with a and b broadcast to out's shape.
template <typename TA, typename TB, typename TOut, typename Op>
Error map_binary(const Tensor& a, const Tensor& b, Tensor& out, Op op) {
  const Tensor* ins[] = {&a, &b};
  return elementwise_internal::map<TOut, TA, TB>(std::index_sequence_for<TA, TB>{}, out, op, ins);
}

/// out[i] = op(a[i], b[i], c[i]) with a, b and c broadcast to out's shape.
template <typename TA, typename TB, typename TC, typename TOut, typename Op>
Error map_ternary(const Tensor& a, const Tensor& b, const Tensor& c, Tensor& out, Op op) {
  const Tensor* ins[] = {&a, &b, &c};
  return elementwise_internal::map<TOut, TA, TB, TC>(std::index_sequence_for<TA, TB, TC>{}, out,
                                                     op, ins);
}

// ---- 5. Fills ---------------------------------------------------------------

/// Fails unless `scalar` converts to `dtype` without overflow (c10's
/// checked Scalar conversion, used by fill and clamp: an integral dtype
/// takes in-range integers and finite in-range floats, an unsigned one also
/// negative integers down to -max; a floating dtype takes any value up to
/// its max, inf and NaN).
Error expect_scalar_fits(const EValue& scalar, ScalarType dtype, const char* op);

/// Writes `scalar` (converted to out's dtype) to every element of `out`.
Error fill_with_scalar(Tensor& out, const EValue& scalar, const char* op);

// ---- 6. Kernel skeletons ----------------------------------------------------

/// `<op>.out(Tensor self, *, Tensor(a!) out)` for ops that compute in
/// floating point: integral and bool inputs give float32 (to_floating).
/// `fn` is a generic callable taking and returning float or double, and
/// std::complex<float> / <double> when kComplex is kComplexTypes (ops
/// whose std:: function has ATen's complex definition: exp, sin, ...).
template <DtypeSet kComplex = 0, typename Fn>
Error unary_floating_kernel(Span<EValue*> args, const char* op, Fn fn) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  const ScalarType common = to_floating(self->dtype());
  TE_RETURN_IF_ERROR(expect_castable(common, *out, op));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kFloatingTypes | kComplex>(common, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_unary<T, T>(*self, *out, [&fn](C x) { return static_cast<C>(fn(x)); });
  });
}

/// `<op>.out(Tensor self, *, Tensor(a!) out)` for ops that keep self's
/// dtype, which must be in kAllowed (relu, neg, silu, ...). `fn` is a
/// generic callable taking and returning compute_t of that dtype.
template <DtypeSet kAllowed, typename Fn>
Error unary_kernel(Span<EValue*> args, const char* op, Fn fn) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 2));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 1, "out"));
  TE_RETURN_IF_ERROR(expect_castable(self->dtype(), *out, op));
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllowed>(self->dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_unary<T, T>(*self, *out, [&fn](C x) { return static_cast<C>(fn(x)); });
  });
}

/// `<cmp>.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)`: both
/// operands compared in their promoted dtype; `cmp` is a generic callable
/// returning bool. `out` is normally bool but may be any dtype. Equality
/// ops pass kComplexTypes as kComplex (complex numbers are not ordered).
template <DtypeSet kComplex = 0, typename Cmp>
Error compare_tensor_kernel(Span<EValue*> args, const char* op, Cmp cmp) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const Tensor* other, tensor_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(resize_to_broadcast(*out, *self, *other));
  return switch_dtype_only<kAllTypes | kComplex>(common, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    return map_binary<T, T, bool>(*self, *other, *out, [&cmp](C x, C y) { return cmp(x, y); });
  });
}

/// `<cmp>.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)`.
template <DtypeSet kComplex = 0, typename Cmp>
Error compare_scalar_kernel(Span<EValue*> args, const char* op, Cmp cmp) {
  TE_RETURN_IF_ERROR(expect_arg_count(args, 3));
  TE_ASSIGN_OR_RETURN(const Tensor* self, tensor_arg(args, 0, "self"));
  TE_ASSIGN_OR_RETURN(const EValue* other, scalar_value_arg(args, 1, "other"));
  TE_ASSIGN_OR_RETURN(Tensor* out, tensor_arg(args, 2, "out"));
  const ScalarType common = result_type(*self, *other);
  TE_RETURN_IF_ERROR(resize_like(*out, *self));
  return switch_dtype_only<kAllTypes | kComplex>(common, op, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_t<T>;
    const C y = static_cast<C>(convert_element<T>(scalar_to<C>(*other)));
    return map_unary<T, bool>(*self, *out, [&cmp, y](C x) { return cmp(x, y); });
  });
}

}  // namespace torchedge
