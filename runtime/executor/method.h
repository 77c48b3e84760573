// torchedge/runtime/executor/method.h
//
// Method: one loaded entry point of a Program, ready to run.
//
// Lifecycle:  Program::load_method(name, &memory)  -> Method
//             method.set_input(i, value) ...       (copies into planned memory)
//             method.execute()                     (no heap, no syscalls)
//             method.output(i)                     (views into planned memory)
//
// State: a mutable buffer (a planned tensor with an initial value in the
// file) gets that value copied into planned memory at load and then keeps
// whatever the method writes there (aten::copy_) from one execute() to the
// next, as the eager module's buffer would. Control flow (torch.cond) runs as
// JumpFalseCall on a Bool value or a bool tensor, and MoveCall rebinds a
// value to another (the taken branch's result).
//
// Load does all the work that can fail for structural reasons: it builds
// every value (tensors wired to constants or planned arenas), resolves every
// operator to a registered kernel by name (a missing kernel fails the load
// with OperatorMissing naming it), and checks the caller's memory is large
// enough. execute() then only runs kernels; a kernel rejecting its inputs
// returns an Error whose message names the method, the instruction index,
// the operator and, when the file carries it, the model's source line.
//
// Ownership: a Method borrows its Program and MemoryManager (both must
// outlive it) and allocates everything from memory->method_allocator. It is
// movable, not copyable, and must be used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/kernel/kernel_registry.h"
#include "runtime/executor/backend_delegate.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/executor/program.h"

namespace executorch_flatbuffer {
struct ExecutionPlan;
}

namespace torchedge {

class Method final {
 public:
  Method(Method&& other) noexcept;
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;
  Method& operator=(Method&&) = delete;
  /// Destroys the method's backend delegates.
  ~Method();

  const char* name() const;
  MethodMeta meta() const;
  size_t num_inputs() const { return num_inputs_; }
  size_t num_outputs() const { return num_outputs_; }
  size_t num_instructions() const { return num_steps_; }

  /// Sets input `index`. For a tensor input the value's dtype, rank and dim
  /// order must match the planned input and its shape must equal it (static)
  /// or be at most the exported upper bound in every dimension (dynamic;
  /// finer constraints, such as two inputs sharing a dynamic dimension, are
  /// checked by guard instructions at the start of execute()); the data is
  /// copied into the method's
  /// planned memory (or, for an unplanned input, borrowed: it must then stay
  /// alive until execute() returns). Scalar inputs must have the same kind.
  Error set_input(size_t index, const EValue& value);

  /// Sets all inputs; fails (changing nothing further) on a count mismatch.
  Error set_inputs(Span<const EValue> values);

  /// Runs every instruction. Performs no heap allocation.
  Error execute();

  /// Output `index`; tensors view planned memory and are overwritten by the
  /// next execute().
  Result<const EValue*> output(size_t index) const;

  /// Attaches `tracer` (borrowed; nullptr detaches) to later execute()
  /// calls; see event_tracer.h. Without one, execute() runs a loop compiled
  /// without tracing code. Replaces the tracer given to load_method.
  void set_event_tracer(EventTracer* tracer) { event_tracer_ = tracer; }
  EventTracer* event_tracer() const { return event_tracer_; }

  /// The caller's memory the method was loaded into (tracers read arena
  /// bases from it to place tensors in the memory plan).
  const MemoryManager* memory_manager() const { return memory_; }

  /// Backward jumps (loop iterations: upstream emits torch.map as a loop)
  /// one execute() may take before it fails with InvalidProgram, so a jump
  /// loop in a hostile file ends with an error. Forward-only programs (all
  /// that torchedge emits) never count against it.
  static constexpr size_t kDefaultLoopBudget = size_t{1} << 20;
  void set_loop_budget(size_t iterations) { loop_budget_ = iterations; }

  /// What an instruction runs, for reports. kind: "kernel" (name, overload:
  /// the operator; file/line: where the exporter recorded it was called,
  /// file nullptr when it did not), "delegate" (name: the backend id),
  /// "move", "jump" or "free". Strings live as long as the Program. args:
  /// the call's values as execute() passes them (kernels: the schema
  /// arguments, out-arguments last; delegates: inputs then outputs), valid
  /// as long as the Method.
  struct InstructionInfo {
    const char* kind;
    const char* name;
    const char* overload;
    const char* file;
    int line;
    Span<EValue* const> args;
  };
  Result<InstructionInfo> instruction_info(size_t index) const;

 private:
  friend class Program;

  struct Step;

  Method(const Program* program, const executorch_flatbuffer::ExecutionPlan* plan,
         MemoryManager* memory)
      : program_(program), plan_(plan), memory_(memory) {}

  static Result<Method> load(const Program* program,
                             const executorch_flatbuffer::ExecutionPlan* plan,
                             MemoryManager* memory, EventTracer* tracer,
                             const NamedDataMap* named_data);
  template <bool kTraced>
  Error run_instructions(EventTracer* tracer);
  Error check_planned_memory() const;
  Error check_input_shape(size_t index, const Tensor& src) const;
  Error init_delegates(EventTracer* tracer);
  Error build_steps();
  Error fail_step(size_t index, Error error) const;

  const Program* program_;
  const executorch_flatbuffer::ExecutionPlan* plan_;
  MemoryManager* memory_;
  EValue* values_ = nullptr;
  size_t num_values_ = 0;
  BackendDelegate* delegates_ = nullptr;
  size_t num_delegates_ = 0;
  Step* steps_ = nullptr;
  size_t num_steps_ = 0;
  const int32_t* input_indices_ = nullptr;
  size_t num_inputs_ = 0;
  const int32_t* output_indices_ = nullptr;
  size_t num_outputs_ = 0;
  EventTracer* event_tracer_ = nullptr;
  size_t loop_budget_ = kDefaultLoopBudget;
};

}  // namespace torchedge
