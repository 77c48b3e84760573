// libFuzzer harness: tokenizer files (the tensor-free GGUF the LLM runner and
// the embedding demo read): GgufMetadata::parse -> load_tokenizer -> encode
// a fixed multilingual text -> decode what came out and every id below 512.
#include <cstdint>
#include <string_view>
#include <vector>

#include "extension/llm/tokenizer/gguf_metadata.h"
#include "extension/llm/tokenizer/gguf_tokenizer.h"

using namespace torchedge;
using namespace torchedge::llm;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Result<GgufMetadata> metadata = GgufMetadata::parse(data, size);
  if (!metadata.ok()) return 0;
  Result<std::unique_ptr<Tokenizer>> tokenizer = load_tokenizer(metadata.get());
  if (!tokenizer.ok()) return 0;
  constexpr std::string_view kText =
      "Hello, world! <|im_start|>user\nCafé naïve 東京 \xF0\x9F\x98\x80 12345 \xC3\x28 don't";
  Result<std::vector<TokenId>> ids = tokenizer.get()->encode(kText, true);
  if (ids.ok()) tokenizer.get()->decode(ids.get());
  std::vector<TokenId> every;
  for (TokenId id = 0; id < 512; ++id) every.push_back(id);
  tokenizer.get()->decode(every, /*skip_special=*/true);
  return 0;
}
