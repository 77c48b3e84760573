// torchedge/extension/llm/tokenizer/wordpiece_tokenizer.h
//
// WordPiece (BERT, MiniLM, sentence-transformers encoders), as Hugging Face
// tokenizers' WordPiece model with BertNormalizer and BertPreTokenizer:
//
//   text --special tokens ("[CLS]", "[MASK]") matched first, raw text-->
//        stretches --bert_normalize / bert_pre_tokenize (bert_normalizer.h)-->
//        words --WordPiece--> ids
//
// WordPiece: a word of more than max_input_chars_per_word characters is
// [UNK]; otherwise it is cut greedily into the longest vocabulary pieces
// from the left, every piece but the first spelled with the continuation
// prefix ("##ing"); if some rest of the word matches no piece, the whole
// word is [UNK].
//
// The post-processor's "[CLS] text [SEP]" is bos = [CLS], eos = [SEP]:
// encode(text, {add_bos = true, add_eos = true}); adds_bos_by_default() and
// adds_eos_by_default() say the model wants both. Truncation to the model's
// length is the caller's (extension/embedding does it).
//
// token_bytes(): a word-initial token is " " + its text, a continuation
// token its text without the prefix, so joined bytes read as words; decode()
// then drops the leading space and joins punctuation as the reference's
// WordPiece decoder does with cleanup (" ." -> ".", " n't" -> "n't", ...).
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "extension/llm/tokenizer/bert_normalizer.h"
#include "extension/llm/tokenizer/special_token_matcher.h"
#include "extension/llm/tokenizer/tokenizer.h"

namespace torchedge {
namespace llm {

struct WordPieceTokenizerConfig {
  std::vector<std::string> tokens;   // spellings, indexed by id
  std::vector<int32_t> token_types;  // TokenType (bpe_tokenizer.h) per id; empty: all Normal
  BertNormalizerOptions normalizer;
  std::string continuing_subword_prefix = "##";
  size_t max_input_chars_per_word = 100;
  TokenId unk = kNoToken;  // required
  TokenId cls = kNoToken, sep = kNoToken, pad = kNoToken, mask = kNoToken;
  bool add_cls = true;  // the post-processor adds [CLS] ... [SEP]
  bool add_sep = true;
};

class WordPieceTokenizer final : public Tokenizer {
 public:
  /// Validates and builds. InvalidProgram (with the reason) for an empty
  /// vocabulary, token types of another length, a duplicate spelling, a
  /// missing [UNK] or an id outside the vocabulary.
  static Result<std::unique_ptr<WordPieceTokenizer>> create(WordPieceTokenizerConfig config);

  size_t vocab_size() const override { return texts_.size(); }
  Result<std::string_view> token_bytes(TokenId id) const override;
  Result<std::string_view> token_text(TokenId id) const override;
  TokenId token_to_id(std::string_view text) const override;
  bool is_special(TokenId id) const override;

  const BertNormalizerOptions& normalizer() const { return normalizer_; }
  TokenId cls_id() const { return special_ids_.bos; }
  TokenId sep_id() const { return special_ids_.eos; }
  TokenId mask_id() const { return mask_; }

 protected:
  Error encode_text(std::string_view text, bool parse_special,
                    std::vector<TokenId>& out) const override;
  void finish_decode(std::string& text) const override;

 private:
  WordPieceTokenizer() = default;
  Error check_id(TokenId id) const;
  void encode_stretch(std::string_view text, std::vector<TokenId>& out) const;
  void encode_word(std::u32string_view word, std::vector<TokenId>& out) const;

  std::vector<std::string> texts_;  // spellings
  std::vector<std::string> bytes_;  // what each token decodes to (see above)
  std::vector<uint8_t> special_;
  std::unordered_map<std::string, TokenId> ids_;
  BertNormalizerOptions normalizer_;
  std::string prefix_;
  size_t max_word_chars_ = 100;
  TokenId mask_ = kNoToken;
  SpecialTokenMatcher matcher_;
};

}  // namespace llm
}  // namespace torchedge
