#include "kernels/portable/support/kernel_args.h"

namespace torchedge {

namespace {
Result<EValue*> arg_at(Span<EValue*> args, size_t index, const char* name) {
  TE_CHECK_OR_RETURN(index < args.size() && args[index] != nullptr, Error::InvalidArgument,
                     "argument %zu '%s' missing (%zu arguments passed)", index, name, args.size());
  return args[index];
}

Error tag_mismatch(size_t index, const char* name, const char* expected, Tag got) {
  record_error_message("argument %zu '%s': expected %s, got %s", index, name, expected,
                       tag_name(got));
  return Error::InvalidType;
}
// A tensor that no instruction gave memory (neither planned, nor constant,
// nor bound by a view or a method input) in a malformed program: kernels
// would dereference null.
Error expect_memory(const Tensor* t, size_t index, const char* name) {
  TE_CHECK_OR_RETURN(t->data() != nullptr || t->nbytes() == 0, Error::InvalidProgram,
                     "argument %zu '%s' is a %zu-byte tensor without memory", index, name,
                     t->nbytes());
  return Error::Ok;
}
}  // namespace

Error expect_arg_count(Span<EValue*> args, size_t expected) {
  TE_CHECK_OR_RETURN(args.size() == expected, Error::InvalidArgument,
                     "expected %zu arguments, got %zu", expected, args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    TE_CHECK_OR_RETURN(args[i] != nullptr, Error::InvalidArgument, "argument %zu is null", i);
  }
  return Error::Ok;
}

Result<Tensor*> tensor_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (!v->is_tensor()) return tag_mismatch(index, name, "Tensor", v->tag());
  TE_RETURN_IF_ERROR(expect_memory(v->tensor_ptr(), index, name));
  return v->tensor_ptr();
}

Result<Tensor*> unbound_view_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (!v->is_tensor()) return tag_mismatch(index, name, "Tensor", v->tag());
  return v->tensor_ptr();
}

Result<Tensor*> optional_tensor_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->is_none()) return static_cast<Tensor*>(nullptr);
  if (!v->is_tensor()) return tag_mismatch(index, name, "Tensor or None", v->tag());
  TE_RETURN_IF_ERROR(expect_memory(v->tensor_ptr(), index, name));
  return v->tensor_ptr();
}

Result<double> scalar_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (!v->is_scalar()) return tag_mismatch(index, name, "Scalar", v->tag());
  return v->scalar_as_double();
}

Result<const EValue*> scalar_value_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (!v->is_scalar()) return tag_mismatch(index, name, "Scalar", v->tag());
  return static_cast<const EValue*>(v);
}

Result<int64_t> int_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (!v->is_int()) return tag_mismatch(index, name, "Int", v->tag());
  return v->to_int();
}

Result<int64_t> optional_int_arg(Span<EValue*> args, size_t index, const char* name,
                                 int64_t fallback) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->is_none()) return fallback;
  if (!v->is_int()) return tag_mismatch(index, name, "Int or None", v->tag());
  return v->to_int();
}

Result<double> double_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->is_double()) return v->to_double();
  if (v->is_int()) return static_cast<double>(v->to_int());
  return tag_mismatch(index, name, "Double", v->tag());
}

Result<double> optional_double_arg(Span<EValue*> args, size_t index, const char* name,
                                   double fallback) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->is_none()) return fallback;
  if (v->is_double()) return v->to_double();
  if (v->is_int()) return static_cast<double>(v->to_int());
  return tag_mismatch(index, name, "Double or None", v->tag());
}

Result<bool> bool_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (!v->is_bool()) return tag_mismatch(index, name, "Bool", v->tag());
  return v->to_bool();
}

Result<Span<const int64_t>> int_list_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->tag() != Tag::IntList) return tag_mismatch(index, name, "IntList", v->tag());
  return v->to_int_list();
}

Error read_int_pair(Span<const int64_t> values, const char* op, const char* name,
                    int64_t minimum, int64_t* h, int64_t* w) {
  TE_CHECK_OR_RETURN(values.size() == 1 || values.size() == 2, Error::InvalidArgument,
                     "%s: %s must have 1 or 2 values, got %zu", op, name, values.size());
  *h = values[0];
  *w = values[values.size() - 1];
  TE_CHECK_OR_RETURN(*h >= minimum && *w >= minimum, Error::InvalidArgument,
                     "%s: %s must be >= %lld, got [%lld, %lld]", op, name,
                     static_cast<long long>(minimum), static_cast<long long>(*h),
                     static_cast<long long>(*w));
  return Error::Ok;
}

Result<Span<const int64_t>> optional_int_list_arg(Span<EValue*> args, size_t index,
                                                  const char* name, bool* present) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  *present = !v->is_none();
  if (v->is_none()) return Span<const int64_t>();
  if (v->tag() != Tag::IntList) return tag_mismatch(index, name, "IntList or None", v->tag());
  return v->to_int_list();
}

Result<Span<const bool>> bool_list_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->tag() != Tag::BoolList) return tag_mismatch(index, name, "BoolList", v->tag());
  return v->to_bool_list();
}

Result<Span<Tensor* const>> tensor_list_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->tag() != Tag::TensorList) return tag_mismatch(index, name, "TensorList", v->tag());
  for (Tensor* t : v->to_tensor_list()) {
    if (t != nullptr) TE_RETURN_IF_ERROR(expect_memory(t, index, name));
  }
  return v->to_tensor_list();
}

Result<StringView> string_arg(Span<EValue*> args, size_t index, const char* name) {
  TE_ASSIGN_OR_RETURN(EValue* v, arg_at(args, index, name));
  if (v->tag() != Tag::String) return tag_mismatch(index, name, "String", v->tag());
  return v->to_string();
}

Result<int> normalize_dim(int64_t dim, int rank, const char* what) {
  const int64_t bound = rank == 0 ? 1 : rank;
  TE_CHECK_OR_RETURN(dim >= -bound && dim < bound, Error::InvalidArgument,
                     "%s %lld out of range for a %d-d tensor", what, static_cast<long long>(dim),
                     rank);
  return static_cast<int>(dim < 0 ? dim + bound : dim);
}

Error expect_dtype(const Tensor& t, ScalarType expected, const char* what) {
  TE_CHECK_OR_RETURN(t.dtype() == expected, Error::InvalidType, "%s: expected dtype %s, got %s",
                     what, to_string(expected), to_string(t.dtype()));
  return Error::Ok;
}

Error expect_same_dtype(const Tensor& a, const Tensor& b, const char* what_a, const char* what_b) {
  TE_CHECK_OR_RETURN(a.dtype() == b.dtype(), Error::InvalidType,
                     "%s has dtype %s but %s has dtype %s", what_a, to_string(a.dtype()), what_b,
                     to_string(b.dtype()));
  return Error::Ok;
}

bool bytes_overlap(const Tensor& a, const Tensor& b) {
  const char* pa = static_cast<const char*>(a.data());
  const char* pb = static_cast<const char*>(b.data());
  if (pa == nullptr || pb == nullptr || a.nbytes() == 0 || b.nbytes() == 0) return false;
  return pa < pb + b.nbytes() && pb < pa + a.nbytes();
}

Error resize_to(Tensor& out, Span<const int64_t> sizes) {
  TE_CHECK_OR_RETURN(sizes.size() <= static_cast<size_t>(kTensorDimensionLimit),
                     Error::InvalidArgument, "rank %zu exceeds the limit of %d", sizes.size(),
                     kTensorDimensionLimit);
  Tensor::SizesType narrow[kTensorDimensionLimit];
  for (size_t i = 0; i < sizes.size(); ++i) {
    TE_CHECK_OR_RETURN(sizes[i] >= 0 && sizes[i] <= INT32_MAX, Error::InvalidArgument,
                       "output size %lld at dim %zu out of range",
                       static_cast<long long>(sizes[i]), i);
    narrow[i] = static_cast<Tensor::SizesType>(sizes[i]);
  }
  const Error err = out.resize({narrow, sizes.size()});
  if (err != Error::Ok) prepend_error_context("output");
  return err;
}

Error resize_like(Tensor& out, const Tensor& like) {
  const Error err = out.resize(like.sizes());
  if (err != Error::Ok) prepend_error_context("output");
  return err;
}

}  // namespace torchedge
