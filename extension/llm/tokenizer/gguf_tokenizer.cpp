#include "extension/llm/tokenizer/gguf_tokenizer.h"

#include "runtime/core/error_message.h"

namespace torchedge {
namespace llm {
namespace {

// An optional id key: kNoToken when absent, an error when ill-typed.
Error optional_id(const GgufMetadata& meta, const char* key, TokenId& id) {
  id = kNoToken;
  if (!meta.contains(key)) return Error::Ok;
  TE_ASSIGN_OR_RETURN(uint64_t value, meta.get_uint(key));
  TE_CHECK_OR_RETURN(value < static_cast<uint64_t>(INT32_MAX), Error::InvalidProgram,
                     "GGUF key '%s' holds %llu, not a token id", key,
                     static_cast<unsigned long long>(value));
  id = static_cast<TokenId>(value);
  return Error::Ok;
}

Error optional_string(const GgufMetadata& meta, const char* key, std::string& out) {
  if (!meta.contains(key)) return Error::Ok;
  TE_ASSIGN_OR_RETURN(std::string_view value, meta.get_string(key));
  out.assign(value.data(), value.size());
  return Error::Ok;
}

Error optional_bool(const GgufMetadata& meta, const char* key, bool& out) {
  if (!meta.contains(key)) return Error::Ok;
  TE_ASSIGN_OR_RETURN(out, meta.get_bool(key));
  return Error::Ok;
}

}  // namespace

Result<BpeTokenizerConfig> bpe_config_from_gguf(const GgufMetadata& meta) {
  BpeTokenizerConfig config;
  TE_ASSIGN_OR_RETURN(Span<const std::string> tokens, meta.get_string_array("tokenizer.ggml.tokens"));
  config.tokens.assign(tokens.begin(), tokens.end());
  TE_ASSIGN_OR_RETURN(Span<const std::string> merges, meta.get_string_array("tokenizer.ggml.merges"));
  config.merges.assign(merges.begin(), merges.end());
  if (meta.contains("tokenizer.ggml.token_type")) {
    TE_ASSIGN_OR_RETURN(std::vector<int64_t> types, meta.get_int_array("tokenizer.ggml.token_type"));
    config.token_types.reserve(types.size());
    for (int64_t t : types) config.token_types.push_back(static_cast<int32_t>(t));
  }
  TE_RETURN_IF_ERROR(optional_string(meta, "tokenizer.ggml.pre", config.pre_tokenizer));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.bos_token_id", config.bos));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.eos_token_id", config.eos));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.padding_token_id", config.pad));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.unknown_token_id", config.unk));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.eot_token_id", config.eot));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.eom_token_id", config.eom));
  if (meta.contains("tokenizer.ggml.add_bos_token")) {
    TE_ASSIGN_OR_RETURN(config.add_bos, meta.get_bool("tokenizer.ggml.add_bos_token"));
  }
  TE_RETURN_IF_ERROR(optional_string(meta, "tokenizer.chat_template", config.chat_template));
  return config;
}

Result<WordPieceTokenizerConfig> wordpiece_config_from_gguf(const GgufMetadata& meta) {
  WordPieceTokenizerConfig config;
  TE_ASSIGN_OR_RETURN(Span<const std::string> tokens, meta.get_string_array("tokenizer.ggml.tokens"));
  config.tokens.assign(tokens.begin(), tokens.end());
  if (meta.contains("tokenizer.ggml.token_type")) {
    TE_ASSIGN_OR_RETURN(std::vector<int64_t> types, meta.get_int_array("tokenizer.ggml.token_type"));
    config.token_types.reserve(types.size());
    for (int64_t t : types) config.token_types.push_back(static_cast<int32_t>(t));
  }
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.unknown_token_id", config.unk));
  // As llama.cpp writes BERT vocabularies: [CLS] is bos, [SEP] the separator.
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.bos_token_id", config.cls));
  const bool has_sep = meta.contains("tokenizer.ggml.seperator_token_id");
  TE_RETURN_IF_ERROR(optional_id(
      meta, has_sep ? "tokenizer.ggml.seperator_token_id" : "tokenizer.ggml.eos_token_id", config.sep));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.padding_token_id", config.pad));
  TE_RETURN_IF_ERROR(optional_id(meta, "tokenizer.ggml.mask_token_id", config.mask));
  TE_RETURN_IF_ERROR(optional_bool(meta, "tokenizer.ggml.add_bos_token", config.add_cls));
  TE_RETURN_IF_ERROR(optional_bool(meta, "tokenizer.ggml.add_eos_token", config.add_sep));
  BertNormalizerOptions& norm = config.normalizer;
  TE_RETURN_IF_ERROR(optional_bool(meta, "tokenizer.bert.clean_text", norm.clean_text));
  TE_RETURN_IF_ERROR(optional_bool(meta, "tokenizer.bert.handle_chinese_chars", norm.handle_chinese_chars));
  TE_RETURN_IF_ERROR(optional_bool(meta, "tokenizer.bert.lowercase", norm.lowercase));
  norm.strip_accents = norm.lowercase;  // BERT's rule when the file does not say
  TE_RETURN_IF_ERROR(optional_bool(meta, "tokenizer.bert.strip_accents", norm.strip_accents));
  TE_RETURN_IF_ERROR(optional_string(meta, "tokenizer.wordpiece.continuing_subword_prefix",
                                     config.continuing_subword_prefix));
  if (meta.contains("tokenizer.wordpiece.max_input_chars_per_word")) {
    TE_ASSIGN_OR_RETURN(uint64_t chars, meta.get_uint("tokenizer.wordpiece.max_input_chars_per_word"));
    config.max_input_chars_per_word = static_cast<size_t>(chars);
  }
  return config;
}

Result<std::unique_ptr<Tokenizer>> load_tokenizer(const GgufMetadata& meta) {
  const GgufValue* model = meta.find("tokenizer.ggml.model");
  TE_CHECK_OR_RETURN(model != nullptr, Error::NotFound,
                     "the GGUF file has no tokenizer (no tokenizer.ggml.model key; %zu keys)",
                     meta.size());
  TE_ASSIGN_OR_RETURN(std::string_view name, meta.get_string("tokenizer.ggml.model"));
  if (name == "bert") {
    TE_ASSIGN_OR_RETURN(WordPieceTokenizerConfig config, wordpiece_config_from_gguf(meta));
    TE_ASSIGN_OR_RETURN(std::unique_ptr<WordPieceTokenizer> wordpiece,
                        WordPieceTokenizer::create(std::move(config)));
    return std::unique_ptr<Tokenizer>(std::move(wordpiece));
  }
  if (name != "gpt2") {
    const char* kind = name == "llama" ? " (SentencePiece)" : "";
    record_error_message("tokenizer.ggml.model '%.64s'%s is not supported yet; supported: gpt2 "
                         "(byte-level BPE), bert (WordPiece)",
                         std::string(name).c_str(), kind);
    return Error::NotSupported;
  }
  TE_ASSIGN_OR_RETURN(BpeTokenizerConfig config, bpe_config_from_gguf(meta));
  TE_ASSIGN_OR_RETURN(std::unique_ptr<BpeTokenizer> bpe, BpeTokenizer::create(std::move(config)));
  return std::unique_ptr<Tokenizer>(std::move(bpe));
}

Result<std::unique_ptr<Tokenizer>> load_tokenizer(const std::string& path) {
  TE_ASSIGN_OR_RETURN(GgufMetadata meta, GgufMetadata::load(path));
  Result<std::unique_ptr<Tokenizer>> tokenizer = load_tokenizer(meta);
  if (!tokenizer.ok()) prepend_error_context("%.200s", path.c_str());
  return tokenizer;
}

}  // namespace llm
}  // namespace torchedge
