// torchedge/extension/llm/tokenizer/gguf_tokenizer.h
//
// The tokenizer a GGUF model file carries, chosen by tokenizer.ggml.model:
//
//   "gpt2"   byte-level BPE (BpeTokenizer) from tokenizer.ggml.tokens,
//            .token_type, .merges, .pre, .bos/eos/padding/unknown/eot/eom
//            _token_id, .add_bos_token and tokenizer.chat_template
//   "bert"   WordPiece (WordPieceTokenizer) from tokenizer.ggml.tokens,
//            .token_type, .unknown/padding/mask_token_id, .bos_token_id
//            ([CLS]) and .seperator_token_id ([SEP]; else .eos_token_id), as
//            llama.cpp writes BERT vocabularies, .add_bos_token / .add_eos_token
//            ([CLS] / [SEP] wanted, default true), the normalizer's flags
//            tokenizer.bert.clean_text, .handle_chinese_chars, .lowercase,
//            .strip_accents (default: as lowercase; all default true) and
//            tokenizer.wordpiece.continuing_subword_prefix ("##"),
//            .max_input_chars_per_word (100)
//   "llama"  SentencePiece, others: NotSupported, naming it
//
// A file without tokenizer.ggml.model (weights only) is NotFound with a
// message saying the file has no tokenizer; missing or ill-typed required
// keys are NotFound / InvalidType naming the key. tokenizer.ggml.pre absent
// means "gpt2" (files written before the key existed).
#pragma once

#include <memory>
#include <string>

#include "extension/llm/tokenizer/bpe_tokenizer.h"
#include "extension/llm/tokenizer/gguf_metadata.h"
#include "extension/llm/tokenizer/tokenizer.h"
#include "extension/llm/tokenizer/wordpiece_tokenizer.h"

namespace torchedge {
namespace llm {

/// The tokenizer described by `metadata` (which need not outlive it).
Result<std::unique_ptr<Tokenizer>> load_tokenizer(const GgufMetadata& metadata);

/// Reads the metadata of the GGUF file at `path` (not its tensors) and builds
/// its tokenizer.
Result<std::unique_ptr<Tokenizer>> load_tokenizer(const std::string& path);

/// The BPE configuration of a "gpt2" tokenizer in `metadata`.
Result<BpeTokenizerConfig> bpe_config_from_gguf(const GgufMetadata& metadata);

/// The WordPiece configuration of a "bert" tokenizer in `metadata`.
Result<WordPieceTokenizerConfig> wordpiece_config_from_gguf(const GgufMetadata& metadata);

}  // namespace llm
}  // namespace torchedge
