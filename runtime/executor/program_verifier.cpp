#include "runtime/executor/program_verifier.h"

#include <cstdint>

#include "runtime/core/error_message.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/external_tensor.h"
#include "schema/program_generated.h"

namespace torchedge {

namespace fb = executorch_flatbuffer;

namespace {

#define TE_INVALID(cond, ...) TE_CHECK_OR_RETURN(cond, Error::InvalidProgram, __VA_ARGS__)

// Whether a vector of 8-byte elements is 8-byte aligned. The flatbuffers
// verifier only checks a vector's 4-byte length prefix, so a corrupted
// offset can leave int64/uint64/double elements misaligned, which is
// undefined behaviour to read (and a fault on strict-alignment cores).
// Writers (torchedge's and upstream's) always align them.
template <typename T>
bool elements_aligned(const flatbuffers::Vector<T>* v) {
  return v == nullptr || reinterpret_cast<uintptr_t>(v->data()) % alignof(T) == 0;
}

// Checks a segment-like (offset, size) range fits in `limit` bytes.
bool range_fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

// A mutable buffer's initial value: offsets[data_buffer_idx] of mutable
// data table `mutable_data_segments_idx`, holding `nbytes` inside its segment.
Error verify_initial_value(const fb::Program* program, const fb::Tensor* t, uint64_t nbytes,
                           size_t index) {
  const auto* tables = program->mutable_data_segments();
  const fb::ExtraTensorInfo* extra = t->extra_tensor_info();
  const uint64_t which = extra != nullptr ? extra->mutable_data_segments_idx() : 0;
  TE_INVALID(tables != nullptr && which < tables->size(),
             "value %zu: initial value in mutable data segment %llu, which does not exist", index,
             static_cast<unsigned long long>(which));
  const fb::SubsegmentOffsets* table = tables->Get(static_cast<size_t>(which));
  TE_INVALID(table->offsets() != nullptr && t->data_buffer_idx() < table->offsets()->size(),
             "value %zu: initial value %u outside the %u of its mutable data segment", index,
             t->data_buffer_idx(), table->offsets() == nullptr ? 0u : table->offsets()->size());
  const fb::DataSegment* segment = program->segments()->Get(table->segment_index());
  TE_INVALID(range_fits(table->offsets()->Get(t->data_buffer_idx()), nbytes, segment->size()),
             "value %zu: initial value of %llu bytes runs past its segment", index,
             static_cast<unsigned long long>(nbytes));
  return Error::Ok;
}

Error verify_tensor(const fb::Program* program, const fb::Tensor* t,
                    const fb::ExecutionPlan* plan, size_t index) {
  TE_INVALID(is_valid_scalar_type(static_cast<int>(t->scalar_type())),
             "value %zu: unsupported tensor dtype %d", index, static_cast<int>(t->scalar_type()));
  TE_INVALID(t->sizes() != nullptr, "value %zu: tensor without sizes", index);
  const size_t dim = t->sizes()->size();
  TE_INVALID(dim <= static_cast<size_t>(kTensorDimensionLimit),
             "value %zu: rank %zu exceeds the limit of %d", index, dim, kTensorDimensionLimit);
  TE_INVALID(static_cast<int>(t->shape_dynamism()) >= 0 &&
                 t->shape_dynamism() <= fb::TensorShapeDynamism::DYNAMIC_UNBOUND,
             "value %zu: unknown shape dynamism %d", index, static_cast<int>(t->shape_dynamism()));
  TE_INVALID(t->shape_dynamism() != fb::TensorShapeDynamism::DYNAMIC_UNBOUND,
             "value %zu: unbounded dynamic shapes are not supported", index);
  // nbytes, overflow-safe: stop once the product exceeds 2^62.
  uint64_t numel = 1;
  for (size_t d = 0; d < dim; ++d) {
    const int32_t s = t->sizes()->Get(d);
    TE_INVALID(s >= 0, "value %zu: negative size %d at dim %zu", index, s, d);
    TE_INVALID(s == 0 || numel <= (uint64_t{1} << 62) / static_cast<uint64_t>(s),
               "value %zu: tensor size overflows", index);
    numel *= static_cast<uint64_t>(s);
  }
  const uint64_t elem = element_size(static_cast<ScalarType>(t->scalar_type()));
  TE_INVALID(numel <= (uint64_t{1} << 62) / elem, "value %zu: tensor size overflows", index);
  const uint64_t nbytes = numel * elem;
  if (t->dim_order() != nullptr) {
    TE_INVALID(t->dim_order()->size() == dim, "value %zu: dim_order has %u entries for rank %zu",
               index, t->dim_order()->size(), dim);
    uint32_t seen = 0;
    for (size_t d = 0; d < dim; ++d) {
      const uint8_t o = t->dim_order()->Get(d);
      TE_INVALID(o < dim && (seen & (1u << o)) == 0, "value %zu: dim_order is not a permutation",
                 index);
      seen |= 1u << o;
    }
  }
  const fb::AllocationDetails* alloc = t->allocation_info();
  if (alloc != nullptr) {
    const auto* arenas = plan->non_const_buffer_sizes();
    const uint32_t id = alloc->memory_id();
    TE_INVALID(arenas != nullptr && id >= 1 && id < arenas->size(),
               "value %zu: memory id %u names no planned arena", index, id);
    const uint64_t offset = (static_cast<uint64_t>(alloc->memory_offset_high()) << 32) |
                            alloc->memory_offset_low();
    // Kernels access elements in place: the planner aligns every tensor.
    TE_INVALID(offset % elem == 0, "value %zu: planned offset %llu is not aligned for %s", index,
               static_cast<unsigned long long>(offset),
               to_string(static_cast<ScalarType>(t->scalar_type())));
    const int64_t arena_size = arenas->Get(id);
    TE_INVALID(arena_size >= 0 && range_fits(offset, nbytes, static_cast<uint64_t>(arena_size)),
               "value %zu: %llu bytes at offset %llu do not fit arena %u of %lld bytes", index,
               static_cast<unsigned long long>(nbytes), static_cast<unsigned long long>(offset),
               id, static_cast<long long>(arena_size));
    if (t->data_buffer_idx() > 0 && !is_external_tensor(t)) {
      return verify_initial_value(program, t, nbytes, index);
    }
  }
  if (is_external_tensor(t)) {
    const auto* name = t->extra_tensor_info()->fully_qualified_name();
    TE_INVALID(name != nullptr && name->size() > 0, "value %zu: external tensor without a name",
               index);
  }
  return Error::Ok;
}

// Checks that value `v` exists and (when `want` is not NONE) has that kind.
Error check_value_ref(const fb::ExecutionPlan* plan, int64_t v, fb::KernelTypes want,
                      const char* what, size_t where) {
  const auto* values = plan->values();
  TE_INVALID(v >= 0 && values != nullptr && static_cast<uint64_t>(v) < values->size(),
             "%s %zu refers to value %lld, outside the %u values", what, where,
             static_cast<long long>(v), values == nullptr ? 0u : values->size());
  if (want != fb::KernelTypes::NONE) {
    TE_INVALID(values->Get(static_cast<size_t>(v))->val_type() == want,
               "%s %zu: value %lld has the wrong kind", what, where, static_cast<long long>(v));
  }
  return Error::Ok;
}

Error verify_value(const fb::Program* program, const fb::ExecutionPlan* plan, size_t i) {
  const fb::EValue* value = plan->values()->Get(i);
  TE_INVALID(value != nullptr, "value %zu missing", i);
  // The flatbuffers verifier accepts a union whose type is set but whose
  // table is absent; every val_as_*() below would then be null.
  TE_INVALID(value->val_type() == fb::KernelTypes::NONE || value->val() != nullptr,
             "value %zu: kind %d without its data", i, static_cast<int>(value->val_type()));
  switch (value->val_type()) {
    case fb::KernelTypes::NONE:
    case fb::KernelTypes::Null:
    case fb::KernelTypes::Int:
    case fb::KernelTypes::Bool:
    case fb::KernelTypes::Double:
      return Error::Ok;
    case fb::KernelTypes::Tensor:
      return verify_tensor(program, value->val_as_Tensor(), plan, i);
    case fb::KernelTypes::String:
      TE_INVALID(value->val_as_String()->string_val() != nullptr, "value %zu: null string", i);
      return Error::Ok;
    case fb::KernelTypes::IntList: {
      const auto* items = value->val_as_IntList()->items();
      TE_INVALID(items != nullptr, "value %zu: int list without items", i);
      TE_INVALID(elements_aligned(items), "value %zu: misaligned int list", i);
      for (auto item : *items) {
        TE_RETURN_IF_ERROR(check_value_ref(plan, item, fb::KernelTypes::Int, "int list value", i));
      }
      return Error::Ok;
    }
    case fb::KernelTypes::DoubleList:
      TE_INVALID(value->val_as_DoubleList()->items() != nullptr, "value %zu: null list", i);
      TE_INVALID(elements_aligned(value->val_as_DoubleList()->items()),
                 "value %zu: misaligned double list", i);
      return Error::Ok;
    case fb::KernelTypes::BoolList: {
      const auto* items = value->val_as_BoolList()->items();
      TE_INVALID(items != nullptr, "value %zu: null list", i);
      // The runtime reads these bytes as C++ bool, so only 0 and 1 are valid.
      for (auto b : *items) TE_INVALID(b == 0 || b == 1, "value %zu: bool list byte %d", i, b);
      return Error::Ok;
    }
    case fb::KernelTypes::TensorList: {
      const auto* items = value->val_as_TensorList()->items();
      TE_INVALID(items != nullptr, "value %zu: tensor list without items", i);
      for (auto item : *items) {
        TE_RETURN_IF_ERROR(
            check_value_ref(plan, item, fb::KernelTypes::Tensor, "tensor list value", i));
      }
      return Error::Ok;
    }
    case fb::KernelTypes::OptionalTensorList: {
      const auto* items = value->val_as_OptionalTensorList()->items();
      TE_INVALID(items != nullptr, "value %zu: tensor list without items", i);
      for (auto item : *items) {
        if (item == -1) continue;
        TE_RETURN_IF_ERROR(
            check_value_ref(plan, item, fb::KernelTypes::Tensor, "tensor list value", i));
      }
      return Error::Ok;
    }
  }
  record_error_message("value %zu has unknown kind %d", i, static_cast<int>(value->val_type()));
  return Error::InvalidProgram;
}

// A tensor whose data is in the program's constants or an external data
// file (read-only: an mmapped file's pages), which nothing may write: not an
// input, not a result.
bool is_constant_tensor(const fb::ExecutionPlan* plan, int64_t v) {
  const fb::EValue* value = plan->values()->Get(static_cast<size_t>(v));
  if (value->val_type() != fb::KernelTypes::Tensor) return false;
  const fb::Tensor* t = value->val_as_Tensor();
  return t != nullptr && t->allocation_info() == nullptr &&
         (t->data_buffer_idx() > 0 || is_external_tensor(t));
}

// Out-variant calls write their result into their last argument.
Error check_result_is_writable(const fb::ExecutionPlan* plan,
                               const flatbuffers::Vector<int32_t>* args, size_t i) {
  if (args->size() == 0) return Error::Ok;
  const int32_t last = args->Get(args->size() - 1);
  TE_INVALID(!is_constant_tensor(plan, last),
             "instruction %zu writes its result into value %d, a constant", i, last);
  return Error::Ok;
}

Error verify_instruction(const fb::ExecutionPlan* plan, const fb::Chain* chain, size_t i) {
  const fb::Instruction* instr = chain->instructions()->Get(i);
  TE_INVALID(instr != nullptr, "instruction %zu missing", i);
  TE_INVALID(instr->instr_args_type() == fb::InstructionArguments::NONE ||
                 instr->instr_args() != nullptr,
             "instruction %zu: kind %d without its arguments", i,
             static_cast<int>(instr->instr_args_type()));
  const size_t num_ops = plan->operators() == nullptr ? 0 : plan->operators()->size();
  const size_t num_delegates = plan->delegates() == nullptr ? 0 : plan->delegates()->size();
  switch (instr->instr_args_type()) {
    case fb::InstructionArguments::KernelCall: {
      const fb::KernelCall* call = instr->instr_args_as_KernelCall();
      TE_INVALID(call->op_index() >= 0 && static_cast<size_t>(call->op_index()) < num_ops,
                 "instruction %zu: operator index %d outside the %zu operators", i,
                 call->op_index(), num_ops);
      TE_INVALID(call->args() != nullptr, "instruction %zu: kernel call without args", i);
      for (auto arg : *call->args()) {
        TE_RETURN_IF_ERROR(check_value_ref(plan, arg, fb::KernelTypes::NONE, "instruction", i));
      }
      return check_result_is_writable(plan, call->args(), i);
    }
    case fb::InstructionArguments::DelegateCall: {
      const fb::DelegateCall* call = instr->instr_args_as_DelegateCall();
      TE_INVALID(call->delegate_index() >= 0 &&
                     static_cast<size_t>(call->delegate_index()) < num_delegates,
                 "instruction %zu: delegate index %d outside the %zu delegates", i,
                 call->delegate_index(), num_delegates);
      TE_INVALID(call->args() != nullptr, "instruction %zu: delegate call without args", i);
      for (auto arg : *call->args()) {
        TE_RETURN_IF_ERROR(check_value_ref(plan, arg, fb::KernelTypes::NONE, "instruction", i));
      }
      return check_result_is_writable(plan, call->args(), i);
    }
    case fb::InstructionArguments::MoveCall: {
      const fb::MoveCall* call = instr->instr_args_as_MoveCall();
      TE_RETURN_IF_ERROR(check_value_ref(plan, call->move_from(), fb::KernelTypes::NONE, "instruction", i));
      return check_value_ref(plan, call->move_to(), fb::KernelTypes::NONE, "instruction", i);
    }
    case fb::InstructionArguments::JumpFalseCall: {
      const fb::JumpFalseCall* call = instr->instr_args_as_JumpFalseCall();
      // A Bool value, a bool tensor (torch.cond's predicate) or a value a
      // primitive comparison writes a Bool into at run time (upstream
      // declares those as Int); the kind is checked when the jump runs.
      TE_RETURN_IF_ERROR(check_value_ref(plan, call->cond_value_index(), fb::KernelTypes::NONE,
                                         "instruction", i));
      const auto kind = plan->values()->Get(static_cast<size_t>(call->cond_value_index()))->val_type();
      TE_INVALID(kind == fb::KernelTypes::Bool || kind == fb::KernelTypes::Tensor ||
                     kind == fb::KernelTypes::Int,
                 "instruction %zu: jump condition value %d is not Bool, Int or a tensor", i,
                 call->cond_value_index());
      const int32_t dest = call->destination_instruction();
      TE_INVALID(dest >= 0 && static_cast<uint32_t>(dest) <= chain->instructions()->size(),
                 "instruction %zu: jump to %d outside the chain", i, dest);
      return Error::Ok;
    }
    case fb::InstructionArguments::FreeCall:
      return check_value_ref(plan, instr->instr_args_as_FreeCall()->value_index(),
                             fb::KernelTypes::NONE, "instruction", i);
    case fb::InstructionArguments::NONE:
      break;
  }
  record_error_message("instruction %zu has unknown kind %d", i,
                       static_cast<int>(instr->instr_args_type()));
  return Error::InvalidProgram;
}

Error verify_plan(const fb::Program* program, const fb::ExecutionPlan* plan) {
  TE_INVALID(plan->name() != nullptr && plan->name()->size() > 0, "method without a name");
  TE_INVALID(plan->values() != nullptr, "no values table");
  TE_INVALID(elements_aligned(plan->non_const_buffer_sizes()), "misaligned planned arena sizes");
  for (size_t i = 0; i < plan->values()->size(); ++i) {
    TE_RETURN_IF_ERROR(verify_value(program, plan, i));
  }
  if (plan->inputs() != nullptr) {
    for (size_t i = 0; i < plan->inputs()->size(); ++i) {
      TE_RETURN_IF_ERROR(check_value_ref(plan, plan->inputs()->Get(i), fb::KernelTypes::NONE, "input", i));
      TE_INVALID(!is_constant_tensor(plan, plan->inputs()->Get(i)),
                 "input %zu is value %d, a constant (set_input would write into it)", i,
                 plan->inputs()->Get(i));
    }
  }
  if (plan->outputs() != nullptr) {
    for (size_t i = 0; i < plan->outputs()->size(); ++i) {
      TE_RETURN_IF_ERROR(check_value_ref(plan, plan->outputs()->Get(i), fb::KernelTypes::NONE, "output", i));
    }
  }
  if (plan->operators() != nullptr) {
    for (size_t i = 0; i < plan->operators()->size(); ++i) {
      const auto* name = plan->operators()->Get(i)->name();
      TE_INVALID(name != nullptr && name->size() > 0, "operator %zu without a name", i);
    }
  }
  if (plan->delegates() != nullptr) {
    for (size_t i = 0; i < plan->delegates()->size(); ++i) {
      const fb::BackendDelegate* d = plan->delegates()->Get(i);
      TE_INVALID(d->id() != nullptr && d->processed() != nullptr,
                 "delegate %zu lacks an id or data", i);
      if (d->processed()->location() == fb::DataLocation::SEGMENT) {
        const auto* segments = program->segments();
        TE_INVALID(segments != nullptr && d->processed()->index() < segments->size(),
                   "delegate %zu: data in segment %u, past the %u segments", i,
                   d->processed()->index(), segments == nullptr ? 0u : segments->size());
      }
    }
  }
  if (plan->non_const_buffer_sizes() != nullptr) {
    for (auto s : *plan->non_const_buffer_sizes()) {
      TE_INVALID(s >= 0, "negative planned arena size %lld", static_cast<long long>(s));
    }
  }
  TE_INVALID(plan->chains() != nullptr, "no chains");
  for (const fb::Chain* chain : *plan->chains()) {
    TE_INVALID(chain != nullptr && chain->instructions() != nullptr, "chain without instructions");
    for (const auto* list : {chain->inputs(), chain->outputs()}) {
      if (list == nullptr) continue;
      for (size_t i = 0; i < list->size(); ++i) {
        TE_RETURN_IF_ERROR(check_value_ref(plan, list->Get(i), fb::KernelTypes::NONE,
                                           list == chain->inputs() ? "chain input" : "chain output", i));
      }
    }
    for (size_t i = 0; i < chain->instructions()->size(); ++i) {
      TE_RETURN_IF_ERROR(verify_instruction(plan, chain, i));
    }
  }
  return Error::Ok;
}

}  // namespace

Error verify_program(const fb::Program* program, size_t segment_bytes) {
  TE_INVALID(program->execution_plan() != nullptr && program->execution_plan()->size() > 0,
             "the program has no methods");
  if (program->segments() != nullptr) {
    for (size_t i = 0; i < program->segments()->size(); ++i) {
      const fb::DataSegment* seg = program->segments()->Get(i);
      TE_INVALID(range_fits(seg->offset(), seg->size(), segment_bytes),
                 "segment %zu (%llu bytes at %llu) lies outside the %zu bytes of segment data "
                 "(truncated file?)",
                 i, static_cast<unsigned long long>(seg->size()),
                 static_cast<unsigned long long>(seg->offset()), segment_bytes);
    }
  }
  const fb::SubsegmentOffsets* cs = program->constant_segment();
  TE_INVALID(cs == nullptr || elements_aligned(cs->offsets()), "misaligned constant offsets");
  if (cs != nullptr && cs->offsets() != nullptr && cs->offsets()->size() > 1) {
    TE_INVALID(program->segments() != nullptr && cs->segment_index() < program->segments()->size(),
               "constant segment index %u out of range", cs->segment_index());
  }
  if (program->mutable_data_segments() != nullptr) {
    const size_t num_segments = program->segments() == nullptr ? 0 : program->segments()->size();
    for (size_t i = 0; i < program->mutable_data_segments()->size(); ++i) {
      const fb::SubsegmentOffsets* table = program->mutable_data_segments()->Get(i);
      TE_INVALID(table != nullptr && table->segment_index() < num_segments,
                 "mutable data segment %zu names segment %u of %zu", i,
                 table == nullptr ? 0u : table->segment_index(), num_segments);
      TE_INVALID(elements_aligned(table->offsets()), "misaligned mutable data offsets");
    }
  }
  for (size_t p = 0; p < program->execution_plan()->size(); ++p) {
    const fb::ExecutionPlan* plan = program->execution_plan()->Get(p);
    TE_INVALID(plan != nullptr, "method %zu missing", p);
    const Error err = verify_plan(program, plan);
    if (err != Error::Ok) {
      prepend_error_context("invalid program: method '%s'",
                            plan->name() != nullptr ? plan->name()->c_str() : "?");
      return err;
    }
  }
  return Error::Ok;
}

}  // namespace torchedge
