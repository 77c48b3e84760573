// torchedge/extension/embedding/embedder.h
//
// Sentence embeddings from text, with no Python: a WordPiece tokenizer file
// (extension/llm/tokenizer, "bert" GGUF) and a .pte exported by
// torchedge.embedding.export, whose forward is
//
//   forward(input_ids int64 [1, T], attention_mask int64 [1, T]) -> float32 [1, D]
//
// (encoder, mean pooling over the mask, L2 normalization inside the program).
//
//   auto embedder = Embedder::load("minilm.pte", "minilm.tokenizer.gguf");
//   Result<std::vector<float>> v = (*embedder)->embed("A cat sits.");   // D floats, |v| = 1
//
// Tokenization is [CLS] text [SEP], the text's ids truncated so the whole
// fits max_length() (the tokenizer file's tokenizer.truncation.max_length,
// as the reference truncates). Errors are values with a recorded message
// (runtime/core/error_message.h): a missing file is NotFound naming it, a
// tokenizer that is not WordPiece/[CLS]-[SEP] is InvalidProgram, a program
// with another signature is InvalidProgram naming what it found.
//
// An Embedder holds one Module: not thread-safe (one thread at a time);
// embed() copies the program's output, so results outlive the next call.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "extension/llm/tokenizer/tokenizer.h"
#include "extension/module/module.h"

namespace torchedge {
namespace embedding {

/// The truncation length when the tokenizer file does not give one (BERT's
/// position table).
constexpr size_t kDefaultMaxLength = 512;

struct EmbedderOptions {
  ModuleOptions module;
  /// Truncate to this many tokens ([CLS] and [SEP] included); 0: the
  /// tokenizer file's length. Larger than the file's is InvalidArgument.
  size_t max_length = 0;
};

class Embedder {
 public:
  /// Loads the tokenizer, then the program and its forward method.
  static Result<std::unique_ptr<Embedder>> load(const std::string& model_path,
                                                const std::string& tokenizer_path,
                                                EmbedderOptions options = {});

  /// [CLS] ids(text) [SEP], truncated to max_length(). Special-token texts
  /// ("[MASK]") in `text` are matched, as the reference tokenizer does.
  Result<std::vector<llm::TokenId>> tokenize(std::string_view text) const;

  /// The embedding of `text`: dimension() floats of unit L2 norm.
  Result<std::vector<float>> embed(std::string_view text);

  /// The embedding of ids from tokenize() (1 < ids.size() <= max_length()).
  Result<std::vector<float>> embed_ids(const std::vector<llm::TokenId>& ids);

  /// One embedding per text, in order (each run on its own: no padding).
  Result<std::vector<std::vector<float>>> embed_all(const std::vector<std::string>& texts);

  size_t max_length() const { return max_length_; }
  /// Length of an embedding; known after the first embed (0 before).
  size_t dimension() const { return dimension_; }
  const llm::Tokenizer& tokenizer() const { return *tokenizer_; }

 private:
  Embedder() = default;

  std::unique_ptr<llm::Tokenizer> tokenizer_;
  std::unique_ptr<Module> module_;
  size_t max_length_ = kDefaultMaxLength;
  size_t dimension_ = 0;
};

/// Dot product of two equal-length vectors: their cosine similarity when
/// both have unit norm (as embeddings do).
float dot(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace embedding
}  // namespace torchedge
