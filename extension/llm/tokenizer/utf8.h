// torchedge/extension/llm/tokenizer/utf8.h
//
// Strict UTF-8 reading and lossy repair, as tokenizers need them: a byte-level
// BPE token may hold any bytes (half of a character, say), so decoded output
// is repaired the way the reference decoders (Rust's String::from_utf8_lossy,
// Python's bytes.decode(errors="replace")) repair it: each maximal invalid
// subsequence ("maximal subpart", Unicode 15 chapter 3.9) becomes one U+FFFD.
// Overlong forms, surrogates (U+D800..U+DFFF) and values above U+10FFFF are
// invalid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace torchedge {
namespace llm {

/// Code point reported for bytes that are not valid UTF-8.
constexpr uint32_t kInvalidCodePoint = 0xFFFFFFFF;

/// One code point read from UTF-8.
struct Utf8Char {
  uint32_t code_point;  // kInvalidCodePoint when invalid
  uint32_t length;      // bytes it spans, 1..4; for an invalid sequence, its maximal subpart
};

/// Reads the code point that starts at data[0]. `size` must be >= 1 (the
/// bytes readable from data). Never reads past data[size - 1].
Utf8Char read_utf8(const char* data, size_t size);

/// Appends the UTF-8 encoding of code_point (U+FFFD if it is not a scalar value).
void append_utf8(uint32_t code_point, std::string& out);

/// Appends `bytes` to `out` as valid UTF-8, each maximal invalid subpart
/// replaced by U+FFFD (EF BF BD).
void append_utf8_lossy(std::string_view bytes, std::string& out);

/// How many trailing bytes of `bytes` (0..3) form a valid but unfinished
/// UTF-8 sequence: what a streaming decoder holds back until the next bytes
/// arrive. 0 when `bytes` ends on a character boundary or on invalid bytes.
size_t unfinished_utf8_tail(std::string_view bytes);

}  // namespace llm
}  // namespace torchedge
