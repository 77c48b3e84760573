// torchedge/extension/llm/tokenizer/bpe_tokenizer.h
//
// Byte-level BPE (GPT-2 style; SmolLM2, Qwen, Llama 3 family vocabularies):
//
//   text --special/added tokens matched first (SpecialTokenMatcher)-->
//        stretches --PreTokenizer--> words --BpeModel (merges by rank)--> ids
//
// The vocabulary is spelled in the byte-level alphabet (byte_level.h): "Ġthe"
// is the token for the bytes " the". Token types follow GGUF / llama.cpp:
// control (3) tokens are special (skipped by decode(..., skip_special)), and
// control and user-defined (4) tokens spelled in the alphabet are matched
// whole in the text, as are the bos / eos / unk / pad tokens.
//
// Build one from a GGUF file with load_tokenizer (gguf_tokenizer.h), or from
// a BpeTokenizerConfig (tests, other file formats).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "extension/llm/tokenizer/bpe_model.h"
#include "extension/llm/tokenizer/pre_tokenizer.h"
#include "extension/llm/tokenizer/special_token_matcher.h"
#include "extension/llm/tokenizer/tokenizer.h"

namespace torchedge {
namespace llm {

/// GGUF token types (tokenizer.ggml.token_type).
enum class TokenType : int32_t {
  Undefined = 0,
  Normal = 1,
  Unknown = 2,
  Control = 3,
  UserDefined = 4,
  Unused = 5,
  Byte = 6,
};

struct BpeTokenizerConfig {
  std::vector<std::string> tokens;  // spellings, indexed by id
  std::vector<int32_t> token_types; // TokenType per id; empty: all Normal
  std::vector<std::string> merges;  // "left right" spellings, best rank first
  std::string pre_tokenizer = "gpt2";  // a PreTokenizer::from_name name
  TokenId bos = kNoToken, eos = kNoToken, pad = kNoToken, unk = kNoToken;
  TokenId eot = kNoToken;  // a separate end-of-turn id, if the file names one
  TokenId eom = kNoToken;  // end of message (tool calls), if named
  bool add_bos = false;    // the file's tokenizer.ggml.add_bos_token
  std::string chat_template;
};

class BpeTokenizer final : public Tokenizer {
 public:
  /// Validates and builds. InvalidProgram (with the reason) when token_types
  /// does not match tokens in length, an id is outside the vocabulary, or a
  /// merge is malformed or names tokens the vocabulary lacks; NotSupported for
  /// an unknown pre-tokenizer name.
  static Result<std::unique_ptr<BpeTokenizer>> create(BpeTokenizerConfig config);

  size_t vocab_size() const override { return model_.vocab_size(); }
  Result<std::string_view> token_bytes(TokenId id) const override;
  Result<std::string_view> token_text(TokenId id) const override;
  TokenId token_to_id(std::string_view text) const override;
  bool is_special(TokenId id) const override;

  const PreTokenizer& pre_tokenizer() const { return pre_tokenizer_; }
  size_t num_merges() const { return model_.num_merges(); }
  /// Number of tokens matched whole in text (special and added tokens).
  size_t num_matched_tokens() const { return matcher_.size(); }

 protected:
  Error encode_text(std::string_view text, bool parse_special,
                    std::vector<TokenId>& out) const override;

 private:
  BpeTokenizer(BpeModel model, PreTokenizer pre_tokenizer)
      : model_(std::move(model)), pre_tokenizer_(pre_tokenizer) {}
  Error check_id(TokenId id) const;

  BpeModel model_;
  PreTokenizer pre_tokenizer_;
  std::vector<std::string> texts_;  // spellings, indexed by id
  std::vector<uint8_t> special_;    // 1 for control tokens
  SpecialTokenMatcher matcher_;
};

}  // namespace llm
}  // namespace torchedge
