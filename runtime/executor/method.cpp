#include "runtime/executor/method.h"

#include <cstring>
#include <new>

#include "runtime/core/error_message.h"
#include "runtime/core/execution_gate.h"
#include "runtime/platform/platform.h"
#include "runtime/executor/value_parser.h"
#include "schema/program_generated.h"

namespace torchedge {

namespace fb = executorch_flatbuffer;

struct Method::Step {
  using Kind = InstructionEvent::Kind;
  Kind kind;
  int32_t a;  // Kernel: operator; Delegate: delegate; Move: from; JumpFalse: condition
  int32_t b;  // Move: to; JumpFalse: destination
  KernelFunction kernel;
  // num_args values, then one more slot: what the call returns (a kernel's
  // return value; a delegate's last argument), nullptr when nothing.
  EValue** args;
  size_t num_args;
};

namespace {
// ET12 kernel calls list the operator's schema arguments followed by its
// return values; for an out-variant the returns are the out arguments
// themselves. One return repeats the out value's index (add.out: [a, b,
// alpha, out, out]); several returns come as one TensorList value whose
// items are the out values (native_layer_norm.out: [..., o0, o1, o2,
// [o0, o1, o2]]); an out TensorList is returned as a TensorList of the same
// items (split_with_sizes_copy.out: [..., [o0, o1], [o0, o1]]); an in-place
// operator returns the tensor it mutates (copy_: [self, src, non_blocking,
// self]). Kernels take schema arguments
// only, so the loader drops that tail. Out arguments are fresh planned
// tensors, never aliases of inputs, so a genuine argument list cannot end
// in a tensor it already passed.
size_t schema_arg_count(const flatbuffers::Vector<int32_t>* args,
                        const flatbuffers::Vector<flatbuffers::Offset<fb::EValue>>* values) {
  const size_t n = args->size();
  if (n < 2) return n;
  const int32_t last_index = args->Get(n - 1);
  if (last_index == args->Get(n - 2)) return n - 1;
  const fb::EValue* last = values->Get(static_cast<size_t>(last_index));
  if (last->val_type() == fb::KernelTypes::Tensor) {
    for (size_t j = 0; j + 1 < n; ++j) {
      if (args->Get(j) == last_index) return n - 1;  // in-place: returns its self
    }
  }
  if (last->val_type() == fb::KernelTypes::TensorList) {
    const auto* items = last->val_as_TensorList()->items();
    // A `Tensor(a!)[] out` argument returned as a second TensorList value
    // with the same items (upstream's split_with_sizes_copy.out).
    const fb::EValue* before = values->Get(static_cast<size_t>(args->Get(n - 2)));
    if (before->val_type() == fb::KernelTypes::TensorList) {
      const auto* previous = before->val_as_TensorList()->items();
      bool same = previous->size() == items->size();
      for (size_t j = 0; j < items->size() && same; ++j) same = previous->Get(j) == items->Get(j);
      if (same) return n - 1;
    }
    const size_t k = items->size();
    bool repeated = k >= 1 && k <= n - 1;
    for (size_t j = 0; j < k && repeated; ++j) {
      repeated = items->Get(j) == args->Get(n - 1 - k + j);
    }
    if (repeated) return n - 1;
  }
  return n;
}

// JumpFalseCall conditions, as upstream emits them: a Bool value (the
// unconditional jump over the false branch is a constant False) or a bool
// tensor (torch.cond's predicate), true when every element is true.
Result<bool> condition_value(const EValue& value) {
  if (value.is_bool()) return value.to_bool();
  TE_CHECK_OR_RETURN(value.is_tensor() && value.to_tensor().dtype() == ScalarType::Bool,
                     Error::InvalidProgram, "jump condition is %s, not Bool or a bool tensor",
                     value.is_tensor() ? to_string(value.to_tensor().dtype())
                                       : tag_name(value.tag()));
  const Tensor& t = value.to_tensor();
  TE_CHECK_OR_RETURN(t.numel() == 0 || t.data() != nullptr, Error::InvalidState,
                     "jump condition tensor has no data");
  const bool* data = t.data_as<bool>();
  for (size_t i = 0; i < t.numel(); ++i) {
    if (!data[i]) return false;
  }
  return true;
}

}  // namespace

Method::Method(Method&& other) noexcept
    : program_(other.program_),
      plan_(other.plan_),
      memory_(other.memory_),
      values_(other.values_),
      num_values_(other.num_values_),
      delegates_(other.delegates_),
      num_delegates_(other.num_delegates_),
      steps_(other.steps_),
      num_steps_(other.num_steps_),
      input_indices_(other.input_indices_),
      num_inputs_(other.num_inputs_),
      output_indices_(other.output_indices_),
      num_outputs_(other.num_outputs_),
      event_tracer_(other.event_tracer_),
      loop_budget_(other.loop_budget_) {
  other.values_ = nullptr;
  other.delegates_ = nullptr;
  other.num_delegates_ = 0;
  other.steps_ = nullptr;
  other.num_steps_ = 0;
}

Method::~Method() {
  for (size_t i = 0; i < num_delegates_; ++i) delegates_[i].destroy();
}

Error Method::init_delegates(EventTracer* tracer) {
  const auto* delegates = plan_->delegates();
  const size_t n = delegates == nullptr ? 0 : delegates->size();
  if (n == 0) return Error::Ok;
  delegates_ = memory_->method_allocator->allocate_array<BackendDelegate>(n);
  TE_CHECK_OR_RETURN(delegates_ != nullptr, Error::MemoryAllocationFailed,
                     "method allocator exhausted creating %zu delegates", n);
  for (size_t i = 0; i < n; ++i) {
    new (&delegates_[i]) BackendDelegate();
    const fb::BackendDelegate& serialized = *delegates->Get(i);
    const char* id = serialized.id() != nullptr ? serialized.id()->c_str() : "";
    if (tracer != nullptr) tracer->begin_delegate_init(i, id);
    const Error err =
        BackendDelegate::init(serialized, *program_, memory_->method_allocator, &delegates_[i]);
    if (tracer != nullptr) tracer->end_delegate_init(i, id, err);
    if (err != Error::Ok) return err;
    num_delegates_ = i + 1;  // destroyed by ~Method from here on
  }
  return Error::Ok;
}

const char* Method::name() const { return plan_->name()->c_str(); }

MethodMeta Method::meta() const { return MethodMeta(plan_); }

Error Method::check_planned_memory() const {
  const auto* sizes = plan_->non_const_buffer_sizes();
  const size_t needed = sizes == nullptr || sizes->size() == 0 ? 0 : sizes->size() - 1;
  const size_t given =
      memory_->planned_memory == nullptr ? 0 : memory_->planned_memory->num_arenas();
  TE_CHECK_OR_RETURN(given >= needed, Error::MemoryAllocationFailed,
                     "method needs %zu planned arenas, %zu provided", needed, given);
  for (size_t i = 0; i < needed; ++i) {
    const size_t want = static_cast<size_t>(sizes->Get(i + 1));
    const size_t have = memory_->planned_memory->arena(i).size();
    TE_CHECK_OR_RETURN(have >= want, Error::MemoryAllocationFailed,
                       "planned arena %zu is %zu bytes, the method needs %zu", i + 1, have, want);
  }
  return Error::Ok;
}

namespace {

// Writes the names of the dtypes in `mask` ("float32, int64") into buf.
void describe_dtypes(DtypeMask mask, char* buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t t = 0; t < kNumScalarTypeSlots && used < size; ++t) {
    if ((mask >> t & 1) == 0) continue;
    const int n = snprintf(buf + used, size - used, used == 0 ? "%s" : ", %s",
                           to_string(static_cast<ScalarType>(t)));
    if (n < 0) break;
    used += static_cast<size_t>(n);
  }
}

// Rejects, at load, a call of operator `op_index` none of whose tensor
// arguments has a dtype its kernel library lists (see kernel_dtypes()):
// a clear error now instead of a NotSupported from inside execute().
Error check_call_dtypes(const fb::ExecutionPlan* plan, const EValue* values, size_t op_index,
                        const char* op_name) {
  const DtypeMask mask = kernel_dtypes(op_name);
  if (mask == kAnyDtype) return Error::Ok;
  const auto* instructions = plan->chains()->Get(0)->instructions();
  for (size_t i = 0; i < instructions->size(); ++i) {
    const fb::Instruction* instr = instructions->Get(i);
    if (instr->instr_args_type() != fb::InstructionArguments::KernelCall) continue;
    const fb::KernelCall* call = instr->instr_args_as_KernelCall();
    if (static_cast<size_t>(call->op_index()) != op_index) continue;
    const Tensor* first = nullptr;
    bool supported = false;
    for (int32_t index : *call->args()) {
      const EValue& v = values[index];
      if (!v.is_tensor()) continue;
      const ScalarType dtype = v.to_tensor().dtype();
      if (first == nullptr) first = &v.to_tensor();
      const size_t bit = static_cast<size_t>(dtype);
      supported = supported || (bit < 64 && ((mask >> bit) & 1) != 0);
    }
    if (first == nullptr || supported) continue;
    char listed[256];
    describe_dtypes(mask, listed, sizeof(listed));
    record_error_message("instruction %zu (%s): no kernel for dtype %s; the kernel supports %s", i,
                         op_name, to_string(first->dtype()), listed);
    return Error::NotSupported;
  }
  return Error::Ok;
}

}  // namespace

Error Method::build_steps() {
  static_assert(sizeof(Step) <= 48, "update kStepBytes in method_meta.cpp");
  TE_CHECK_OR_RETURN(plan_->chains()->size() == 1, Error::NotSupported,
                     "method has %u chains; torchedge runs single-chain methods",
                     plan_->chains()->size());
  const auto* instructions = plan_->chains()->Get(0)->instructions();
  MemoryAllocator* alloc = memory_->method_allocator;
  num_steps_ = instructions->size();
  steps_ = alloc->allocate_packed_array<Step>(num_steps_);
  TE_CHECK_OR_RETURN(steps_ != nullptr, Error::MemoryAllocationFailed,
                     "method allocator exhausted creating %zu instructions", num_steps_);

  // Resolve each operator once; instructions share the result.
  const size_t num_ops = plan_->operators() == nullptr ? 0 : plan_->operators()->size();
  KernelFunction* kernels = alloc->allocate_packed_array<KernelFunction>(num_ops);
  TE_CHECK_OR_RETURN(kernels != nullptr, Error::MemoryAllocationFailed,
                     "method allocator exhausted resolving %zu operators", num_ops);
  for (size_t i = 0; i < num_ops; ++i) {
    const fb::Operator* op = plan_->operators()->Get(i);
    char full_name[256];
    const char* overload = op->overload() != nullptr ? op->overload()->c_str() : "";
    snprintf(full_name, sizeof(full_name), overload[0] ? "%s.%s" : "%s%s", op->name()->c_str(),
             overload);
    Result<KernelFunction> kernel = find_kernel(full_name);
    if (!kernel.ok()) return kernel.error();
    kernels[i] = kernel.get();
    TE_RETURN_IF_ERROR(check_call_dtypes(plan_, values_, i, full_name));
  }

  for (size_t i = 0; i < num_steps_; ++i) {
    const fb::Instruction* instr = instructions->Get(i);
    Step& step = steps_[i];
    step = Step{Step::Kind::Free, 0, 0, nullptr, nullptr, 0};
    switch (instr->instr_args_type()) {
      case fb::InstructionArguments::KernelCall: {
        const fb::KernelCall* call = instr->instr_args_as_KernelCall();
        step.kind = Step::Kind::Kernel;
        step.a = call->op_index();
        step.kernel = kernels[call->op_index()];
        step.num_args = schema_arg_count(call->args(), plan_->values());
        step.args = alloc->allocate_packed_array<EValue*>(step.num_args + 1);
        TE_CHECK_OR_RETURN(step.args != nullptr, Error::MemoryAllocationFailed,
                           "method allocator exhausted at instruction %zu", i);
        for (size_t j = 0; j < step.num_args; ++j) step.args[j] = &values_[call->args()->Get(j)];
        // What the call produced: the dropped return tail (the out tensor,
        // a TensorList of outs, or an in-place op's self), else the last
        // argument (out-arguments come last).
        if (step.num_args < call->args()->size()) {
          step.args[step.num_args] = &values_[call->args()->Get(call->args()->size() - 1)];
        } else {
          step.args[step.num_args] = step.num_args > 0 ? step.args[step.num_args - 1] : nullptr;
        }
        break;
      }
      case fb::InstructionArguments::MoveCall:
        step.kind = Step::Kind::Move;
        step.a = instr->instr_args_as_MoveCall()->move_from();
        step.b = instr->instr_args_as_MoveCall()->move_to();
        break;
      case fb::InstructionArguments::JumpFalseCall:
        step.kind = Step::Kind::JumpFalse;
        step.a = instr->instr_args_as_JumpFalseCall()->cond_value_index();
        step.b = instr->instr_args_as_JumpFalseCall()->destination_instruction();
        break;
      case fb::InstructionArguments::FreeCall:
        break;  // memory is planned ahead of time; nothing to free
      case fb::InstructionArguments::DelegateCall: {
        const fb::DelegateCall* call = instr->instr_args_as_DelegateCall();
        step.kind = Step::Kind::Delegate;
        step.a = call->delegate_index();
        step.num_args = call->args()->size();
        step.args = alloc->allocate_packed_array<EValue*>(step.num_args + 1);
        TE_CHECK_OR_RETURN(step.args != nullptr, Error::MemoryAllocationFailed,
                           "method allocator exhausted at instruction %zu", i);
        for (size_t j = 0; j < step.num_args; ++j) step.args[j] = &values_[call->args()->Get(j)];
        step.args[step.num_args] = step.num_args > 0 ? step.args[step.num_args - 1] : nullptr;
        break;
      }
      default:
        record_error_message("instruction %zu has an unknown kind", i);
        return Error::InvalidProgram;
    }
  }
  return Error::Ok;
}

Result<Method> Method::load(const Program* program, const fb::ExecutionPlan* plan,
                            MemoryManager* memory, EventTracer* tracer,
                            const NamedDataMap* named_data) {
  TE_CHECK_OR_RETURN(memory != nullptr && memory->method_allocator != nullptr,
                     Error::InvalidArgument, "load_method needs a method allocator");
  const char* name = plan->name()->c_str();
  if (tracer != nullptr) tracer->begin_method_load(name);
  Method method(program, plan, memory);
  method.event_tracer_ = tracer;
  Error err = method.check_planned_memory();
  if (err == Error::Ok) {
    Result<EValue*> values = parse_values(*program, plan, memory, named_data, &method.num_values_);
    err = values.error();
    if (values.ok()) method.values_ = values.get();
  }
  if (err == Error::Ok) err = method.init_delegates(tracer);
  if (err == Error::Ok) err = method.build_steps();
  if (tracer != nullptr) tracer->end_method_load(name, err);
  if (err != Error::Ok) {
    prepend_error_context("load_method('%s')", name);
    return err;
  }
  static const int32_t kNone[1] = {0};
  method.input_indices_ = plan->inputs() != nullptr ? plan->inputs()->data() : kNone;
  method.num_inputs_ = plan->inputs() != nullptr ? plan->inputs()->size() : 0;
  method.output_indices_ = plan->outputs() != nullptr ? plan->outputs()->data() : kNone;
  method.num_outputs_ = plan->outputs() != nullptr ? plan->outputs()->size() : 0;
  return method;
}

Error Method::set_input(size_t index, const EValue& value) {
  TE_CHECK_OR_RETURN(index < num_inputs_, Error::InvalidArgument,
                     "method '%s' has %zu inputs; input %zu does not exist", name(), num_inputs_,
                     index);
  EValue& slot = values_[input_indices_[index]];
  TE_CHECK_OR_RETURN(slot.tag() == value.tag(), Error::InvalidType,
                     "method '%s' input %zu: expected %s, got %s", name(), index,
                     tag_name(slot.tag()), tag_name(value.tag()));
  if (!slot.is_tensor()) {
    slot = value;
    return Error::Ok;
  }
  Tensor& dst = slot.to_tensor();
  const Tensor& src = value.to_tensor();
  char want[128];
  char got[128];
  TE_CHECK_OR_RETURN(src.dtype() == dst.dtype(), Error::InvalidType,
                     "method '%s' input %zu: expected dtype %s, got %s", name(), index,
                     to_string(dst.dtype()), to_string(src.dtype()));
  TE_CHECK_OR_RETURN(src.dim() == dst.dim(), Error::InvalidArgument,
                     "method '%s' input %zu: expected shape %s, got %s (rank %d vs %d)", name(),
                     index, format_sizes(dst.sizes(), want, sizeof(want)),
                     format_sizes(src.sizes(), got, sizeof(got)), dst.dim(), src.dim());
  TE_CHECK_OR_RETURN(src.dim() == 0 ||  // rank 0: no dim order (null arrays)
                         memcmp(src.dim_order().data(), dst.dim_order().data(),
                                static_cast<size_t>(src.dim())) == 0,
                     Error::InvalidArgument, "method '%s' input %zu: dim order differs from the "
                     "exported one (e.g. channels-last vs contiguous)", name(), index);
  TE_CHECK_OR_RETURN(src.nbytes() == 0 || src.data() != nullptr, Error::InvalidArgument,
                     "method '%s' input %zu: tensor has no data", name(), index);
  TE_RETURN_IF_ERROR(check_input_shape(index, src));
  const Error err = dst.resize(src.sizes());
  if (err != Error::Ok) {
    prepend_error_context("method '%s' input %zu", name(), index);
    return err;
  }
  if (dst.mutable_data() != nullptr) {
    memcpy(dst.mutable_data(), src.data(), src.nbytes());
  } else {
    dst.set_data(const_cast<void*>(src.data()));  // unplanned input: borrowed
  }
  return Error::Ok;
}

Error Method::check_input_shape(size_t index, const Tensor& src) const {
  // A static input must match exactly, which Tensor::resize reports. For a
  // dynamic input the file's sizes are per-dimension upper bounds (memory
  // was planned at them); resize only checks the element count, so a shape
  // like [4, 16] against [8, 8] is caught here.
  const fb::Tensor* planned =
      plan_->values()->Get(static_cast<size_t>(input_indices_[index]))->val_as_Tensor();
  if (planned->shape_dynamism() == fb::TensorShapeDynamism::STATIC) return Error::Ok;
  for (int d = 0; d < src.dim(); ++d) {
    const int32_t bound = planned->sizes()->Get(static_cast<size_t>(d));
    if (src.size(d) <= bound) continue;
    char want[128];
    char got[128];
    record_error_message(
        "method '%s' input %zu: shape %s exceeds the exported upper bound %s (dimension %d: "
        "%d > %d)",
        name(), index, format_sizes(src.sizes(), got, sizeof(got)),
        format_sizes({planned->sizes()->data(), planned->sizes()->size()}, want, sizeof(want)),
        d, src.size(d), bound);
    return Error::InvalidArgument;
  }
  return Error::Ok;
}

Error Method::set_inputs(Span<const EValue> values) {
  TE_CHECK_OR_RETURN(values.size() == num_inputs_, Error::InvalidArgument,
                     "method '%s' takes %zu inputs, got %zu", name(), num_inputs_, values.size());
  for (size_t i = 0; i < values.size(); ++i) TE_RETURN_IF_ERROR(set_input(i, values[i]));
  return Error::Ok;
}

Result<Method::InstructionInfo> Method::instruction_info(size_t index) const {
  TE_CHECK_OR_RETURN(steps_ != nullptr, Error::InvalidState, "method was moved from");
  TE_CHECK_OR_RETURN(index < num_steps_, Error::InvalidArgument,
                     "method '%s' has %zu instructions; instruction %zu does not exist", name(),
                     num_steps_, index);
  const Step& step = steps_[index];
  InstructionInfo info{"free", "", "", nullptr, 0, Span<EValue* const>(step.args, step.num_args)};
  switch (step.kind) {
    case Step::Kind::Kernel: {
      const fb::Operator* op = plan_->operators()->Get(static_cast<size_t>(step.a));
      info.kind = "kernel";
      info.name = op->name()->c_str();
      info.overload = op->overload() != nullptr ? op->overload()->c_str() : "";
      // The source line of the instruction, when the exporter recorded it.
      const fb::Chain* chain = plan_->chains()->Get(0);
      if (chain->stacktrace() != nullptr && index < chain->stacktrace()->size()) {
        const fb::FrameList* frames = chain->stacktrace()->Get(index);
        if (frames != nullptr && frames->items() != nullptr && frames->items()->size() > 0) {
          const fb::Frame* frame = frames->items()->Get(frames->items()->size() - 1);
          if (frame != nullptr && frame->filename() != nullptr) {
            info.file = frame->filename()->c_str();
            info.line = frame->lineno();
          }
        }
      }
      break;
    }
    case Step::Kind::Delegate:
      info.kind = "delegate";
      info.name = delegates_[step.a].id();
      break;
    case Step::Kind::Move:
      info.kind = "move";
      break;
    case Step::Kind::JumpFalse:
      info.kind = "jump";
      break;
    case Step::Kind::Free:
      break;
  }
  return info;
}

Error Method::fail_step(size_t index, Error error) const {
  const Result<InstructionInfo> info = instruction_info(index);
  if (!info.ok()) return error;
  const InstructionInfo& i = info.get();
  const char* dot = i.overload[0] ? "." : "";
  if (i.file != nullptr) {
    prepend_error_context("method '%s', instruction %zu (%s%s%s, from %s:%d)", name(), index,
                          i.name, dot, i.overload, i.file, i.line);
  } else {
    prepend_error_context("method '%s', instruction %zu (%s%s%s)", name(), index, i.name, dot,
                          i.overload);
  }
  return error;
}

Error Method::execute() {
  TE_CHECK_OR_RETURN(values_ != nullptr, Error::InvalidState, "method was moved from");
  for (size_t i = 0; i < num_inputs_; ++i) {
    const EValue& v = values_[input_indices_[i]];
    TE_CHECK_OR_RETURN(!v.is_tensor() || v.to_tensor().nbytes() == 0 ||
                           v.to_tensor().data() != nullptr,
                       Error::InvalidState, "method '%s': input %zu was never set", name(), i);
  }
  // Settings kernels read mid-run (the thread count) stay put until it ends.
  const ExecutionScope in_flight;
  EventTracer* const tracer = event_tracer_;
  if (tracer == nullptr) return run_instructions<false>(nullptr);
  tracer->begin_execute(*this);
  const Error err = run_instructions<true>(tracer);
  tracer->end_execute(*this, err);
  return err;
}

// The instruction loop, compiled twice: kTraced = false is the default path
// with no tracing code at all; kTraced = true reports every instruction.
template <bool kTraced>
Error Method::run_instructions(EventTracer* tracer) {
  MemoryAllocator* temp = memory_->temp_allocator;
  size_t pc = 0;
  size_t loop_iterations = 0;
  while (pc < num_steps_) {
    const Step& step = steps_[pc];
    const size_t at = pc;
    Error err = Error::Ok;
    if constexpr (kTraced) tracer->begin_instruction(at);
    switch (step.kind) {
      case Step::Kind::Kernel: {
        KernelContext context(temp);
        err = step.kernel(context, Span<EValue*>(step.args, step.num_args));
        if (temp != nullptr) temp->reset();
        if (err != Error::Ok) err = fail_step(pc, err);
        ++pc;
        break;
      }
      case Step::Kind::Delegate: {
        if constexpr (kTraced) internal::g_delegate_tracer = tracer;
        err = delegates_[step.a].execute(Span<EValue*>(step.args, step.num_args));
        if constexpr (kTraced) internal::g_delegate_tracer = nullptr;
        if (err != Error::Ok) {
          prepend_error_context("method '%s', instruction %zu (delegate '%s')", name(), pc,
                                delegates_[step.a].id());
        }
        ++pc;
        break;
      }
      case Step::Kind::Move:
        values_[step.b] = values_[step.a];
        ++pc;
        break;
      case Step::Kind::JumpFalse: {
        Result<bool> holds = condition_value(values_[step.a]);
        if (!holds.ok()) {
          prepend_error_context("method '%s', instruction %zu", name(), pc);
          err = holds.error();
          break;
        }
        if (holds.get()) {
          ++pc;
        } else {
          const size_t to = static_cast<size_t>(step.b);
          if (to <= pc && ++loop_iterations > loop_budget_) {
            record_error_message("method '%s', instruction %zu: jump back to %zu taken more than "
                                 "%zu times (the loop budget; Method::set_loop_budget)",
                                 name(), pc, to, loop_budget_);
            err = Error::InvalidProgram;
            break;
          }
          pc = to;
        }
        break;
      }
      case Step::Kind::Free:
        ++pc;
        break;
    }
    if constexpr (kTraced) {
      tracer->end_instruction(InstructionEvent{at, step.kind,
                                               Span<EValue* const>(step.args, step.num_args),
                                               step.args != nullptr ? step.args[step.num_args]
                                                                    : nullptr,
                                               err});
    }
    if (err != Error::Ok) return err;
  }
  return Error::Ok;
}

Result<const EValue*> Method::output(size_t index) const {
  TE_CHECK_OR_RETURN(index < num_outputs_, Error::InvalidArgument,
                     "method '%s' has %zu outputs; output %zu does not exist", name(),
                     num_outputs_, index);
  return static_cast<const EValue*>(&values_[output_indices_[index]]);
}

}  // namespace torchedge
