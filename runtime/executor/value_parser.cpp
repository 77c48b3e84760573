#include "runtime/executor/value_parser.h"

#include <cstdint>
#include <cstring>
#include <new>

#include "runtime/core/error_message.h"
#include "runtime/executor/external_tensor.h"
#include "schema/program_generated.h"

namespace torchedge {

namespace fb = executorch_flatbuffer;

namespace {

Error out_of_method_memory(size_t index, const char* what) {
  record_error_message("method allocator exhausted while creating value %zu (%s)", index, what);
  return Error::MemoryAllocationFailed;
}

// Initial values of mutable buffers: Program.mutable_data_segments[k]
// lists, per data_buffer_idx, where a buffer's bytes start inside segment
// `segment_index`. The segment is loaded on first use and released when
// parse_values returns, since every value is copied into planned memory.
class MutableData {
 public:
  explicit MutableData(const Program& program) : program_(program) {}

  Error copy_into(const fb::Tensor* t, void* dst, size_t nbytes, size_t index) {
    const auto* segments = program_.flatbuffer()->mutable_data_segments();
    const fb::ExtraTensorInfo* extra = t->extra_tensor_info();
    const uint64_t which = extra != nullptr ? extra->mutable_data_segments_idx() : 0;
    TE_CHECK_OR_RETURN(segments != nullptr && which < segments->size(), Error::InvalidProgram,
                       "value %zu has an initial value but the program has no mutable data "
                       "segment %llu", index, static_cast<unsigned long long>(which));
    const fb::SubsegmentOffsets* table = segments->Get(static_cast<size_t>(which));
    if (loaded_ != table) {
      TE_ASSIGN_OR_RETURN(segment_, program_.load_segment(table->segment_index()));
      loaded_ = table;
    }
    const uint32_t item = t->data_buffer_idx();
    TE_CHECK_OR_RETURN(table->offsets() != nullptr && item < table->offsets()->size(),
                       Error::InvalidProgram, "value %zu: initial value %u out of range", index,
                       item);
    const uint64_t offset = table->offsets()->Get(item);
    TE_CHECK_OR_RETURN(offset <= segment_.size() && nbytes <= segment_.size() - offset,
                       Error::InvalidProgram,
                       "value %zu: initial value (%zu bytes at %llu) runs past its %zu-byte "
                       "segment", index, nbytes, static_cast<unsigned long long>(offset),
                       segment_.size());
    memcpy(dst, static_cast<const uint8_t*>(segment_.data()) + offset, nbytes);
    return Error::Ok;
  }

 private:
  const Program& program_;
  const fb::SubsegmentOffsets* loaded_ = nullptr;
  FreeableBuffer segment_;
};

// Kernels read bool tensors as C++ bool, for which any byte other than 0 or
// 1 is undefined behaviour: a corrupted file must not get that far.
Error check_bools(const fb::Tensor* t, const void* data, size_t nbytes, size_t index) {
  if (static_cast<ScalarType>(t->scalar_type()) != ScalarType::Bool) return Error::Ok;
  const uint8_t* bytes = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < nbytes; ++i) {
    TE_CHECK_OR_RETURN(bytes[i] <= 1, Error::InvalidProgram,
                       "value %zu: bool data holds byte %u at %zu", index, bytes[i], i);
  }
  return Error::Ok;
}

// A buffer the program mutates: writers name it (ExtraTensorInfo's fully
// qualified name) and plan it, as upstream's emitter does.
bool is_mutable_buffer(const fb::Tensor* t) {
  const fb::ExtraTensorInfo* extra = t->extra_tensor_info();
  return extra != nullptr && extra->fully_qualified_name() != nullptr &&
         extra->fully_qualified_name()->size() > 0;
}

// Wires a tensor's data: constant -> program data, planned -> arena (a
// mutable buffer's initial value copied in), otherwise null until an input
// binds it.
Result<void*> tensor_data(const Program& program, const fb::Tensor* t, size_t nbytes,
                          MemoryManager* memory, MutableData& mutable_data,
                          const NamedDataMap* named_data, size_t index) {
  const fb::AllocationDetails* alloc = t->allocation_info();
  if (alloc == nullptr && is_external_tensor(t)) {
    // Weights in a .ptd: read in place, like constants (never written).
    TE_ASSIGN_OR_RETURN(const void* data, external_tensor_data(t, nbytes, named_data, index));
    TE_RETURN_IF_ERROR(check_bools(t, data, nbytes, index));
    return const_cast<void*>(data);
  }
  if (alloc != nullptr) {
    const size_t arena = alloc->memory_id() - 1;  // verified >= 1
    TE_CHECK_OR_RETURN(memory->planned_memory != nullptr &&
                           arena < memory->planned_memory->num_arenas(),
                       Error::MemoryAllocationFailed,
                       "value %zu is planned in arena %zu but only %zu arenas were provided",
                       index, arena + 1,
                       memory->planned_memory == nullptr ? size_t{0}
                                                         : memory->planned_memory->num_arenas());
    const uint64_t offset = (static_cast<uint64_t>(alloc->memory_offset_high()) << 32) |
                            alloc->memory_offset_low();
    Span<uint8_t> bytes = memory->planned_memory->arena(arena);
    TE_CHECK_OR_RETURN(offset <= bytes.size() && nbytes <= bytes.size() - offset,
                       Error::MemoryAllocationFailed,
                       "value %zu needs bytes [%llu, %llu) of arena %zu, which has only %zu",
                       index, static_cast<unsigned long long>(offset),
                       static_cast<unsigned long long>(offset + nbytes), arena + 1, bytes.size());
    void* data = bytes.data() + offset;
    if (is_external_tensor(t)) {
      // A mutable buffer whose initial value is in a .ptd (upstream's
      // external mutable weights): copied in once per load.
      TE_ASSIGN_OR_RETURN(const void* initial, external_tensor_data(t, nbytes, named_data, index));
      memcpy(data, initial, nbytes);
      TE_RETURN_IF_ERROR(check_bools(t, data, nbytes, index));
    } else if (t->data_buffer_idx() > 0) {
      TE_RETURN_IF_ERROR(mutable_data.copy_into(t, data, nbytes, index));
      TE_RETURN_IF_ERROR(check_bools(t, data, nbytes, index));
    } else if (is_mutable_buffer(t) && !memory->planned_memory->zero_filled()) {
      // A mutable buffer stored without an initial value starts as zeros
      // (writers omit all-zero state such as KV caches).
      memset(data, 0, nbytes);
    }
    return data;
  }
  if (t->data_buffer_idx() > 0) {
    // Kernels never write to constants; the cast only satisfies Tensor's API.
    TE_ASSIGN_OR_RETURN(const void* data, program.constant_data(t->data_buffer_idx(), nbytes));
    // Kernels read elements in place; writers align every constant.
    const size_t alignment = element_size(static_cast<ScalarType>(t->scalar_type()));
    TE_CHECK_OR_RETURN(reinterpret_cast<uintptr_t>(data) % alignment == 0, Error::InvalidProgram,
                       "value %zu: constant data is not aligned for its dtype", index);
    TE_RETURN_IF_ERROR(check_bools(t, data, nbytes, index));
    return const_cast<void*>(data);
  }
  return static_cast<void*>(nullptr);
}

Result<Tensor*> parse_tensor(const Program& program, const fb::Tensor* t, MemoryManager* memory,
                             MutableData& mutable_data, const NamedDataMap* named_data,
                             size_t index) {
  MemoryAllocator* alloc = memory->method_allocator;
  const int dim = static_cast<int>(t->sizes()->size());
  // One block per tensor: the Tensor, then sizes[dim], strides[dim] and
  // dim_order[dim] (MethodMeta::method_allocator_bytes mirrors this layout).
  static_assert(sizeof(Tensor) % alignof(Tensor::SizesType) == 0, "sizes follow the Tensor");
  const size_t bytes = sizeof(Tensor) + static_cast<size_t>(dim) * (2 * sizeof(Tensor::SizesType) + 1);
  auto* block = static_cast<uint8_t*>(alloc->allocate(bytes, alignof(Tensor)));
  if (block == nullptr) return out_of_method_memory(index, "tensor");
  Tensor* tensor = reinterpret_cast<Tensor*>(block);
  auto* sizes = reinterpret_cast<Tensor::SizesType*>(block + sizeof(Tensor));
  Tensor::SizesType* strides = sizes + dim;
  auto* dim_order = reinterpret_cast<uint8_t*>(strides + dim);
  for (int d = 0; d < dim; ++d) {
    sizes[d] = t->sizes()->Get(static_cast<size_t>(d));
    dim_order[d] = t->dim_order() != nullptr ? t->dim_order()->Get(static_cast<size_t>(d))
                                             : static_cast<uint8_t>(d);
  }
  const auto dynamism = t->shape_dynamism() == fb::TensorShapeDynamism::STATIC
                            ? TensorShapeDynamism::Static
                            : TensorShapeDynamism::DynamicBound;
  new (tensor) Tensor(static_cast<ScalarType>(t->scalar_type()), dim, sizes, dim_order, strides,
                      nullptr, dynamism);
  TE_ASSIGN_OR_RETURN(void* data,
                      tensor_data(program, t, tensor->nbytes(), memory, mutable_data, named_data,
                                  index));
  tensor->set_data(data);
  return tensor;
}

// Lists are built after all scalars/tensors exist, because their items
// point at other values.
Error parse_list(const fb::EValue* v, EValue* values, MemoryAllocator* alloc, size_t index) {
  switch (v->val_type()) {
    case fb::KernelTypes::IntList: {
      const auto* items = v->val_as_IntList()->items();
      const size_t n = items->size();
      EValue** boxed = alloc->allocate_packed_array<EValue*>(n);
      int64_t* scratch = alloc->allocate_packed_array<int64_t>(n);
      if (boxed == nullptr || scratch == nullptr) return out_of_method_memory(index, "int list");
      for (size_t j = 0; j < n; ++j) boxed[j] = &values[items->Get(j)];
      values[index] = EValue(IntListRef(boxed, scratch, n));
      return Error::Ok;
    }
    case fb::KernelTypes::TensorList:
    case fb::KernelTypes::OptionalTensorList: {
      const bool optional = v->val_type() == fb::KernelTypes::OptionalTensorList;
      const auto* items = optional ? v->val_as_OptionalTensorList()->items()
                                   : v->val_as_TensorList()->items();
      const size_t n = items->size();
      Tensor** tensors = alloc->allocate_packed_array<Tensor*>(n);
      if (tensors == nullptr) return out_of_method_memory(index, "tensor list");
      for (size_t j = 0; j < n; ++j) {
        const int32_t item = items->Get(j);
        tensors[j] = item < 0 ? nullptr : values[item].tensor_ptr();
      }
      values[index] = EValue(Span<Tensor* const>(tensors, n), optional);
      return Error::Ok;
    }
    default:
      return Error::Ok;
  }
}

}  // namespace

Result<EValue*> parse_values(const Program& program, const fb::ExecutionPlan* plan,
                             MemoryManager* memory, const NamedDataMap* named_data,
                             size_t* num_values) {
  const auto* serialized = plan->values();
  const size_t n = serialized->size();
  EValue* values = memory->method_allocator->allocate_packed_array<EValue>(n);
  if (values == nullptr) return out_of_method_memory(0, "values table");
  MutableData mutable_data(program);
  for (size_t i = 0; i < n; ++i) {
    new (&values[i]) EValue();
    const fb::EValue* v = serialized->Get(i);
    switch (v->val_type()) {
      case fb::KernelTypes::Int: values[i] = EValue(v->val_as_Int()->int_val()); break;
      case fb::KernelTypes::Double: values[i] = EValue(v->val_as_Double()->double_val()); break;
      case fb::KernelTypes::Bool: values[i] = EValue(v->val_as_Bool()->bool_val()); break;
      case fb::KernelTypes::String: {
        const auto* s = v->val_as_String()->string_val();
        values[i] = EValue(StringView{s->c_str(), s->size()});
        break;
      }
      case fb::KernelTypes::DoubleList: {
        const auto* items = v->val_as_DoubleList()->items();
        values[i] = EValue(Span<const double>(items->data(), items->size()));
        break;
      }
      case fb::KernelTypes::BoolList: {
        // flatbuffers stores bools as one byte each, 0 or 1.
        const auto* items = v->val_as_BoolList()->items();
        values[i] = EValue(Span<const bool>(reinterpret_cast<const bool*>(items->data()),
                                            items->size()));
        break;
      }
      case fb::KernelTypes::Tensor: {
        TE_ASSIGN_OR_RETURN(Tensor * t,
                            parse_tensor(program, v->val_as_Tensor(), memory, mutable_data,
                                         named_data, i));
        values[i] = EValue(t);
        break;
      }
      default:
        break;  // Null, and lists (second pass)
    }
  }
  for (size_t i = 0; i < n; ++i) {
    TE_RETURN_IF_ERROR(parse_list(serialized->Get(i), values, memory->method_allocator, i));
  }
  *num_values = n;
  return values;
}

}  // namespace torchedge
