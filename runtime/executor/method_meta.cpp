#include "runtime/core/error_message.h"
#include "runtime/core/evalue.h"
#include "runtime/executor/program.h"
#include "schema/program_generated.h"

namespace torchedge {

namespace fb = executorch_flatbuffer;

namespace {

Result<const fb::EValue*> io_value(const fb::ExecutionPlan* plan,
                                   const flatbuffers::Vector<int32_t>* indices, size_t i,
                                   const char* what) {
  TE_CHECK_OR_RETURN(indices != nullptr && i < indices->size(), Error::InvalidArgument,
                     "%s %zu does not exist", what, i);
  return plan->values()->Get(static_cast<size_t>(indices->Get(i)));
}

Result<TensorInfo> tensor_info(const fb::EValue* v, size_t i, const char* what) {
  TE_CHECK_OR_RETURN(v->val_type() == fb::KernelTypes::Tensor, Error::InvalidType,
                     "%s %zu is not a tensor", what, i);
  const fb::Tensor* t = v->val_as_Tensor();
  TensorInfo info;
  info.dtype = static_cast<ScalarType>(t->scalar_type());
  info.sizes = Span<const int32_t>(t->sizes()->data(), t->sizes()->size());
  info.dim_order = t->dim_order() != nullptr
                       ? Span<const uint8_t>(t->dim_order()->data(), t->dim_order()->size())
                       : Span<const uint8_t>();
  info.is_dynamic = t->shape_dynamism() != fb::TensorShapeDynamism::STATIC;
  size_t n = element_size(info.dtype);
  for (int32_t s : info.sizes) n *= static_cast<size_t>(s);
  info.nbytes = n;
  return info;
}

}  // namespace

const char* MethodMeta::name() const { return plan_->name()->c_str(); }

size_t MethodMeta::num_inputs() const {
  return plan_->inputs() == nullptr ? 0 : plan_->inputs()->size();
}

size_t MethodMeta::num_outputs() const {
  return plan_->outputs() == nullptr ? 0 : plan_->outputs()->size();
}

Result<int> MethodMeta::input_tag(size_t i) const {
  TE_ASSIGN_OR_RETURN(const fb::EValue* v, io_value(plan_, plan_->inputs(), i, "input"));
  return static_cast<int>(v->val_type());
}

Result<int> MethodMeta::output_tag(size_t i) const {
  TE_ASSIGN_OR_RETURN(const fb::EValue* v, io_value(plan_, plan_->outputs(), i, "output"));
  return static_cast<int>(v->val_type());
}

Result<TensorInfo> MethodMeta::input_tensor_info(size_t i) const {
  TE_ASSIGN_OR_RETURN(const fb::EValue* v, io_value(plan_, plan_->inputs(), i, "input"));
  return tensor_info(v, i, "input");
}

Result<TensorInfo> MethodMeta::output_tensor_info(size_t i) const {
  TE_ASSIGN_OR_RETURN(const fb::EValue* v, io_value(plan_, plan_->outputs(), i, "output"));
  return tensor_info(v, i, "output");
}

size_t MethodMeta::num_planned_buffers() const {
  const auto* sizes = plan_->non_const_buffer_sizes();
  return sizes == nullptr || sizes->size() == 0 ? 0 : sizes->size() - 1;
}

Result<size_t> MethodMeta::planned_buffer_size(size_t index) const {
  TE_CHECK_OR_RETURN(index < num_planned_buffers(), Error::InvalidArgument,
                     "planned buffer %zu does not exist", index);
  return static_cast<size_t>(plan_->non_const_buffer_sizes()->Get(index + 1));
}

size_t MethodMeta::num_instructions() const {
  const auto* chains = plan_->chains();
  if (chains == nullptr || chains->size() == 0) return 0;
  return chains->Get(0)->instructions()->size();
}

size_t MethodMeta::num_delegates() const {
  return plan_->delegates() == nullptr ? 0 : plan_->delegates()->size();
}

size_t MethodMeta::method_allocator_bytes() const {
  // Mirrors the allocations of value_parser.cpp and Method::build_steps();
  // every allocation may waste up to 15 bytes of alignment padding.
  constexpr size_t kPad = 16;
  constexpr size_t kStepBytes = 48;  // >= sizeof(Method::Step), asserted in method.cpp
  const auto* values = plan_->values();
  const size_t num_values = values == nullptr ? 0 : values->size();
  size_t total = (num_values + 1) * sizeof(EValue) + kPad;
  for (size_t i = 0; i < num_values; ++i) {
    const fb::EValue* v = values->Get(i);
    switch (v->val_type()) {
      case fb::KernelTypes::Tensor: {
        const size_t dim = v->val_as_Tensor()->sizes()->size();
        total += sizeof(Tensor) + kPad + (dim * 2 + 1) * sizeof(int32_t) + kPad + dim + 1 + kPad;
        break;
      }
      case fb::KernelTypes::IntList:
        total += 2 * ((v->val_as_IntList()->items()->size() + 1) * 8 + kPad);
        break;
      case fb::KernelTypes::TensorList:
        total += (v->val_as_TensorList()->items()->size() + 1) * 8 + kPad;
        break;
      case fb::KernelTypes::OptionalTensorList:
        total += (v->val_as_OptionalTensorList()->items()->size() + 1) * 8 + kPad;
        break;
      default:
        break;
    }
  }
  const size_t num_ops = plan_->operators() == nullptr ? 0 : plan_->operators()->size();
  total += (num_ops + 1) * sizeof(void*) + kPad;
  // BackendDelegate objects (3 pointers each) and their compile-spec tables.
  const auto* delegates = plan_->delegates();
  total += (num_delegates() + 1) * 3 * sizeof(void*) + kPad;
  for (size_t i = 0; i < num_delegates(); ++i) {
    const auto* specs = delegates->Get(i)->compile_specs();
    total += ((specs == nullptr ? 0 : specs->size()) + 1) * 3 * sizeof(void*) + kPad;
  }
  const auto* chains = plan_->chains();
  if (chains != nullptr && chains->size() > 0) {
    const auto* instructions = chains->Get(0)->instructions();
    total += (instructions->size() + 1) * kStepBytes + kPad;
    for (const fb::Instruction* instr : *instructions) {
      if (instr->instr_args_type() == fb::InstructionArguments::KernelCall) {
        total += (instr->instr_args_as_KernelCall()->args()->size() + 1) * sizeof(void*) + kPad;
      }
    }
  }
  return total;
}

}  // namespace torchedge
