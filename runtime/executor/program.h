// torchedge/runtime/executor/program.h
//
// Program: a verified, loaded .pte file. Immutable after load() and safe to
// share across threads; every Method loaded from it reads (never writes) its
// flatbuffer and constant data.
//
// Verification (the default, Verification::Full) runs the flatbuffers
// verifier over the whole program and then checks every offset, index and
// size the runtime will later follow (segments inside the file, constant
// offsets inside the constant segment, value/operator indices inside their
// tables) with overflow-safe arithmetic, so a truncated, corrupted or
// hostile file yields Error::InvalidProgram and never a crash.
//
// Tensors stored outside the file (program-data separation, a .ptd) are
// resolved per method by name at load_method, from the NamedDataMap passed
// there; one map may serve any number of programs.
//
// Ownership: the DataLoader passed to load() must outlive the Program.
// The Program owns the buffers it loaded (program data, constant segment).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/core/memory_allocator.h"
#include "runtime/core/result.h"
#include "runtime/core/scalar_type.h"
#include "runtime/core/span.h"
#include "runtime/core/tensor.h"
#include "runtime/executor/data_loader.h"
#include "runtime/executor/named_data_map.h"

namespace executorch_flatbuffer {
struct Program;
struct ExecutionPlan;
}  // namespace executorch_flatbuffer

namespace torchedge {

class EventTracer;
class Method;

enum class Verification : uint8_t {
  Minimal,  // header and identifier only (trusted files, smallest load time)
  Full,     // flatbuffer verifier + semantic bounds checks (default)
};

/// Shape and dtype of one method input or output, as planned.
struct TensorInfo {
  ScalarType dtype;
  Span<const int32_t> sizes;  // points into the program; upper bound if dynamic
  Span<const uint8_t> dim_order;
  bool is_dynamic;
  size_t nbytes;  // at the planned (upper-bound) shape
};

/// What a caller needs to know before loading a method: its I/O and the
/// memory it must provide. Views into the Program; valid while it lives.
class MethodMeta final {
 public:
  const char* name() const;
  size_t num_inputs() const;
  size_t num_outputs() const;
  /// Tag of input/output `i` (Tensor for tensors, Int/Double/Bool, ...).
  Result<int> input_tag(size_t i) const;
  Result<int> output_tag(size_t i) const;
  Result<TensorInfo> input_tensor_info(size_t i) const;
  Result<TensorInfo> output_tensor_info(size_t i) const;
  /// Planned arenas the caller must provide (memory ids 1..N -> 0..N-1).
  size_t num_planned_buffers() const;
  Result<size_t> planned_buffer_size(size_t index) const;
  size_t num_instructions() const;
  /// Upper bound of the method-allocator bytes load_method() uses for this
  /// method (values, tensor metadata, instruction tables), so callers can
  /// size the allocator exactly instead of guessing.
  size_t method_allocator_bytes() const;
  /// Number of backend delegates the method initializes at load. Their own
  /// state comes from the method allocator too, in amounts only the backend
  /// knows, so callers add a reserve per delegate to method_allocator_bytes().
  size_t num_delegates() const;

 private:
  friend class Program;
  friend class Method;
  explicit MethodMeta(const executorch_flatbuffer::ExecutionPlan* plan) : plan_(plan) {}
  const executorch_flatbuffer::ExecutionPlan* plan_;
};

class Program final {
 public:
  static Result<Program> load(DataLoader* loader, Verification verification = Verification::Full);

  Program(Program&&) = default;
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  Program& operator=(Program&&) = delete;

  size_t num_methods() const;
  /// Name of method `index` (< num_methods()).
  Result<const char*> method_name(size_t index) const;
  /// NotFound (naming the available methods) when absent.
  Result<MethodMeta> method_meta(const char* name) const;

  /// Loads `name` into `memory` (all caller-owned; see MemoryManager). The
  /// returned Method borrows this Program and `memory`: both must outlive it.
  /// `tracer` (optional, borrowed) sees the load and each delegate's init
  /// (event_tracer.h) and stays attached to the returned Method.
  /// `named_data` (optional, borrowed; see named_data_map.h) serves the
  /// tensors the program stores outside the .pte (a .ptd file's weights);
  /// the method points at its bytes, so it must outlive the Method. Fails
  /// with NotFound naming the tensor when a name is missing from it, and
  /// with InvalidExternalData when no map is given for a program that needs
  /// one or an entry's dtype, shape, dim order or size differs from the
  /// tensor the program declares.
  Result<Method> load_method(const char* name, MemoryManager* memory,
                             EventTracer* tracer = nullptr,
                             const NamedDataMap* named_data = nullptr) const;

  /// Data of constant `buffer_index` (Tensor.data_buffer_idx), checked to
  /// hold `nbytes`. InvalidProgram when out of bounds.
  Result<const void*> constant_data(size_t buffer_index, size_t nbytes) const;

  /// Loads segment `index` (delegate blobs, mutable data). The caller owns
  /// the returned buffer.
  Result<FreeableBuffer> load_segment(size_t index) const;

  const executorch_flatbuffer::Program* flatbuffer() const { return program_; }

 private:
  Program(DataLoader* loader, FreeableBuffer&& program_data, FreeableBuffer&& constants,
          const executorch_flatbuffer::Program* program, size_t segment_base_offset)
      : loader_(loader),
        program_data_(static_cast<FreeableBuffer&&>(program_data)),
        constant_segment_(static_cast<FreeableBuffer&&>(constants)),
        program_(program),
        segment_base_offset_(segment_base_offset) {}

  Result<const executorch_flatbuffer::ExecutionPlan*> find_plan(const char* name) const;

  DataLoader* loader_;
  FreeableBuffer program_data_;
  FreeableBuffer constant_segment_;
  const executorch_flatbuffer::Program* program_;
  size_t segment_base_offset_;
};

}  // namespace torchedge
