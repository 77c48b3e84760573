// torchedge/extension/llm/tokenizer/byte_level.h
//
// The byte-level alphabet of GPT-2 style vocabularies: every byte is spelled
// as one printable code point, so a vocabulary of byte strings can be stored
// as text. Bytes 0x21..0x7E, 0xA1..0xAC and 0xAE..0xFF spell themselves; the
// other 68 bytes (space, controls, 0x7F..0xA0, 0xAD) are spelled U+0100 and up
// in byte order, so the space 0x20 is "Ġ" (U+0120) and "\n" is "Ċ" (U+010A).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace torchedge {
namespace llm {

/// The code point that spells `byte`.
uint32_t byte_to_code_point(uint8_t byte);

/// The byte `code_point` spells, or -1 if it is not in the alphabet.
int code_point_to_byte(uint32_t code_point);

/// The UTF-8 spelling of `bytes` in the alphabet ("Ġthe" for " the").
std::string byte_level_spelling(std::string_view bytes);

/// The bytes a vocabulary entry stands for: when every character of `text` is
/// in the alphabet, the bytes they spell; otherwise `text` itself (entries
/// written outside the alphabet, such as some added tokens, stand for their
/// own UTF-8, as the reference tokenizers treat them). `spelled` (optional)
/// is set to whether the first case applied.
std::string byte_level_bytes(std::string_view text, bool* spelled = nullptr);

}  // namespace llm
}  // namespace torchedge
