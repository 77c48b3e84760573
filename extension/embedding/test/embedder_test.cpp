// Embedder's input errors, without a model: missing files are NotFound
// naming them; a tokenizer file that is not a tokenizer is an error, never
// a crash. End-to-end runs with the real MiniLM are in
// tests/embedding/test_minilm.py (Python builds the .pte).
#include <gtest/gtest.h>
#include <unistd.h>  // getpid

#include <cstdio>
#include <fstream>
#include <string>

#include "extension/embedding/embedder.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace embedding {
namespace {

// A file of `bytes` in TempDir(), removed when the test ends. Named after
// the process too: the host and ARM64 suites (or two checkouts) may run
// this test at the same time, and TempDir() is the shared /tmp.
struct TempFile {
  TempFile(const char* name, const std::string& bytes)
      : path(std::string(::testing::TempDir()) + std::to_string(getpid()) + "_" + name) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  ~TempFile() { std::remove(path.c_str()); }
  const std::string path;
};

TEST(Embedder, MissingFilesAreNotFoundNamingThem) {
  Result<std::unique_ptr<Embedder>> e = Embedder::load("/nonexistent/m.pte", "/nonexistent/t.gguf");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(), Error::NotFound);
  EXPECT_NE(std::string(last_error_message()).find("/nonexistent/t.gguf"), std::string::npos);
  const TempFile tokenizer("embedder_test_empty.gguf", "");
  e = Embedder::load("/nonexistent/m.pte", tokenizer.path);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(), Error::NotFound);
  EXPECT_NE(std::string(last_error_message()).find("/nonexistent/m.pte"), std::string::npos);
}

TEST(Embedder, GarbageTokenizerFileIsAnError) {
  const TempFile tokenizer("embedder_test_bad.gguf", "GGUF\x03garbage");
  const TempFile model("embedder_test_bad.pte", "not a program");
  Result<std::unique_ptr<Embedder>> e = Embedder::load(model.path, tokenizer.path);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(std::string(last_error_message()).find("embedder_test_bad.gguf"), std::string::npos)
      << last_error_message();
}

TEST(Embedder, DotProduct) {
  EXPECT_FLOAT_EQ(dot({1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}), 32.f);
}

}  // namespace
}  // namespace embedding
}  // namespace torchedge
