#include "extension/module/module.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "backends/xnnpack/xnnpack_backend.h"
#if defined(TORCHEDGE_HAVE_VULKAN)
#include "backends/vulkan/vulkan_backend.h"
#endif
#include "extension/data_loader/buffer_data_loader.h"
#include "extension/data_loader/file_data_loader.h"
#include "extension/data_loader/mmap_data_loader.h"
#include "extension/module/data_file.h"
#include "kernels/optimized/register_optimized_kernels.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim/prim_kernels.h"
#include "kernels/quantized/register_quantized_kernels.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace {
constexpr size_t kArenaAlignment = 64;  // bytes; a multiple of 8
}  // namespace

// Everything one method needs, owned together so addresses stay stable.
struct Module::LoadedMethod {
  // Not std::vector: pages a delegate's reserve never touches stay uncommitted.
  std::unique_ptr<uint64_t[]> method_pool;
  // calloc'd, as the arenas: a method whose kernels need little scratch (an
  // LLM's constant metadata methods need none) never commits the pages.
  std::unique_ptr<uint64_t[], decltype(&free)> temp_pool{nullptr, &free};
  // calloc'd: large arenas are fresh zero pages, committed only when written.
  std::vector<std::unique_ptr<uint64_t[], decltype(&free)>> arena_storage;
  std::vector<Span<uint8_t>> arenas;
  MemoryAllocator method_allocator;
  MemoryAllocator temp_allocator;
  PlannedMemory planned;
  MemoryManager memory;
  std::unique_ptr<Method> method;
  size_t planned_bytes = 0;
};

Error register_kernel_library(KernelLibrary kernels) {
  // One change as other threads' method loads see it: without the lock a
  // load elsewhere could bind the portable kernel between the two steps.
  const KernelRegistryLock lock;
  TE_RETURN_IF_ERROR(register_portable_kernels());
  TE_RETURN_IF_ERROR(register_prim_kernels());
  TE_RETURN_IF_ERROR(register_quantized_kernels());  // unique names: both libraries
  if (kernels == KernelLibrary::Optimized) TE_RETURN_IF_ERROR(register_optimized_kernels());
  return Error::Ok;
}

Module::Module(std::string path, ModuleOptions options)
    : path_(std::move(path)), options_(options) {}

Module::Module(std::string path, std::vector<std::string> data_paths, ModuleOptions options)
    : path_(std::move(path)), options_(options), data_paths_(std::move(data_paths)) {}

Module::Module(std::string path, std::vector<std::shared_ptr<const NamedDataMap>> data_maps,
               ModuleOptions options)
    : path_(std::move(path)), options_(options), data_maps_(std::move(data_maps)) {}

Error Module::add_data_maps(std::vector<std::shared_ptr<const NamedDataMap>> data_maps) {
  for (auto& map : data_maps) data_maps_.push_back(std::move(map));
  return program_ != nullptr ? open_data_files() : Error::Ok;
}

Module::Module(const void* data, size_t size, ModuleOptions options)
    : bytes_size_(size), options_(options) {
  constexpr size_t kAlign = BufferDataLoader::kBufferLoadAlignment;
  bytes_.reset(static_cast<uint8_t*>(aligned_alloc(kAlign, (size + kAlign) & ~(kAlign - 1))));
  if (bytes_ != nullptr) memcpy(bytes_.get(), data, size);  // else load() reports it
}

Module::Module(std::unique_ptr<DataLoader> loader, ModuleOptions options)
    : options_(options), loader_(std::move(loader)) {}

Module::~Module() = default;

Error Module::load() {
  if (program_ != nullptr) return Error::Ok;
  TE_RETURN_IF_ERROR(register_kernel_library(options_.kernels));
  TE_RETURN_IF_ERROR(register_xnnpack_backend());
#if defined(TORCHEDGE_HAVE_VULKAN)
  // Registration only; the device is probed when a program needs it.
  TE_RETURN_IF_ERROR(register_vulkan_backend());
#endif
  if (loader_ != nullptr) {
    // The caller's loader.
  } else if (path_.empty()) {
    TE_CHECK_OR_RETURN(bytes_ != nullptr, Error::MemoryAllocationFailed,
                       "cannot allocate %zu bytes to hold the program", bytes_size_);
    loader_ = std::make_unique<BufferDataLoader>(bytes_.get(), bytes_size_);
  } else if (options_.load_mode == LoadMode::Mmap) {
    Result<MmapDataLoader> loader = MmapDataLoader::open(path_.c_str());
    if (!loader.ok()) return loader.error();
    loader_ = std::make_unique<MmapDataLoader>(std::move(loader.get()));
  } else {
    Result<FileDataLoader> loader = FileDataLoader::open(path_.c_str());
    if (!loader.ok()) return loader.error();
    loader_ = std::make_unique<FileDataLoader>(std::move(loader.get()));
  }
  Result<Program> program = Program::load(loader_.get(), options_.verification);
  if (!program.ok()) return program.error();
  TE_RETURN_IF_ERROR(open_data_files());
  program_ = std::make_unique<Program>(std::move(program.get()));
  return Error::Ok;
}

Error Module::open_data_files() {
  for (const std::string& path : data_paths_) {
    Result<std::shared_ptr<DataFile>> file = DataFile::open(path, options_.load_mode);
    if (!file.ok()) return file.error();
    data_maps_.push_back(std::move(file.get()));
  }
  data_paths_.clear();
  data_map_ptrs_.clear();
  for (const auto& map : data_maps_) {
    TE_CHECK_OR_RETURN(map != nullptr, Error::InvalidArgument, "null data map");
    data_map_ptrs_.push_back(map.get());
  }
  if (!data_map_ptrs_.empty()) {
    merged_data_ = std::make_unique<MergedDataMap>(
        Span<const NamedDataMap* const>(data_map_ptrs_.data(), data_map_ptrs_.size()));
  }
  return Error::Ok;
}

Result<std::vector<std::string>> Module::method_names() {
  TE_RETURN_IF_ERROR(load());
  std::vector<std::string> names;
  for (size_t i = 0; i < program_->num_methods(); ++i) {
    TE_ASSIGN_OR_RETURN(const char* name, program_->method_name(i));
    names.emplace_back(name);
  }
  return names;
}

Result<MethodMeta> Module::method_meta(const std::string& name) {
  TE_RETURN_IF_ERROR(load());
  return program_->method_meta(name.c_str());
}

Error Module::load_method(const std::string& name) {
  if (methods_.count(name) != 0) return Error::Ok;
  TE_RETURN_IF_ERROR(load());
  TE_ASSIGN_OR_RETURN(MethodMeta meta, program_->method_meta(name.c_str()));
  auto loaded = std::make_unique<LoadedMethod>();
  const size_t method_bytes = meta.method_allocator_bytes();
  const size_t method_bytes_with_delegates =
      method_bytes + meta.num_delegates() * options_.delegate_reserve_bytes;
  // nothrow: sizes come from the file, so a corrupted one must be an Error.
  loaded->method_pool.reset(new (std::nothrow) uint64_t[method_bytes_with_delegates / 8 + 2]);
  TE_CHECK_OR_RETURN(loaded->method_pool != nullptr, Error::MemoryAllocationFailed,
                     "cannot allocate %zu bytes for method '%s'", method_bytes_with_delegates,
                     name.c_str());
  loaded->method_allocator =
      MemoryAllocator(loaded->method_pool.get(), method_bytes_with_delegates);
  loaded->temp_pool.reset(
      static_cast<uint64_t*>(calloc(options_.temp_allocator_bytes / 8 + 1, sizeof(uint64_t))));
  TE_CHECK_OR_RETURN(loaded->temp_pool != nullptr, Error::MemoryAllocationFailed,
                     "cannot allocate the %zu-byte temp allocator of method '%s'",
                     options_.temp_allocator_bytes, name.c_str());
  loaded->temp_allocator = MemoryAllocator(loaded->temp_pool.get(), options_.temp_allocator_bytes);
  for (size_t i = 0; i < meta.num_planned_buffers(); ++i) {
    TE_ASSIGN_OR_RETURN(size_t size, meta.planned_buffer_size(i));
    // +3 words of slack: XNNPACK may read up to 16 bytes past an input.
    TE_CHECK_OR_RETURN(size < (size_t{1} << 46), Error::MemoryAllocationFailed,
                       "planned arena %zu of method '%s' claims %zu bytes", i + 1, name.c_str(),
                       size);
    // The base is aligned to kArenaAlignment (to_pte aligns tensors to 64
    // bytes inside the arena: whole cache lines for AVX-512 loads).
    const size_t words = size / 8 + 3;
    const size_t slack_words = kArenaAlignment / 8;
    loaded->arena_storage.emplace_back(
        static_cast<uint64_t*>(calloc(words + slack_words, sizeof(uint64_t))), &free);
    TE_CHECK_OR_RETURN(loaded->arena_storage.back() != nullptr, Error::MemoryAllocationFailed,
                       "cannot allocate planned arena %zu (%zu bytes) of method '%s'", i + 1,
                       size, name.c_str());
    const uintptr_t raw = reinterpret_cast<uintptr_t>(loaded->arena_storage.back().get());
    const uintptr_t base = (raw + kArenaAlignment - 1) & ~uintptr_t{kArenaAlignment - 1};
    loaded->arenas.emplace_back(reinterpret_cast<uint8_t*>(base), words * 8);
    loaded->planned_bytes += size;
  }
  loaded->planned = PlannedMemory({loaded->arenas.data(), loaded->arenas.size()},
                                  /*zero_filled=*/true);
  loaded->memory = MemoryManager{&loaded->method_allocator, &loaded->planned,
                                 &loaded->temp_allocator};
  // Kernels are bound here; another Module may have registered the other
  // library since load().
  TE_RETURN_IF_ERROR(register_kernel_library(options_.kernels));
  Result<Method> method =
      program_->load_method(name.c_str(), &loaded->memory, options_.event_tracer,
                            merged_data_.get());
  if (!method.ok()) return method.error();
  loaded->method = std::make_unique<Method>(std::move(method.get()));
  methods_[name] = std::move(loaded);
  return Error::Ok;
}

Result<Method*> Module::method(const std::string& name) {
  TE_RETURN_IF_ERROR(load_method(name));
  return methods_[name]->method.get();
}

Result<std::vector<EValue>> Module::execute(const std::string& name,
                                            const std::vector<EValue>& inputs) {
  TE_ASSIGN_OR_RETURN(Method * m, method(name));
  TE_RETURN_IF_ERROR(m->set_inputs({inputs.data(), inputs.size()}));
  TE_RETURN_IF_ERROR(m->execute());
  std::vector<EValue> outputs;
  for (size_t i = 0; i < m->num_outputs(); ++i) {
    TE_ASSIGN_OR_RETURN(const EValue* out, m->output(i));
    outputs.push_back(*out);
  }
  return outputs;
}

void Module::set_event_tracer(EventTracer* tracer) {
  options_.event_tracer = tracer;
  for (auto& entry : methods_) entry.second->method->set_event_tracer(tracer);
}

size_t Module::planned_bytes(const std::string& name) const {
  auto it = methods_.find(name);
  return it == methods_.end() ? 0 : it->second->planned_bytes;
}

}  // namespace torchedge
