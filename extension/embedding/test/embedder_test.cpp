// Embedder's input errors, without a model: missing files are NotFound
// naming them; a tokenizer file that is not a tokenizer is an error, never
// a crash. End-to-end runs with the real MiniLM are in
// tests/embedding/test_minilm.py (Python builds the .pte).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "extension/embedding/embedder.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace embedding {
namespace {

std::string temp_file(const char* name, const std::string& bytes) {
  const std::string path = std::string(::testing::TempDir()) + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(Embedder, MissingFilesAreNotFoundNamingThem) {
  Result<std::unique_ptr<Embedder>> e = Embedder::load("/nonexistent/m.pte", "/nonexistent/t.gguf");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(), Error::NotFound);
  EXPECT_NE(std::string(last_error_message()).find("/nonexistent/t.gguf"), std::string::npos);
  const std::string tokenizer = temp_file("embedder_test_empty.gguf", "");
  e = Embedder::load("/nonexistent/m.pte", tokenizer);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error(), Error::NotFound);
  EXPECT_NE(std::string(last_error_message()).find("/nonexistent/m.pte"), std::string::npos);
}

TEST(Embedder, GarbageTokenizerFileIsAnError) {
  const std::string tokenizer = temp_file("embedder_test_bad.gguf", "GGUF\x03garbage");
  const std::string model = temp_file("embedder_test_bad.pte", "not a program");
  Result<std::unique_ptr<Embedder>> e = Embedder::load(model, tokenizer);
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
