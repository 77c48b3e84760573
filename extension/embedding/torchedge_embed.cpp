// torchedge_embed: sentence embeddings from the command line, no Python.
//
//   torchedge_embed --model minilm.pte [--tokenizer minilm.tokenizer.gguf]
//                   [--file sentences.txt] [--embeddings] [--tokens]
//                   [--threads N] [--repeat N] [--portable] "sentence" ...
//
// Sentences come from the arguments and/or --file (one per line). Prints
// the cosine similarity matrix of the embeddings (with --embeddings, each
// embedding as one line of floats instead; with --tokens, the token ids
// too), then the mean latency per sentence (tokenize + forward; over
// --repeat passes after one warm-up pass). The tokenizer defaults to
// m.tokenizer.gguf beside m.pte. Exit status 1 with a message on any
// error, 2 for bad usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "extension/embedding/embedder.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/core/error_message.h"

using namespace torchedge;

namespace {

struct Options {
  std::string model, tokenizer, file;
  std::vector<std::string> sentences;
  bool embeddings = false, tokens = false, portable = false;
  int threads = 1, repeat = 1;
};

[[noreturn]] void usage(const char* problem) {
  fprintf(stderr,
          "torchedge_embed: %s\nusage: torchedge_embed --model m.pte [--tokenizer t.gguf] "
          "[--file sentences.txt] [--embeddings] [--tokens] [--threads N] [--repeat N] "
          "[--portable] \"sentence\" ...\n",
          problem);
  exit(2);
}

[[noreturn]] void fail(const char* what, Error err) {
  fprintf(stderr, "torchedge_embed: %s failed: %s: %s\n", what, error_name(err),
          last_error_message());
  exit(1);
}

int parse_count(const char* flag, const char* text) {
  char* end = nullptr;
  const long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 100000) {
    fprintf(stderr, "torchedge_embed: %s needs a count in 1..100000, got '%s'\n", flag, text);
    exit(2);
  }
  return static_cast<int>(v);
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--model") o.model = next();
    else if (a == "--tokenizer") o.tokenizer = next();
    else if (a == "--file") o.file = next();
    else if (a == "--embeddings") o.embeddings = true;
    else if (a == "--tokens") o.tokens = true;
    else if (a == "--portable") o.portable = true;
    else if (a == "--threads") o.threads = parse_count("--threads", next());
    else if (a == "--repeat") o.repeat = parse_count("--repeat", next());
    else if (a == "--help" || a == "-h") usage("sentence embeddings and their cosine matrix");
    else if (a.size() > 2 && a.compare(0, 2, "--") == 0) usage(("unknown option " + a).c_str());
    else o.sentences.push_back(a);
  }
  if (o.model.empty()) usage("--model is required");
  if (o.tokenizer.empty()) {
    const size_t dot = o.model.rfind(".pte");
    o.tokenizer = (dot == std::string::npos ? o.model : o.model.substr(0, dot)) + ".tokenizer.gguf";
  }
  if (!o.file.empty()) {
    std::ifstream in(o.file);
    if (!in) {
      fprintf(stderr, "torchedge_embed: cannot read --file '%s'\n", o.file.c_str());
      exit(1);
    }
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) o.sentences.push_back(line);
    }
  }
  if (o.sentences.empty()) usage("no sentences given (arguments or --file)");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (set_num_threads(static_cast<size_t>(o.threads)) != Error::Ok) {
    fail("setting the thread count", Error::InvalidArgument);
  }
  embedding::EmbedderOptions options;
  options.module.kernels = o.portable ? KernelLibrary::Portable : KernelLibrary::Optimized;
  Result<std::unique_ptr<embedding::Embedder>> loaded =
      embedding::Embedder::load(o.model, o.tokenizer, options);
  if (!loaded.ok()) fail("loading", loaded.error());
  embedding::Embedder& embedder = *loaded.get();

  Result<std::vector<std::vector<float>>> vectors = embedder.embed_all(o.sentences);  // warm-up
  if (!vectors.ok()) fail("embedding", vectors.error());
  const auto start = std::chrono::steady_clock::now();
  for (int r = 0; r < o.repeat; ++r) {
    vectors = embedder.embed_all(o.sentences);
    if (!vectors.ok()) fail("embedding", vectors.error());
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
                    (static_cast<double>(o.repeat) * static_cast<double>(o.sentences.size()));
  const std::vector<std::vector<float>>& v = vectors.get();
  const size_t n = v.size();

  if (o.tokens) {
    for (size_t i = 0; i < n; ++i) {
      Result<std::vector<llm::TokenId>> ids = embedder.tokenize(o.sentences[i]);
      if (!ids.ok()) fail("tokenizing", ids.error());
      printf("tokens %zu:", i);
      for (llm::TokenId id : ids.get()) printf(" %d", id);
      printf("\n");
    }
  }
  if (o.embeddings) {
    for (size_t i = 0; i < n; ++i) {
      printf("embedding %zu:", i);
      for (float x : v[i]) printf(" %.7g", x);
      printf("\n");
    }
  } else {
    printf("cosine similarity (%zu sentences, dimension %zu)\n", n, embedder.dimension());
    for (size_t i = 0; i < n; ++i) {
      printf("[%2zu]", i);
      for (size_t j = 0; j < n; ++j) printf(" %6.3f", embedding::dot(v[i], v[j]));
      printf("  %.60s\n", o.sentences[i].c_str());
    }
  }
  printf("latency: %.3f ms per sentence (mean over %d pass%s of %zu, %d thread%s)\n", ms, o.repeat,
         o.repeat == 1 ? "" : "es", n, o.threads, o.threads == 1 ? "" : "s");
  return 0;
}
