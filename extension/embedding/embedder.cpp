#include "extension/embedding/embedder.h"

#include <sys/stat.h>

#include "extension/llm/tokenizer/gguf_metadata.h"
#include "extension/llm/tokenizer/gguf_tokenizer.h"
#include "extension/module/tensor_buffer.h"
#include "runtime/core/error_message.h"

namespace torchedge {
namespace embedding {
namespace {

constexpr const char* kMaxLengthKey = "tokenizer.truncation.max_length";

bool is_file(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

Result<std::unique_ptr<Embedder>> Embedder::load(const std::string& model_path,
                                                 const std::string& tokenizer_path,
                                                 EmbedderOptions options) {
  TE_CHECK_OR_RETURN(is_file(tokenizer_path), Error::NotFound, "tokenizer file '%.200s' not found",
                     tokenizer_path.c_str());
  TE_CHECK_OR_RETURN(is_file(model_path), Error::NotFound, "model file '%.200s' not found",
                     model_path.c_str());
  std::unique_ptr<Embedder> e(new Embedder());
  {
    TE_ASSIGN_OR_RETURN(llm::GgufMetadata meta, llm::GgufMetadata::load(tokenizer_path));
    Result<std::string_view> model = meta.get_string("tokenizer.ggml.model");
    TE_CHECK_OR_RETURN(model.ok() && model.get() == "bert", Error::InvalidProgram,
                       "%.200s: tokenizer.ggml.model is '%.32s'; a sentence embedding model needs "
                       "a BERT (WordPiece, 'bert') tokenizer",
                       tokenizer_path.c_str(),
                       model.ok() ? std::string(model.get()).c_str() : "(absent)");
    Result<std::unique_ptr<llm::Tokenizer>> tokenizer = llm::load_tokenizer(meta);
    if (!tokenizer.ok()) {
      prepend_error_context("%.200s", tokenizer_path.c_str());
      return tokenizer.error();
    }
    e->tokenizer_ = std::move(tokenizer.get());
    if (meta.contains(kMaxLengthKey)) {
      TE_ASSIGN_OR_RETURN(uint64_t length, meta.get_uint(kMaxLengthKey));
      e->max_length_ = static_cast<size_t>(length);
    }
  }
  const llm::Tokenizer& t = *e->tokenizer_;
  TE_CHECK_OR_RETURN(t.bos_id() != llm::kNoToken && t.eos_id() != llm::kNoToken,
                     Error::InvalidProgram,
                     "%.200s: the tokenizer has no [CLS] / [SEP] (bos / eos) ids; a sentence "
                     "embedding model needs a BERT (WordPiece) tokenizer",
                     tokenizer_path.c_str());
  TE_CHECK_OR_RETURN(e->max_length_ >= 2, Error::InvalidProgram,
                     "%.200s: truncation length %zu leaves no room for [CLS] and [SEP]",
                     tokenizer_path.c_str(), e->max_length_);
  if (options.max_length != 0) {
    TE_CHECK_OR_RETURN(options.max_length >= 2 && options.max_length <= e->max_length_,
                       Error::InvalidArgument, "max_length %zu is outside [2, %zu] (the tokenizer's)",
                       options.max_length, e->max_length_);
    e->max_length_ = options.max_length;
  }
  e->module_.reset(new Module(model_path, options.module));
  TE_RETURN_IF_ERROR(e->module_->load_method("forward"));
  TE_ASSIGN_OR_RETURN(MethodMeta meta, e->module_->method_meta("forward"));
  TE_CHECK_OR_RETURN(meta.num_inputs() == 2 && meta.num_outputs() == 1, Error::InvalidProgram,
                     "%.200s: forward takes %zu inputs and returns %zu outputs; a sentence "
                     "embedding program takes (input_ids, attention_mask) and returns one tensor",
                     model_path.c_str(), meta.num_inputs(), meta.num_outputs());
  return e;
}

Result<std::vector<llm::TokenId>> Embedder::tokenize(std::string_view text) const {
  TE_ASSIGN_OR_RETURN(std::vector<llm::TokenId> body, tokenizer_->encode(text));
  const size_t room = max_length_ - 2;
  if (body.size() > room) body.resize(room);
  std::vector<llm::TokenId> ids;
  ids.reserve(body.size() + 2);
  ids.push_back(tokenizer_->bos_id());
  ids.insert(ids.end(), body.begin(), body.end());
  ids.push_back(tokenizer_->eos_id());
  return ids;
}

Result<std::vector<float>> Embedder::embed_ids(const std::vector<llm::TokenId>& ids) {
  TE_CHECK_OR_RETURN(ids.size() >= 2 && ids.size() <= max_length_, Error::InvalidArgument,
                     "embed: %zu token ids; expected 2..%zu ([CLS] ... [SEP])", ids.size(),
                     max_length_);
  const auto n = static_cast<int32_t>(ids.size());
  TensorBuffer input_ids(ScalarType::Long, {1, n});
  TensorBuffer mask(ScalarType::Long, {1, n});
  auto* id_data = static_cast<int64_t*>(input_ids.data());
  auto* mask_data = static_cast<int64_t*>(mask.data());
  for (size_t i = 0; i < ids.size(); ++i) {
    id_data[i] = ids[i];
    mask_data[i] = 1;
  }
  TE_ASSIGN_OR_RETURN(std::vector<EValue> outputs,
                      module_->forward({EValue(&input_ids.tensor()), EValue(&mask.tensor())}));
  TE_CHECK_OR_RETURN(outputs.size() == 1 && outputs[0].is_tensor(), Error::InvalidProgram,
                     "embed: forward returned %zu values; expected one tensor", outputs.size());
  const Tensor& out = outputs[0].to_tensor();
  TE_CHECK_OR_RETURN(out.dtype() == ScalarType::Float && out.dim() == 2 && out.size(0) == 1,
                     Error::InvalidProgram,
                     "embed: forward returned a %s tensor of rank %d; expected float32 [1, D]",
                     to_string(out.dtype()), out.dim());
  const float* data = out.data_as<float>();
  dimension_ = static_cast<size_t>(out.size(1));
  return std::vector<float>(data, data + dimension_);
}

Result<std::vector<float>> Embedder::embed(std::string_view text) {
  TE_ASSIGN_OR_RETURN(std::vector<llm::TokenId> ids, tokenize(text));
  return embed_ids(ids);
}

Result<std::vector<std::vector<float>>> Embedder::embed_all(const std::vector<std::string>& texts) {
  std::vector<std::vector<float>> vectors;
  vectors.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    Result<std::vector<float>> v = embed(texts[i]);
    if (!v.ok()) {
      prepend_error_context("text %zu", i);
      return v.error();
    }
    vectors.push_back(std::move(v.get()));
  }
  return vectors;
}

float dot(const std::vector<float>& a, const std::vector<float>& b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return static_cast<float>(sum);
}

}  // namespace embedding
}  // namespace torchedge
