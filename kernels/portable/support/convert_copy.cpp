#include "kernels/portable/support/convert_copy.h"

#include <cstdint>
#include <type_traits>

#include "kernels/portable/support/complex.h"
#include "kernels/portable/support/dtype_dispatch.h"
#include "kernels/portable/support/strided_copy.h"
#include "kernels/portable/support/strided_loop.h"

namespace torchedge {

namespace {

template <typename T>
constexpr bool kIsFloating = std::is_floating_point<compute_t<T>>::value;

template <typename To, typename From>
To convert_element(From value) {
  using C = compute_t<From>;  // float for Half/BFloat16
  const C v = static_cast<C>(value);
  if constexpr (std::is_same<To, bool>::value) {
    return v != C(0);
  } else if constexpr (!kIsFloating<To> && kIsFloating<From> && sizeof(To) < 4) {
    return static_cast<To>(static_cast<int32_t>(v));
  } else if constexpr (std::is_same<To, Half>::value || std::is_same<To, BFloat16>::value) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

template <typename To, typename From>
void convert_runs(const PairLoop& loop, const char* src, char* dst) {
  const int64_t n = loop.run_length();
  const int64_t sa = loop.run_stride_a();
  const int64_t sb = loop.run_stride_b();
  const From* from = reinterpret_cast<const From*>(src);
  To* to = reinterpret_cast<To*>(dst);
  for_each_run(loop, [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < n; ++i) to[b + i * sb] = convert_element<To>(from[a + i * sa]);
  });
}

// Complex conversions, as ATen's copy_: a real value becomes (value, 0); a
// complex value written to a real dtype keeps its real part (to bool: true
// when either part is nonzero); complex to complex converts each part.
template <typename D, typename S>
void complex_to_complex(const PairLoop& loop, const char* src, char* dst) {
  const int64_t n = loop.run_length(), sa = loop.run_stride_a(), sb = loop.run_stride_b();
  const S* from = reinterpret_cast<const S*>(src);
  D* to = reinterpret_cast<D*>(dst);
  for_each_run(loop, [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < n; ++i) store_complex<D>(to, b + i * sb, load_complex<S>(from, a + i * sa));
  });
}

template <typename D, typename S>
void real_to_complex(const PairLoop& loop, const char* src, char* dst) {
  const int64_t n = loop.run_length(), sa = loop.run_stride_a(), sb = loop.run_stride_b();
  const S* from = reinterpret_cast<const S*>(src);
  D* to = reinterpret_cast<D*>(dst);
  for_each_run(loop, [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(static_cast<compute_t<S>>(from[a + i * sa]));
      store_complex<D>(to, b + i * sb, ComplexAccumulator(v, 0.0));
    }
  });
}

template <typename D, typename S>
void complex_to_real(const PairLoop& loop, const char* src, char* dst) {
  const int64_t n = loop.run_length(), sa = loop.run_stride_a(), sb = loop.run_stride_b();
  const S* from = reinterpret_cast<const S*>(src);
  D* to = reinterpret_cast<D*>(dst);
  for_each_run(loop, [&](int64_t a, int64_t b) {
    for (int64_t i = 0; i < n; ++i) {
      const ComplexAccumulator v = load_complex<S>(from, a + i * sa);
      if constexpr (std::is_same<D, bool>::value) {
        to[b + i * sb] = v.real() != 0.0 || v.imag() != 0.0;
      } else {
        to[b + i * sb] = convert_element<D>(v.real());
      }
    }
  });
}

Error convert_complex_view(const PairLoop& loop, const StridedView& src, ScalarType src_dtype,
                           const StridedView& dst, ScalarType dst_dtype, const char* op_name) {
  if (is_complex(src_dtype) && is_complex(dst_dtype)) {
    return switch_complex(src_dtype, op_name, [&](auto from_tag) {
      return switch_complex(dst_dtype, op_name, [&](auto to_tag) {
        complex_to_complex<decltype(to_tag), decltype(from_tag)>(loop, src.data, dst.data);
        return Error::Ok;
      });
    });
  }
  if (is_complex(dst_dtype)) {
    return switch_dtype(src_dtype, kAllTypes, op_name, [&](auto from_tag) {
      return switch_complex(dst_dtype, op_name, [&](auto to_tag) {
        real_to_complex<decltype(to_tag), decltype(from_tag)>(loop, src.data, dst.data);
        return Error::Ok;
      });
    });
  }
  return switch_complex(src_dtype, op_name, [&](auto from_tag) {
    return switch_dtype(dst_dtype, kAllTypes, op_name, [&](auto to_tag) {
      complex_to_real<decltype(to_tag), decltype(from_tag)>(loop, src.data, dst.data);
      return Error::Ok;
    });
  });
}

}  // namespace

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && !is_floating(to) && !is_complex(to)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

Error convert_view(const StridedView& src, ScalarType src_dtype, const StridedView& dst,
                   ScalarType dst_dtype, const char* op_name) {
  if (src_dtype == dst_dtype) return copy_view(src, dst);
  const PairLoop loop = make_pair_loop(src.rank, src.sizes, src.strides, dst.strides);
  if (is_complex(src_dtype) || is_complex(dst_dtype)) {
    return convert_complex_view(loop, src, src_dtype, dst, dst_dtype, op_name);
  }
  return switch_dtype(src_dtype, kAllTypes, op_name, [&](auto from_tag) {
    return switch_dtype(dst_dtype, kAllTypes, op_name, [&](auto to_tag) {
      convert_runs<decltype(to_tag), decltype(from_tag)>(loop, src.data, dst.data);
      return Error::Ok;
    });
  });
}

}  // namespace torchedge
