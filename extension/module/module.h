// torchedge/extension/module/module.h
//
// Module: the high-level C++ API. Loads a .pte (from a path or bytes),
// provides all the memory a method needs (sized exactly from the program's
// metadata), registers the kernel libraries (portable and prim, then the
// optimized kernels unless ModuleOptions::kernels says Portable), and runs
// methods:
//
//   torchedge::Module module("model.pte");
//   torchedge::TensorBuffer x(torchedge::ScalarType::Float, {1, 3, 32, 32});
//   auto outputs = module.forward({torchedge::EValue(&x.tensor())});
//   if (!outputs.ok()) { puts(torchedge::last_error_message()); }
//
// A program exported with its weights in a .ptd (program-data separation)
// is loaded with its data files: Module("model.pte", {"model.ptd"}). To
// share one mapping of a .ptd between programs, open it once as a DataFile
// (data_file.h) and give the same shared_ptr to each Module.
//
// Module allocates on the heap at load time (arenas, allocators); execute()
// itself never does. Outputs view the method's planned memory and are valid
// until the next execute() of the same method. Not thread-safe.
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "extension/module/tensor_buffer.h"
#include "runtime/executor/merged_data_map.h"
#include "runtime/executor/method.h"
#include "runtime/executor/program.h"

namespace torchedge {

enum class LoadMode { File, Mmap };

/// Which CPU kernels a Module's methods bind at load_method: the portable
/// reference kernels only, or the optimized library on top of them
/// (kernels/optimized; it falls back to portable for what it does not
/// handle). The kernel registry is process-wide: each load()/load_method()
/// re-registers its choice, and a method keeps the kernels it bound.
enum class KernelLibrary { Portable, Optimized };

struct ModuleOptions {
  LoadMode load_mode = LoadMode::Mmap;
  Verification verification = Verification::Full;
  size_t temp_allocator_bytes = size_t{8} << 20;  // kernel scratch
  // Method-allocator space reserved per backend delegate for its state
  // (packed weights live in the backend's own memory; this covers plans,
  // staging buffers and tables). Untouched pages are never committed.
  size_t delegate_reserve_bytes = size_t{16} << 20;
  KernelLibrary kernels = KernelLibrary::Optimized;
  // Borrowed; sees every later load_method (load and delegate init) and is
  // attached to each method loaded (see set_event_tracer). nullptr: off.
  EventTracer* event_tracer = nullptr;
};

/// Registers portable + prim kernels and, for Optimized, the optimized
/// library over them (the last registration of a name wins).
Error register_kernel_library(KernelLibrary kernels);

class Module final {
 public:
  explicit Module(std::string path, ModuleOptions options = {});
  /// With the .ptd files holding the program's external tensors, opened at
  /// load() with options.load_mode and searched in the order given.
  Module(std::string path, std::vector<std::string> data_paths, ModuleOptions options = {});
  /// With data files already open (shared: every Module given the same map
  /// reads the same bytes). The maps must not be null.
  Module(std::string path, std::vector<std::shared_ptr<const NamedDataMap>> data_maps,
         ModuleOptions options = {});
  /// Copies `size` bytes of a serialized program (into aligned storage
  /// served in place: any alignment of `data` runs at full speed).
  Module(const void* data, size_t size, ModuleOptions options = {});
  /// Loads through the caller's loader (e.g. a BufferDataLoader over bytes
  /// the caller keeps alive); options.load_mode is ignored.
  explicit Module(std::unique_ptr<DataLoader> loader, ModuleOptions options = {});
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  /// Adds data files (as the constructors do) to a Module built from bytes
  /// or a loader; methods loaded later see them. InvalidArgument for a null map.
  Error add_data_maps(std::vector<std::shared_ptr<const NamedDataMap>> data_maps);

  /// Loads and verifies the program and opens its data files (idempotent).
  Error load();
  Result<std::vector<std::string>> method_names();
  Result<MethodMeta> method_meta(const std::string& name);
  /// Loads `name` (idempotent): memory is sized from the method's metadata.
  Error load_method(const std::string& name);
  /// The loaded Method (loading it first).
  Result<Method*> method(const std::string& name);

  Result<std::vector<EValue>> execute(const std::string& name, const std::vector<EValue>& inputs);
  Result<std::vector<EValue>> forward(const std::vector<EValue>& inputs) {
    return execute("forward", inputs);
  }

  /// Attaches `tracer` (borrowed, e.g. a devtools ETDumpTracer; nullptr
  /// detaches) to every loaded method and to those loaded later. It must
  /// outlive its use; execute() stays allocation-free if the tracer is.
  void set_event_tracer(EventTracer* tracer);

  /// Sum of the planned arena sizes of a loaded method, in bytes.
  size_t planned_bytes(const std::string& name) const;

 private:
  struct LoadedMethod;

  Error open_data_files();

  std::string path_;
  // Program bytes when constructed from memory, in storage aligned for
  // BufferDataLoader to serve in place (aligned weights: full-speed kernels).
  std::unique_ptr<uint8_t, void (*)(void*)> bytes_{nullptr, &free};
  size_t bytes_size_ = 0;
  ModuleOptions options_;
  std::unique_ptr<DataLoader> loader_;
  std::unique_ptr<Program> program_;
  std::vector<std::string> data_paths_;  // opened into data_maps_ by load()
  std::vector<std::shared_ptr<const NamedDataMap>> data_maps_;
  std::vector<const NamedDataMap*> data_map_ptrs_;
  std::unique_ptr<MergedDataMap> merged_data_;  // null: no data files
  std::map<std::string, std::unique_ptr<LoadedMethod>> methods_;
};

}  // namespace torchedge
