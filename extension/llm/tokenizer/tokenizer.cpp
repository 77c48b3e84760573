#include "extension/llm/tokenizer/tokenizer.h"

#include <algorithm>

#include "extension/llm/tokenizer/utf8.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {

Result<std::vector<TokenId>> Tokenizer::encode(std::string_view text,
                                               const EncodeOptions& options) const {
  std::vector<TokenId> ids;
  if (options.add_bos) {
    TE_CHECK_OR_RETURN(bos_id() != kNoToken, Error::InvalidArgument,
                       "encode: add_bos asked for, but the tokenizer has no bos token");
    ids.push_back(bos_id());
  }
  TE_RETURN_IF_ERROR(encode_text(text, options.parse_special, ids));
  if (options.add_eos) {
    TE_CHECK_OR_RETURN(eos_id() != kNoToken, Error::InvalidArgument,
                       "encode: add_eos asked for, but the tokenizer has no eos token");
    ids.push_back(eos_id());
  }
  return ids;
}

Result<std::vector<TokenId>> Tokenizer::encode(std::string_view text, bool add_bos) const {
  EncodeOptions options;
  options.add_bos = add_bos;
  return encode(text, options);
}

Result<std::string> Tokenizer::decode(Span<const TokenId> ids, bool skip_special) const {
  // Join the bytes first, repair once: a character may span tokens.
  std::string bytes;
  for (size_t i = 0; i < ids.size(); ++i) {
    Result<std::string_view> piece = token_bytes(ids[i]);
    if (!piece.ok()) {
      prepend_error_context("decode: position %zu", i);
      return piece.error();
    }
    if (skip_special && is_special(ids[i])) continue;
    bytes.append(piece->data(), piece->size());
  }
  std::string text;
  text.reserve(bytes.size());
  append_utf8_lossy(bytes, text);
  finish_decode(text);
  return text;
}

Result<std::string> Tokenizer::decode(const std::vector<TokenId>& ids, bool skip_special) const {
  return decode(Span<const TokenId>(ids.data(), ids.size()), skip_special);
}

bool Tokenizer::is_end_of_turn(TokenId id) const {
  const std::vector<TokenId>& ends = special_ids_.end_of_turn;
  return std::binary_search(ends.begin(), ends.end(), id);
}

}  // namespace llm
}  // namespace torchedge
