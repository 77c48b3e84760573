// torchedge_llm: chat with (or benchmark) an LLM exported by torchedge.llm.export.
//
//   torchedge_llm --model M.pte --tokenizer T.gguf [--prompt P | --chat] [--system S]
//                 [--raw] [--max-new-tokens N] [--temperature T] [--top-p P] [--top-k K]
//                 [--repetition-penalty R] [--seed S] [--threads N]
//   torchedge_llm --model M.pte --tokenizer T.gguf --benchmark [--prompt-tokens P]
//                 [--new-tokens N] [--threads N] [--profile]
//
// --prompt formats the text as one chat turn with the tokenizer's chat
// template (--raw sends it as is) and streams the reply to stdout; --chat
// reads turns from stdin until EOF or an empty line, keeping the
// conversation in the KV cache. After the reply, stderr gets prefill and
// decode tokens/s, time to first token, peak RSS and the file size.
// --benchmark runs a P-token prompt (default 128) and N greedy decode steps
// (default 128) without stopping at end-of-turn tokens, and prints one JSON
// object on stdout's last line (prefill/decode seconds and tokens/s, time to
// first token, peak RSS); --profile adds the time per operator of forward
// over the decode steps on stderr. Exits non-zero with the runtime's message on any
// error (a missing file, a tokenizer that does not match, a prompt longer
// than the context).
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "devtools/etdump/instruction_timer.h"
#include "extension/llm/runner/generation.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

using namespace torchedge;
using namespace torchedge::llm;

namespace {

struct Options {
  std::string model;
  std::string tokenizer;
  std::string prompt;
  std::string system;
  bool chat = false;
  bool raw = false;
  bool benchmark = false;
  bool profile = false;
  int64_t prompt_tokens = 128;
  int64_t new_tokens = 128;
  int threads = 1;
  GenerationConfig generation;
};

[[noreturn]] void usage(const char* why) {
  fprintf(stderr,
          "torchedge_llm: %s\n"
          "usage: torchedge_llm --model M.pte --tokenizer T.gguf [--prompt P | --chat] [--system S]\n"
          "         [--raw] [--max-new-tokens N] [--temperature T] [--top-p P] [--top-k K]\n"
          "         [--repetition-penalty R] [--seed S] [--threads N]\n"
          "       torchedge_llm --model M.pte --tokenizer T.gguf --benchmark [--prompt-tokens P]\n"
          "         [--new-tokens N] [--threads N]\n",
          why);
  exit(2);
}

double parse_number(const char* flag, const char* text) {
  char* end = nullptr;
  const double value = strtod(text, &end);
  if (end == text || *end != '\0') {
    fprintf(stderr, "torchedge_llm: %s expects a number, got '%s'\n", flag, text);
    exit(2);
  }
  return value;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage((flag + " needs a value").c_str());
      return argv[++i];
    };
    if (flag == "--model") o.model = value();
    else if (flag == "--tokenizer") o.tokenizer = value();
    else if (flag == "--prompt") o.prompt = value();
    else if (flag == "--system") o.system = value();
    else if (flag == "--chat") o.chat = true;
    else if (flag == "--raw") o.raw = true;
    else if (flag == "--benchmark") o.benchmark = true;
    else if (flag == "--profile") o.profile = true;
    else if (flag == "--prompt-tokens") o.prompt_tokens = static_cast<int64_t>(parse_number("--prompt-tokens", value()));
    else if (flag == "--new-tokens") o.new_tokens = static_cast<int64_t>(parse_number("--new-tokens", value()));
    else if (flag == "--max-new-tokens") o.generation.max_new_tokens = static_cast<int64_t>(parse_number("--max-new-tokens", value()));
    else if (flag == "--temperature") o.generation.sampling.temperature = static_cast<float>(parse_number("--temperature", value()));
    else if (flag == "--top-p") o.generation.sampling.top_p = static_cast<float>(parse_number("--top-p", value()));
    else if (flag == "--top-k") o.generation.sampling.top_k = static_cast<int>(parse_number("--top-k", value()));
    else if (flag == "--repetition-penalty") o.generation.sampling.repetition_penalty = static_cast<float>(parse_number("--repetition-penalty", value()));
    else if (flag == "--seed") o.generation.sampling.seed = static_cast<uint64_t>(parse_number("--seed", value()));
    else if (flag == "--threads") o.threads = static_cast<int>(parse_number("--threads", value()));
    else if (flag == "--help" || flag == "-h") usage("help");
    else usage(("unknown flag " + flag).c_str());
  }
  if (o.model.empty() || o.tokenizer.empty()) usage("--model and --tokenizer are required");
  if (!o.benchmark && !o.chat && o.prompt.empty()) usage("give --prompt, --chat or --benchmark");
  if (o.threads < 1) usage("--threads must be >= 1");
  return o;
}

[[noreturn]] void fail(const char* what) {
  fprintf(stderr, "torchedge_llm: %s: %s\n", what, last_error_message());
  exit(1);
}

// The process's peak resident set (VmHWM): unlike getrusage's ru_maxrss,
// which a child started by fork + exec inherits from its parent, it covers
// this program only.
double peak_rss_mb() {
  FILE* status = fopen("/proc/self/status", "r");
  if (status != nullptr) {
    char line[256];
    while (fgets(line, sizeof(line), status) != nullptr) {
      long kib = 0;
      if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) {
        fclose(status);
        return kib / 1024.0;
      }
    }
    fclose(status);
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // Linux reports KiB
}

double file_mb(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? st.st_size / 1e6 : 0.0;
}

void print_stats(const GenerationStats& s, const Options& o) {
  fprintf(stderr,
          "\n[%lld prompt tokens: prefill %.1f tokens/s | %lld new tokens: decode %.1f tokens/s | "
          "time to first token %.1f ms | stop: %s | context %lld | peak RSS %.1f MB | "
          "model %.1f MB | %d thread%s]\n",
          static_cast<long long>(s.prompt_tokens), s.prefill_tokens_per_s(),
          static_cast<long long>(s.new_tokens), s.decode_tokens_per_s(), s.first_token_s * 1e3,
          stop_reason_name(s.stop_reason), static_cast<long long>(s.position), peak_rss_mb(),
          file_mb(o.model), o.threads, o.threads == 1 ? "" : "s");
}

void stream(const std::string& piece) {
  fputs(piece.c_str(), stdout);
  fflush(stdout);
}

int run_turn(LlmRunner& runner, const std::string& text, const Options& o) {
  std::string prompt = text;
  if (!o.raw) {
    auto formatted = runner.chat_prompt(text, runner.position() == 0 ? o.system : "");
    if (!formatted.ok()) fail("chat template");
    prompt = formatted.get();
  }
  auto stats = runner.generate(prompt, o.generation, stream);
  if (!stats.ok()) fail("generate");
  print_stats(stats.get(), o);
  return 0;
}

// A fixed English text, repeated, cut to exactly `count` tokens.
Result<std::vector<int64_t>> benchmark_prompt(const Tokenizer& tokenizer, int64_t count) {
  const std::string text =
      "The quick brown fox jumps over the lazy dog while the committee reviews the annual "
      "report on renewable energy, transport and the water supply of the region. ";
  std::vector<int64_t> tokens;
  while (static_cast<int64_t>(tokens.size()) < count) {
    TE_ASSIGN_OR_RETURN(std::vector<TokenId> piece, tokenizer.encode(text, false));
    tokens.insert(tokens.end(), piece.begin(), piece.end());
  }
  tokens.resize(static_cast<size_t>(count));
  return tokens;
}

// Time per operator of forward, summed over the instructions that run it.
void print_profile(Method& method, const std::vector<uint64_t>& ns, int64_t calls) {
  std::map<std::string, uint64_t> by_operator;
  uint64_t total = 0;
  for (size_t i = 0; i < ns.size(); ++i) {
    auto info = method.instruction_info(i);
    const std::string name = info.ok() && info.get().name != nullptr ? info.get().name : "?";
    by_operator[name] += ns[i];
    total += ns[i];
  }
  std::vector<std::pair<uint64_t, std::string>> rows;
  for (const auto& [name, time] : by_operator) rows.emplace_back(time, name);
  std::sort(rows.rbegin(), rows.rend());
  fprintf(stderr, "decode profile: %.3f ms per forward over %lld calls\n",
          total / 1e6 / static_cast<double>(calls), static_cast<long long>(calls));
  for (const auto& [time, name] : rows) {
    fprintf(stderr, "  %-40s %8.3f ms  %5.1f %%\n", name.c_str(),
            time / 1e6 / static_cast<double>(calls), 100.0 * time / std::max<uint64_t>(total, 1));
  }
}

int run_benchmark(LlmRunner& runner, const Options& o) {
  const DecoderMetadata& meta = runner.metadata();
  if (o.prompt_tokens < 1 || o.new_tokens < 1 || o.prompt_tokens + o.new_tokens > meta.max_context) {
    fprintf(stderr, "torchedge_llm: --prompt-tokens %lld + --new-tokens %lld must be >= 1 each and "
            "fit the context of %lld\n", static_cast<long long>(o.prompt_tokens),
            static_cast<long long>(o.new_tokens), static_cast<long long>(meta.max_context));
    return 2;
  }
  auto prompt = benchmark_prompt(runner.tokenizer(), o.prompt_tokens);
  if (!prompt.ok()) fail("benchmark prompt");
  GenerationConfig config;
  config.max_new_tokens = o.new_tokens + 1;  // N decode steps after the first token
  config.stop_at_end_of_turn = false;
  GenerationStats best;
  for (int round = 0; round < 2; ++round) {  // the first round warms caches and pages
    runner.reset();
    auto stats = runner.generate_tokens(prompt.get(), config, nullptr);
    if (!stats.ok()) fail("benchmark");
    best = stats.get();
  }
  if (o.profile) {
    // Decode steps only: a prompt of one token, then the timed steps.
    Method* method = runner.decoder().method();
    std::vector<uint64_t> ns(method->num_instructions(), 0);
    runner.reset();
    GenerationConfig first;
    first.max_new_tokens = 1;
    first.stop_at_end_of_turn = false;
    if (!runner.generate_tokens({prompt.get().front()}, first, nullptr).ok()) fail("profile");
    InstructionTimer timer(ns.data(), ns.size());
    EventTracer* previous = method->event_tracer();
    method->set_event_tracer(&timer);
    GenerationConfig steps = config;
    steps.max_new_tokens = o.new_tokens;
    if (!runner.generate_tokens({prompt.get()[1]}, steps, nullptr).ok()) fail("profile");
    method->set_event_tracer(previous);
    print_profile(*method, ns, o.new_tokens);
  }
  const double prefill = best.prefill_s;
  const double decode = best.decode_s;
  printf("{\"prompt_tokens\": %lld, \"prefill_s\": %.6f, \"prefill_tok_s\": %.3f, "
         "\"new_tokens\": %lld, \"decode_s\": %.6f, \"decode_tok_s\": %.3f, \"ttft_ms\": %.3f, "
         "\"peak_rss_mb\": %.1f, \"threads\": %d, \"file_mb\": %.3f}\n",
         static_cast<long long>(best.prompt_tokens), prefill, best.prefill_tokens_per_s(),
         static_cast<long long>(best.new_tokens - 1), decode, best.decode_tokens_per_s(),
         best.first_token_s * 1e3, peak_rss_mb(), o.threads, file_mb(o.model));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (set_num_threads(static_cast<size_t>(o.threads)) != Error::Ok) fail("--threads");
  LlmRunner runner(o.model, o.tokenizer);
  if (runner.load() != Error::Ok) fail("load");
  if (o.benchmark) return run_benchmark(runner, o);
  if (!o.chat) return run_turn(runner, o.prompt, o);
  std::string line;
  fputs("> ", stderr);
  while (std::getline(std::cin, line) && !line.empty()) {
    run_turn(runner, line, o);
    fputs("\n> ", stderr);
  }
  return 0;
}
