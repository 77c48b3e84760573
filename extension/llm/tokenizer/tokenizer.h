// torchedge/extension/llm/tokenizer/tokenizer.h
//
// The one tokenizer interface of the LLM library (DESIGN.md section 6). Each
// algorithm is a subclass in its own file: byte-level BPE (bpe_tokenizer.h)
// and WordPiece (wordpiece_tokenizer.h) today; SentencePiece-style
// tokenizers implement the same virtuals. The LLM runner and the text-embedding demo only see
// this class.
//
//   encode(text, options) -> token ids   special tokens ("<|im_start|>") are
//                                        matched in the text first, then the
//                                        algorithm tokenizes the rest
//   decode(ids)           -> UTF-8 text  as the reference (Hugging Face
//                                        tokenizers) decodes: bytes joined,
//                                        invalid UTF-8 repaired to U+FFFD
//   TokenDecoder          (token_decoder.h) decodes one token at a time for
//                                        streaming, never splitting a character
//
// Errors are values: no exception leaves this API. A failed call returns an
// Error and records a message (runtime/core/error_message.h); the tokenizer
// is unchanged. A Tokenizer is immutable after construction: encode and
// decode may be called from several threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/core/error.h"
#include "runtime/core/result.h"
#include "runtime/core/span.h"

namespace torchedge {
namespace llm {

using TokenId = int32_t;

/// "No such token" (an absent bos/eos/pad id, an unknown token text).
constexpr TokenId kNoToken = -1;

struct EncodeOptions {
  bool add_bos = false;  // prepend bos_id() (InvalidArgument if there is none)
  bool add_eos = false;  // append eos_id() (InvalidArgument if there is none)
  // Match special and added tokens written in the text ("<|im_end|>" becomes
  // its id). Off for untrusted text that must not inject control tokens: the
  // same characters are then tokenized as ordinary text.
  bool parse_special = true;
};

/// The ids a model's tokenizer names, read from its file; kNoToken if absent.
struct SpecialTokenIds {
  TokenId bos = kNoToken;
  TokenId eos = kNoToken;
  TokenId pad = kNoToken;
  TokenId unk = kNoToken;
  // Ids that end a turn or the text: eos, the file's end-of-turn id and the
  // control tokens whose text marks an end ("<|im_end|>", "<|endoftext|>",
  // "<|eot_id|>", ...). Sorted, unique.
  std::vector<TokenId> end_of_turn;
};

class Tokenizer {
 public:
  virtual ~Tokenizer() = default;

  /// Token ids of `text` (any bytes; invalid UTF-8 is tokenized byte by byte
  /// by byte-level tokenizers). InvalidArgument when add_bos / add_eos ask for
  /// an id the tokenizer lacks.
  Result<std::vector<TokenId>> encode(std::string_view text, const EncodeOptions& options = {}) const;
  Result<std::vector<TokenId>> encode(std::string_view text, bool add_bos) const;

  /// Text of `ids`: their bytes joined, invalid UTF-8 repaired to U+FFFD.
  /// With skip_special, control tokens (is_special) are left out.
  /// InvalidArgument naming the first id outside [0, vocab_size()).
  Result<std::string> decode(Span<const TokenId> ids, bool skip_special = false) const;
  Result<std::string> decode(const std::vector<TokenId>& ids, bool skip_special = false) const;

  /// Number of ids; valid ids are [0, vocab_size()).
  virtual size_t vocab_size() const = 0;

  /// The raw bytes `id` decodes to (may be part of a UTF-8 character).
  /// The view lives as long as the tokenizer. InvalidArgument if out of range.
  virtual Result<std::string_view> token_bytes(TokenId id) const = 0;

  /// The token as the vocabulary spells it (byte-level BPE: "Ġthe" for " the").
  /// The view lives as long as the tokenizer. InvalidArgument if out of range.
  virtual Result<std::string_view> token_text(TokenId id) const = 0;

  /// The id whose vocabulary spelling is `text`, or kNoToken.
  virtual TokenId token_to_id(std::string_view text) const = 0;

  /// True for control tokens (bos, eos, "<|im_start|>", ...): decode's
  /// skip_special leaves them out.
  virtual bool is_special(TokenId id) const = 0;

  TokenId bos_id() const { return special_ids_.bos; }
  TokenId eos_id() const { return special_ids_.eos; }
  TokenId pad_id() const { return special_ids_.pad; }
  TokenId unk_id() const { return special_ids_.unk; }
  const SpecialTokenIds& special_ids() const { return special_ids_; }

  /// True when generation should stop after `id` (see SpecialTokenIds).
  bool is_end_of_turn(TokenId id) const;

  /// Whether the model's file asks for bos_id() before a prompt
  /// (tokenizer.ggml.add_bos_token); encode() adds it only when asked.
  bool adds_bos_by_default() const { return add_bos_by_default_; }

  /// Whether the model wants eos_id() after a text (BERT's [SEP]; the
  /// file's tokenizer.ggml.add_eos_token); encode() adds it only when asked.
  bool adds_eos_by_default() const { return add_eos_by_default_; }

  /// The model's Jinja chat template, empty when the file has none.
  const std::string& chat_template() const { return chat_template_; }

 protected:
  /// Appends the ids of `text` to `out` (no bos/eos). On error `out` may hold
  /// a partial result; encode() discards it.
  virtual Error encode_text(std::string_view text, bool parse_special,
                            std::vector<TokenId>& out) const = 0;

  /// decode()'s last step on the joined, repaired text (WordPiece drops the
  /// space its first word carries). Default: nothing.
  virtual void finish_decode(std::string& text) const { (void)text; }

  SpecialTokenIds special_ids_;
  bool add_bos_by_default_ = false;
  bool add_eos_by_default_ = false;
  std::string chat_template_;
};

}  // namespace llm
}  // namespace torchedge
