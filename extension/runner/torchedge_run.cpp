// torchedge_run: run any .pte with given or generated inputs.
//
//   torchedge_run model.pte [--method M] [--input FILE]... [--iterations N]
//                           [--seed S] [--print-all] [--save-outputs PREFIX]
//                           [--threads N] [--warmup N] [--warmup-ms MS] [--json]
//                           [--kernels portable|optimized]
//                           [--load mmap|file|bytes|buffer [--buffer-offset N]]
//                           [--profile [--top N]]
//                           [--etdump FILE [--etdump-events N] [--debug-buffer-size BYTES]]
//                           [--data FILE.ptd]...
//
// --data FILE.ptd (repeatable) names the external data files of a program
// exported with to_pte(external_data=...): its weights are read from them,
// searched in the order given (docs/program-data-separation.md).
// --input FILE supplies one input per flag, in order: raw little-endian
// bytes of exactly the input's size, or a .npy file of the right dtype and
// shape. Inputs not supplied are generated (floats uniform in [-1, 1),
// integers in [0, 4), bools random). Prints each output's shape, dtype and
// summary, the latency (min/median over --iterations runs after one warm-up)
// and the planned memory. On aarch64 each timed run sits between the markers
// of the QEMU instruction-count plugin (insn_markers.h; scripts/arm64_insn_count.py).
// --save-outputs writes output i's raw bytes (in
// its dim order) to PREFIX<i>.bin. Exits non-zero with the runtime's message on any
// error. --threads N sets the shared thread pool of the optimized kernels and
// XNNPACK delegates (default 1). --kernels picks the CPU kernel library
// (default optimized; portable = the reference kernels only).
// --load picks how the file is brought in (default mmap: constants are read
// in place from the page cache; file: read into memory the process owns;
// bytes: the whole file read into memory and handed to Module(data, size),
// which copies it; buffer: the whole file read into the caller's memory,
// --buffer-offset N bytes past a 64-byte boundary, and served in place by a
// BufferDataLoader. Every mode must run at the same speed: the benchmark's
// load-path configurations compare them).
// --warmup N runs N untimed calls first (default 1), and --warmup-ms MS keeps
// calling until MS milliseconds have passed as well (a fresh process's first
// ~0.2 s of runs are slower: benchmarks warm up by time). --json replaces the
// human-readable report on stdout with one JSON object (load time, every
// iteration's latency in run order, min/median, planned memory) for
// benchmark harnesses. --profile times every instruction of the timed runs
// (an InstructionTimer event tracer) and prints the slowest instructions (--top,
// default 25) with their input and output shapes, then the time per operator.
// --etdump FILE records the method's load and every instruction of the timed
// runs with an ETDumpTracer into a buffer of --etdump-events records (default
// 131072; events past it are dropped and counted) and writes the ETDump
// there (docs/devtools.md). --debug-buffer-size BYTES also captures every
// instruction's output, in one extra run before the timed ones (a block of
// its own, "<method>:intermediates", out of the timings), into a buffer of
// that size.
#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "devtools/etdump/etdump_tracer.h"
#include "extension/runner/insn_markers.h"
#include "devtools/etdump/instruction_timer.h"
#include "extension/data_loader/buffer_data_loader.h"
#include "extension/module/data_file.h"
#include "extension/module/module.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"
#include "runtime/platform/platform.h"

using namespace torchedge;

namespace {

struct Options {
  std::string path;
  std::string method = "forward";
  std::vector<std::string> inputs;
  std::vector<std::string> data_files;  // .ptd files, in search order
  int iterations = 10;
  unsigned seed = 0;
  bool print_all = false;
  std::string save_prefix;
  int threads = 1;
  KernelLibrary kernels = KernelLibrary::Optimized;
  std::string load = "mmap";  // mmap, file, bytes or buffer
  size_t buffer_offset = 0;
  int warmup = 1;
  int warmup_ms = 0;
  bool json = false;
  bool profile = false;
  int top = 25;
  std::string etdump;
  size_t etdump_events = size_t{1} << 17;
  size_t debug_buffer_size = 0;
};

[[noreturn]] void usage() {
  fprintf(stderr,
          "usage: torchedge_run model.pte [--method M] [--input FILE]... [--iterations N] "
          "[--seed S] [--print-all] [--save-outputs PREFIX] [--threads N] "
          "[--warmup N] [--warmup-ms MS] [--json] [--kernels portable|optimized] "
          "[--load mmap|file|bytes|buffer [--buffer-offset N]] [--profile [--top N]] "
          "[--etdump FILE [--etdump-events N] [--debug-buffer-size BYTES]] "
          "[--data FILE.ptd]...\n");
  exit(2);
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    if (a == "--method") o.method = next();
    else if (a == "--input") o.inputs.push_back(next());
    else if (a == "--data") o.data_files.push_back(next());
    else if (a == "--iterations") o.iterations = std::max(1, atoi(next()));
    else if (a == "--seed") o.seed = static_cast<unsigned>(atoi(next()));
    else if (a == "--print-all") o.print_all = true;
    else if (a == "--save-outputs") o.save_prefix = next();
    else if (a == "--threads") o.threads = std::max(1, atoi(next()));
    else if (a == "--warmup") o.warmup = std::max(0, atoi(next()));
    else if (a == "--warmup-ms") o.warmup_ms = std::max(0, atoi(next()));
    else if (a == "--json") o.json = true;
    else if (a == "--profile") o.profile = true;
    else if (a == "--top") o.top = std::max(0, atoi(next()));
    else if (a == "--etdump") o.etdump = next();
    else if (a == "--etdump-events") o.etdump_events = static_cast<size_t>(std::max(1LL, atoll(next())));
    else if (a == "--debug-buffer-size") o.debug_buffer_size = static_cast<size_t>(std::max(0LL, atoll(next())));
    else if (a == "--kernels") {
      const std::string k = next();
      if (k == "portable") o.kernels = KernelLibrary::Portable;
      else if (k == "optimized") o.kernels = KernelLibrary::Optimized;
      else usage();
    }
    else if (a == "--load") {
      o.load = next();
      if (o.load != "mmap" && o.load != "file" && o.load != "bytes" && o.load != "buffer") usage();
    }
    else if (a == "--buffer-offset") o.buffer_offset = static_cast<size_t>(std::max(0, atoi(next())));
    else if (a == "-h" || a == "--help") usage();
    else if (!a.empty() && a[0] == '-') usage();
    else if (o.path.empty()) o.path = a;
    else usage();
  }
  if (o.path.empty()) usage();
  if (o.etdump.empty() && o.debug_buffer_size > 0) usage();
  return o;
}

[[noreturn]] void fail(const char* what, Error err) {
  fprintf(stderr, "torchedge_run: %s failed: %s (%s, 0x%02x)\n", what, last_error_message(),
          error_name(err), static_cast<unsigned>(err));
  exit(1);
}

bool read_file(const std::string& path, std::vector<char>* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  out->assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

// Strips a .npy header (format version 1-3), returning the payload offset.
size_t npy_payload_offset(const std::vector<char>& bytes) {
  if (bytes.size() < 10 || memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return 0;
  const uint8_t major = static_cast<uint8_t>(bytes[6]);
  if (major == 1) {
    return 10 + (static_cast<uint8_t>(bytes[8]) | (static_cast<uint8_t>(bytes[9]) << 8));
  }
  if (bytes.size() < 12) return bytes.size();
  uint32_t len = 0;
  memcpy(&len, &bytes[8], 4);
  return 12 + len;
}

template <typename T>
void fill_random(TensorBuffer& t, std::mt19937& rng) {
  T* p = static_cast<T*>(t.data());
  const size_t n = t.tensor().numel();
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_same_v<T, bool>) p[i] = (rng() & 1u) != 0;
    else if constexpr (std::is_integral_v<T>) p[i] = static_cast<T>(rng() % 4u);
    else p[i] = static_cast<T>(std::uniform_real_distribution<float>(-1.f, 1.f)(rng));
  }
}

TensorBuffer make_input(const TensorInfo& info, const Options& o, size_t index, std::mt19937& rng) {
  std::vector<int32_t> sizes(info.sizes.begin(), info.sizes.end());
  TensorBuffer t(info.dtype, sizes);
  if (index < o.inputs.size()) {
    std::vector<char> bytes;
    if (!read_file(o.inputs[index], &bytes)) {
      fprintf(stderr, "torchedge_run: cannot read input file '%s'\n", o.inputs[index].c_str());
      exit(1);
    }
    const size_t offset = npy_payload_offset(bytes);
    if (bytes.size() - std::min(offset, bytes.size()) != t.nbytes()) {
      fprintf(stderr, "torchedge_run: input %zu ('%s') has %zu data bytes; expected %zu (%s %s)\n",
              index, o.inputs[index].c_str(), bytes.size() - std::min(offset, bytes.size()),
              t.nbytes(), to_string(info.dtype), "tensor");
      exit(1);
    }
    memcpy(t.data(), bytes.data() + offset, t.nbytes());
    return t;
  }
  switch (info.dtype) {
    case ScalarType::Float: fill_random<float>(t, rng); break;
    case ScalarType::Double: fill_random<double>(t, rng); break;
    case ScalarType::Long: fill_random<int64_t>(t, rng); break;
    case ScalarType::Int: fill_random<int32_t>(t, rng); break;
    case ScalarType::Bool: fill_random<bool>(t, rng); break;
    case ScalarType::Byte: fill_random<uint8_t>(t, rng); break;
    default: break;  // other dtypes stay zero
  }
  return t;
}

double as_double(const Tensor& t, size_t i) {
  switch (t.dtype()) {
    case ScalarType::Float: return t.data_as<float>()[i];
    case ScalarType::Double: return t.data_as<double>()[i];
    case ScalarType::Long: return static_cast<double>(t.data_as<int64_t>()[i]);
    case ScalarType::Int: return t.data_as<int32_t>()[i];
    case ScalarType::Bool: return t.data_as<bool>()[i] ? 1 : 0;
    case ScalarType::Byte: return t.data_as<uint8_t>()[i];
    case ScalarType::Char: return t.data_as<int8_t>()[i];
    case ScalarType::Short: return t.data_as<int16_t>()[i];
    case ScalarType::Half: return static_cast<float>(t.data_as<Half>()[i]);
    case ScalarType::BFloat16: return static_cast<float>(t.data_as<BFloat16>()[i]);
    default: return 0;
  }
}

void print_output(size_t index, const EValue& v, bool print_all) {
  if (!v.is_tensor()) {
    if (v.is_int()) printf("output %zu: int %" PRId64 "\n", index, v.to_int());
    else if (v.is_double()) printf("output %zu: float %g\n", index, v.to_double());
    else if (v.is_bool()) printf("output %zu: bool %d\n", index, v.to_bool());
    else printf("output %zu: %s\n", index, tag_name(v.tag()));
    return;
  }
  const Tensor& t = v.to_tensor();
  char shape[128];
  double sum = 0, lo = 0, hi = 0;
  for (size_t i = 0; i < t.numel(); ++i) {
    const double x = as_double(t, i);
    sum += x;
    lo = i == 0 ? x : std::min(lo, x);
    hi = i == 0 ? x : std::max(hi, x);
  }
  printf("output %zu: %s %s  sum=%.6g min=%.6g max=%.6g  first:", index, to_string(t.dtype()),
         format_sizes(t.sizes(), shape, sizeof(shape)), sum, lo, hi);
  const size_t shown = print_all ? t.numel() : std::min<size_t>(t.numel(), 8);
  for (size_t i = 0; i < shown; ++i) printf(" %.6g", as_double(t, i));
  printf("%s\n", shown < t.numel() ? " ..." : "");
}

// Peak resident memory of this process image in bytes, or -1 where unknown.
// Linux's VmHWM starts afresh at exec; getrusage's ru_maxrss does not (it
// keeps the forking parent's pre-exec size), so harnesses read this instead.
long long peak_rss_bytes() {
#ifdef __linux__
  FILE* f = fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long long kib = -1;
  while (fgets(line, sizeof(line), f) != nullptr) {
    if (sscanf(line, "VmHWM: %lld kB", &kib) == 1) break;
  }
  fclose(f);
  return kib < 0 ? -1 : kib * 1024;
#else
  return -1;
#endif
}

// One JSON object on one line; `sorted_ms` is `run_order_ms` sorted. Only
// the method name is a free string, so it is the only one escaped.
void print_json(const Options& o, int warmup_runs, double load_ms,
                const std::vector<double>& run_order_ms, const std::vector<double>& sorted_ms,
                size_t instructions, size_t planned_bytes) {
  printf("{\"method\": \"");
  for (char c : o.method) {
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (static_cast<unsigned char>(c) < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  printf("\", \"threads\": %d, \"kernels\": \"%s\", \"isa\": \"%s\", \"iterations\": %d, "
         "\"warmup\": %d, \"load_ms\": %.6f, \"latencies_ms\": [",
         o.threads, o.kernels == KernelLibrary::Portable ? "portable" : "optimized",
         optimized::isa_name(optimized::best_isa()), o.iterations, warmup_runs, load_ms);
  for (size_t i = 0; i < run_order_ms.size(); ++i) {
    printf("%s%.6f", i ? ", " : "", run_order_ms[i]);
  }
  printf("], \"min_ms\": %.6f, \"median_ms\": %.6f, \"instructions\": %zu, "
         "\"planned_bytes\": %zu, \"peak_rss_bytes\": %lld}\n",
         sorted_ms.front(), sorted_ms[sorted_ms.size() / 2], instructions, planned_bytes,
         peak_rss_bytes());
}

std::string shape_of(const EValue* v) {
  if (v == nullptr || !v->is_tensor()) return "-";
  const Tensor& t = v->to_tensor();
  std::string s = "[";
  for (int d = 0; d < t.dim(); ++d) s += (d ? "," : "") + std::to_string(t.size(d));
  return s + "]";
}

// The slowest instructions (mean per run, share of the instructions' total,
// first input and output shapes), then the total per operator.
void print_profile(const Method& method, const std::vector<uint64_t>& ns, int runs, int top) {
  uint64_t total = 0;
  for (uint64_t t : ns) total += t;
  if (total == 0) return;
  std::vector<size_t> order(ns.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ns[a] > ns[b]; });
  std::vector<std::pair<std::string, uint64_t>> per_op;
  printf("profile: %.3f ms per run in %zu instructions; slowest:\n",
         static_cast<double>(total) / 1e6 / runs, ns.size());
  printf("  %5s %9s %6s  %-34s %-20s %s\n", "instr", "us/run", "share", "operator", "input",
         "output");
  for (size_t rank = 0; rank < order.size(); ++rank) {
    const size_t i = order[rank];
    Result<Method::InstructionInfo> info = method.instruction_info(i);
    if (!info.ok()) continue;
    const Method::InstructionInfo& in = info.get();
    std::string op = in.name[0] ? in.name : in.kind;
    if (in.overload[0]) op += std::string(".") + in.overload;
    auto it = std::find_if(per_op.begin(), per_op.end(),
                           [&](const std::pair<std::string, uint64_t>& e) { return e.first == op; });
    if (it == per_op.end()) {
      per_op.emplace_back(op, ns[i]);
    } else {
      it->second += ns[i];
    }
    if (rank >= static_cast<size_t>(top)) continue;
    const EValue* first = nullptr;
    for (EValue* a : in.args) {
      if (a->is_tensor()) {
        first = a;
        break;
      }
    }
    const EValue* last = in.args.size() > 0 ? in.args[in.args.size() - 1] : nullptr;
    printf("  %5zu %9.1f %5.1f%%  %-34s %-20s %s\n", i,
           static_cast<double>(ns[i]) / 1e3 / runs, 100.0 * ns[i] / total, op.c_str(),
           shape_of(first).c_str(), shape_of(last).c_str());
  }
  std::sort(per_op.begin(), per_op.end(),
            [](const std::pair<std::string, uint64_t>& a,
               const std::pair<std::string, uint64_t>& b) { return a.second > b.second; });
  printf("per operator:\n");
  for (const auto& e : per_op) {
    printf("  %9.1f us/run %5.1f%%  %s\n", static_cast<double>(e.second) / 1e3 / runs,
           100.0 * e.second / total, e.first.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  if (set_num_threads(static_cast<size_t>(o.threads)) != Error::Ok) {
    fail("setting the thread count", Error::InvalidArgument);
  }
  // The caller's buffers: the tracer records into them without allocating.
  // Not value-initialized: pages no event reaches are never committed.
  const size_t event_bytes =
      o.etdump_events * ETDumpTracer::kRecordBytes + alignof(ETDumpTracer::Record);
  std::unique_ptr<uint8_t[]> etdump_events;
  std::unique_ptr<uint8_t[]> debug_buffer;
  std::unique_ptr<ETDumpTracer> tracer;
  if (!o.etdump.empty()) {
    etdump_events.reset(new uint8_t[event_bytes]);
    if (o.debug_buffer_size > 0) debug_buffer.reset(new uint8_t[o.debug_buffer_size]);
    tracer = std::make_unique<ETDumpTracer>(Span<uint8_t>(etdump_events.get(), event_bytes),
                                            Span<uint8_t>(debug_buffer.get(), o.debug_buffer_size));
  }
  ModuleOptions module_options;
  module_options.kernels = o.kernels;
  module_options.load_mode = o.load == "file" ? LoadMode::File : LoadMode::Mmap;
  module_options.event_tracer = tracer.get();  // sees load_method
  std::vector<char> file_bytes;  // --load bytes: the caller's copy of the file
  std::vector<char> buffer_storage;  // --load buffer: the copy, at --buffer-offset
  if ((o.load == "bytes" || o.load == "buffer") && !read_file(o.path, &file_bytes)) {
    fprintf(stderr, "error: cannot read '%s'\n", o.path.c_str());
    return 1;
  }
  char* buffer_base = nullptr;
  if (o.load == "buffer") {
    buffer_storage.resize(file_bytes.size() + 64 + o.buffer_offset);
    buffer_base = buffer_storage.data();
    while (reinterpret_cast<uintptr_t>(buffer_base) % 64 != 0) ++buffer_base;
    buffer_base += o.buffer_offset;
    memcpy(buffer_base, file_bytes.data(), file_bytes.size());
  }
  // The load time below is the runtime's own: preparing the caller's copy is not in it.
  const uint64_t load_start = platform_now_ns();
  std::unique_ptr<Module> module_storage;
  if (o.load == "bytes") {
    module_storage = std::make_unique<Module>(file_bytes.data(), file_bytes.size(), module_options);
  } else if (o.load == "buffer") {
    module_storage = std::make_unique<Module>(
        std::make_unique<BufferDataLoader>(buffer_base, file_bytes.size()), module_options);
  } else {
    module_storage = std::make_unique<Module>(o.path, module_options);
  }
  Module& module = *module_storage;
  Error err = Error::Ok;
  for (const std::string& path : o.data_files) {
    Result<std::shared_ptr<DataFile>> file = DataFile::open(path, module_options.load_mode);
    if (!file.ok()) fail("opening the data file", file.error());
    module.add_data_maps({file.get()});
  }
  err = module.load();
  if (err != Error::Ok) fail("loading the program", err);
  Result<MethodMeta> meta = module.method_meta(o.method);
  if (!meta.ok()) fail("finding the method", meta.error());
  err = module.load_method(o.method);
  if (err != Error::Ok) fail("loading the method", err);
  const double load_ms = static_cast<double>(platform_now_ns() - load_start) / 1e6;
  if (tracer != nullptr) module.set_event_tracer(nullptr);  // warm-up runs are not recorded

  std::mt19937 rng(o.seed);
  std::vector<TensorBuffer> buffers;
  std::vector<EValue> inputs;
  buffers.reserve(meta->num_inputs());
  for (size_t i = 0; i < meta->num_inputs(); ++i) {
    Result<TensorInfo> info = meta->input_tensor_info(i);
    if (!info.ok()) fail("reading input metadata (only tensor inputs are supported)", info.error());
    buffers.push_back(make_input(info.get(), o, i, rng));
  }
  for (auto& b : buffers) inputs.emplace_back(&b.tensor());

  // Warm-up (at least one call, which also yields the outputs), then timed runs.
  const uint64_t warmup_start = platform_now_ns();
  Result<std::vector<EValue>> outputs = module.execute(o.method, inputs);
  if (!outputs.ok()) fail("executing", outputs.error());
  int warmup_runs = 1;
  while (warmup_runs < o.warmup ||
         platform_now_ns() - warmup_start < static_cast<uint64_t>(o.warmup_ms) * 1000000u) {
    outputs = module.execute(o.method, inputs);
    if (!outputs.ok()) fail("executing", outputs.error());
    ++warmup_runs;
  }
  std::vector<uint64_t> instruction_ns;
  std::unique_ptr<InstructionTimer> timer;
  const std::string capture_block = o.method + ":intermediates";
  if (tracer != nullptr && o.debug_buffer_size > 0) {
    // One run capturing every instruction's output, in a block of its own
    // (its times include the copies, so readers keep it out of the timings).
    module.set_event_tracer(tracer.get());
    tracer->set_block_name(capture_block.c_str());
    outputs = module.execute(o.method, inputs);
    if (!outputs.ok()) fail("executing with intermediate capture", outputs.error());
    tracer->set_block_name(nullptr);
    tracer->set_capture_intermediates(false);
  }
  if (o.profile) {
    instruction_ns.assign(meta->num_instructions(), 0);
    timer = std::make_unique<InstructionTimer>(instruction_ns.data(), instruction_ns.size());
    if (tracer != nullptr) {
      fprintf(stderr, "torchedge_run: --profile and --etdump both trace; using --etdump\n");
    } else {
      module.set_event_tracer(timer.get());
    }
  }
  if (tracer != nullptr) module.set_event_tracer(tracer.get());
  std::vector<double> ms;
  for (int i = 0; i < o.iterations; ++i) {
    const uint64_t t0 = platform_now_ns();
    insn_count_begin();  // each timed run is one region of the QEMU instruction count
    outputs = module.execute(o.method, inputs);
    insn_count_end();
    const uint64_t t1 = platform_now_ns();
    if (!outputs.ok()) fail("executing", outputs.error());
    ms.push_back(static_cast<double>(t1 - t0) / 1e6);
  }
  if (tracer != nullptr) {
    module.set_event_tracer(nullptr);
    err = tracer->write_file(o.etdump.c_str());
    if (err != Error::Ok) fail("writing the ETDump", err);
    if (tracer->dropped_events() > 0 || tracer->dropped_debug_events() > 0) {
      fprintf(stderr,
              "torchedge_run: warning: the ETDump is incomplete: %zu events dropped (buffer of "
              "%zu; raise --etdump-events), %zu intermediates dropped (raise "
              "--debug-buffer-size)\n",
              tracer->dropped_events(), tracer->capacity(), tracer->dropped_debug_events());
    }
  }
  const std::vector<double> ms_in_run_order = ms;
  std::sort(ms.begin(), ms.end());
  for (size_t i = 0; i < outputs->size(); ++i) {
    if (!o.json) print_output(i, (*outputs)[i], o.print_all);
    if (!o.save_prefix.empty() && (*outputs)[i].is_tensor()) {
      const Tensor& t = (*outputs)[i].to_tensor();
      const std::string file = o.save_prefix + std::to_string(i) + ".bin";
      std::ofstream f(file, std::ios::binary);
      f.write(static_cast<const char*>(t.data()), static_cast<std::streamsize>(t.nbytes()));
      if (!f) {
        fprintf(stderr, "torchedge_run: cannot write '%s'\n", file.c_str());
        return 1;
      }
    }
  }
  if (o.json) {
    print_json(o, warmup_runs, load_ms, ms_in_run_order, ms, meta->num_instructions(),
               module.planned_bytes(o.method));
    return 0;
  }
  printf("method '%s': %zu instructions, planned memory %zu bytes\n", o.method.c_str(),
         meta->num_instructions(), module.planned_bytes(o.method));
  printf("latency over %d runs: min %.3f ms, median %.3f ms\n", o.iterations, ms.front(),
         ms[ms.size() / 2]);
  if (o.profile && tracer == nullptr) print_profile(*module.method(o.method).get(), instruction_ns, o.iterations, o.top);
  return 0;
}
