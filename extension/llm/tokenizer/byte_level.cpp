#include "extension/llm/tokenizer/byte_level.h"

#include "extension/llm/tokenizer/utf8.h"

namespace torchedge {
namespace llm {
namespace {

constexpr bool spells_itself(uint32_t b) {
  return (b >= 0x21 && b <= 0x7E) || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
}

struct Alphabet {
  uint32_t code_point[256];
  int16_t byte_of[512];  // code points 0..511 cover the whole alphabet
};

constexpr Alphabet make_alphabet() {
  Alphabet a{};
  for (int i = 0; i < 512; ++i) a.byte_of[i] = -1;
  uint32_t next = 256;
  for (uint32_t b = 0; b < 256; ++b) {
    a.code_point[b] = spells_itself(b) ? b : next++;
    a.byte_of[a.code_point[b]] = static_cast<int16_t>(b);
  }
  return a;
}

constexpr Alphabet kAlphabet = make_alphabet();
static_assert(kAlphabet.code_point[0x20] == 0x120, "space is spelled U+0120");

}  // namespace

uint32_t byte_to_code_point(uint8_t byte) { return kAlphabet.code_point[byte]; }

int code_point_to_byte(uint32_t code_point) {
  return code_point < 512 ? kAlphabet.byte_of[code_point] : -1;
}

std::string byte_level_spelling(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char c : bytes) append_utf8(byte_to_code_point(static_cast<uint8_t>(c)), out);
  return out;
}

std::string byte_level_bytes(std::string_view text, bool* spelled) {
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    const Utf8Char c = read_utf8(text.data() + pos, text.size() - pos);
    const int byte = c.code_point == kInvalidCodePoint ? -1 : code_point_to_byte(c.code_point);
    if (byte < 0) {
      if (spelled != nullptr) *spelled = false;
      return std::string(text);
    }
    out.push_back(static_cast<char>(byte));
    pos += c.length;
  }
  if (spelled != nullptr) *spelled = true;
  return out;
}

}  // namespace llm
}  // namespace torchedge
