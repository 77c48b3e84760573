// torchedge/extension/pybindings/llm_tokenizer_bindings.cpp
//
// The LLM library's tokenizers and sampler in torchedge._C
// (python/torchedge/llm/tokenizer.py wraps them):
//
//   LlmTokenizer.from_gguf(path)       the tokenizer of a GGUF file
//     .encode(text, add_bos, add_eos, parse_special) -> list[int]
//     .encode_batch(texts, ...)        the same for many texts, GIL released
//     .decode(ids, skip_special) -> str, .token_bytes(id) -> bytes, ...
//   LlmTokenDecoder(tokenizer)         streaming decode: push(id) -> str, finish()
//   LlmSampler(vocab_size, temperature, top_k, top_p, repetition_penalty, seed)
//     .sample(logits, history) -> int, .distribution(logits, history) -> list
//
// Logits are any contiguous float32 buffer (numpy array, array.array("f"),
// memoryview). Failures raise torchedge._C.TorchEdgeError(code, name, message)
// as the rest of the module does.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "extension/llm/sampler/sampler.h"
#include "extension/llm/tokenizer/bpe_tokenizer.h"
#include "extension/llm/tokenizer/gguf_tokenizer.h"
#include "extension/llm/tokenizer/token_decoder.h"
#include "extension/llm/tokenizer/tokenizer.h"
#include "runtime/core/error_message.h"

namespace py = pybind11;
using namespace torchedge;
using namespace torchedge::llm;

namespace {

PyObject* g_error_type = nullptr;  // torchedge._C.TorchEdgeError

py::str lenient_str(std::string_view text) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
}

[[noreturn]] void raise(Error err) {
  py::tuple args = py::make_tuple(static_cast<int>(err), error_name(err),
                                  lenient_str(last_error_message()));
  PyErr_SetObject(g_error_type, args.ptr());
  throw py::error_already_set();
}

void check(Error err) {
  if (err != Error::Ok) raise(err);
}

template <typename T>
T take(Result<T> result) {
  if (!result.ok()) raise(result.error());
  return std::move(result.get());
}

py::object optional_id(TokenId id) { return id == kNoToken ? py::object(py::none()) : py::int_(id); }

// Text as str (encoded to UTF-8) or as bytes (any bytes).
std::string text_bytes(const py::handle& text) {
  if (py::isinstance<py::bytes>(text)) return text.cast<std::string>();
  if (py::isinstance<py::str>(text)) return text.cast<std::string>();
  throw py::type_error("text must be str or bytes");
}

struct PyTokenizer {
  std::unique_ptr<Tokenizer> tokenizer;
  std::string pre_tokenizer;

  EncodeOptions options(bool add_bos, bool add_eos, bool parse_special) const {
    EncodeOptions o;
    o.add_bos = add_bos;
    o.add_eos = add_eos;
    o.parse_special = parse_special;
    return o;
  }

  std::vector<TokenId> encode(const py::handle& text, bool add_bos, bool add_eos,
                              bool parse_special) const {
    const std::string bytes = text_bytes(text);
    Result<std::vector<TokenId>> ids = [&] {
      py::gil_scoped_release release;
      return tokenizer->encode(bytes, options(add_bos, add_eos, parse_special));
    }();
    return take(std::move(ids));
  }

  std::vector<std::vector<TokenId>> encode_batch(const py::list& texts, bool add_bos, bool add_eos,
                                                 bool parse_special) const {
    std::vector<std::string> inputs;
    inputs.reserve(texts.size());
    for (py::handle t : texts) inputs.push_back(text_bytes(t));
    std::vector<std::vector<TokenId>> out(inputs.size());
    Error err = Error::Ok;
    {
      py::gil_scoped_release release;
      const EncodeOptions o = options(add_bos, add_eos, parse_special);
      for (size_t i = 0; i < inputs.size() && err == Error::Ok; ++i) {
        Result<std::vector<TokenId>> ids = tokenizer->encode(inputs[i], o);
        if (ids.ok()) {
          out[i] = std::move(ids.get());
        } else {
          err = ids.error();
        }
      }
    }
    check(err);
    return out;
  }

  py::str decode(const std::vector<TokenId>& ids, bool skip_special) const {
    std::string text = take(tokenizer->decode(ids, skip_special));
    return py::str(text);
  }
};

struct PyTokenDecoder {
  std::shared_ptr<PyTokenizer> owner;  // keeps the tokenizer alive
  TokenDecoder decoder;
  std::string piece;

  PyTokenDecoder(std::shared_ptr<PyTokenizer> t, bool skip_special)
      : owner(std::move(t)), decoder(*owner->tokenizer, skip_special) {}
};

Span<const float> float_buffer(const py::buffer_info& info) {
  if (info.itemsize != 4 || (info.format != "f" && info.format != "<f" && info.format != "=f")) {
    throw py::type_error("logits must be a float32 buffer, got format '" + info.format + "'");
  }
  if (info.ndim != 1 || (info.size > 1 && info.strides[0] != 4)) {
    throw py::value_error("logits must be a contiguous 1-D buffer");
  }
  return {static_cast<const float*>(info.ptr), static_cast<size_t>(info.size)};
}

}  // namespace

void bind_llm_tokenizer(py::module_& m) {
  g_error_type = m.attr("TorchEdgeError").ptr();

  py::class_<PyTokenizer, std::shared_ptr<PyTokenizer>>(m, "LlmTokenizer")
      .def_static(
          "from_gguf",
          [](const std::string& path) {
            Result<GgufMetadata> meta = [&] {
              py::gil_scoped_release release;
              return GgufMetadata::load(path);
            }();
            if (!meta.ok()) raise(meta.error());
            auto t = std::make_shared<PyTokenizer>();
            Result<std::unique_ptr<Tokenizer>> tokenizer = load_tokenizer(meta.get());
            if (!tokenizer.ok()) {
              prepend_error_context("%.200s", path.c_str());
              raise(tokenizer.error());
            }
            t->tokenizer = std::move(tokenizer.get());
            Result<std::string_view> pre = meta->get_string("tokenizer.ggml.pre");
            Result<std::string_view> model = meta->get_string("tokenizer.ggml.model");
            const bool bert = model.ok() && model.get() == "bert";
            t->pre_tokenizer = pre.ok() ? std::string(pre.get()) : bert ? "bert" : "gpt2";
            return t;
          },
          py::arg("path"))
      .def("encode", &PyTokenizer::encode, py::arg("text"), py::arg("add_bos") = false,
           py::arg("add_eos") = false, py::arg("parse_special") = true)
      .def("encode_batch", &PyTokenizer::encode_batch, py::arg("texts"),
           py::arg("add_bos") = false, py::arg("add_eos") = false,
           py::arg("parse_special") = true)
      .def("decode", &PyTokenizer::decode, py::arg("ids"), py::arg("skip_special") = false)
      .def("token_bytes",
           [](const PyTokenizer& t, TokenId id) {
             std::string_view b = take(t.tokenizer->token_bytes(id));
             return py::bytes(b.data(), b.size());
           })
      .def("token_text",
           [](const PyTokenizer& t, TokenId id) { return lenient_str(take(t.tokenizer->token_text(id))); })
      .def("token_to_id",
           [](const PyTokenizer& t, const std::string& text) {
             return optional_id(t.tokenizer->token_to_id(text));
           })
      .def("is_special", [](const PyTokenizer& t, TokenId id) { return t.tokenizer->is_special(id); })
      .def("is_end_of_turn",
           [](const PyTokenizer& t, TokenId id) { return t.tokenizer->is_end_of_turn(id); })
      .def_property_readonly("vocab_size",
                             [](const PyTokenizer& t) { return t.tokenizer->vocab_size(); })
      .def_property_readonly("bos_id", [](const PyTokenizer& t) { return optional_id(t.tokenizer->bos_id()); })
      .def_property_readonly("eos_id", [](const PyTokenizer& t) { return optional_id(t.tokenizer->eos_id()); })
      .def_property_readonly("pad_id", [](const PyTokenizer& t) { return optional_id(t.tokenizer->pad_id()); })
      .def_property_readonly("unk_id", [](const PyTokenizer& t) { return optional_id(t.tokenizer->unk_id()); })
      .def_property_readonly("end_of_turn_ids",
                             [](const PyTokenizer& t) { return t.tokenizer->special_ids().end_of_turn; })
      .def_property_readonly("adds_bos_by_default",
                             [](const PyTokenizer& t) { return t.tokenizer->adds_bos_by_default(); })
      .def_property_readonly("adds_eos_by_default",
                             [](const PyTokenizer& t) { return t.tokenizer->adds_eos_by_default(); })
      .def_property_readonly("chat_template",
                             [](const PyTokenizer& t) { return lenient_str(t.tokenizer->chat_template()); })
      .def_property_readonly("pre_tokenizer", [](const PyTokenizer& t) { return t.pre_tokenizer; });

  py::class_<PyTokenDecoder>(m, "LlmTokenDecoder")
      .def(py::init<std::shared_ptr<PyTokenizer>, bool>(), py::arg("tokenizer"),
           py::arg("skip_special") = false)
      .def("push",
           [](PyTokenDecoder& d, TokenId id) {
             check(d.decoder.push(id, d.piece));
             return py::str(d.piece);
           })
      .def("finish",
           [](PyTokenDecoder& d) {
             d.decoder.finish(d.piece);
             return py::str(d.piece);
           })
      .def("reset", [](PyTokenDecoder& d) { d.decoder.reset(); })
      .def_property_readonly("pending_bytes", [](const PyTokenDecoder& d) { return d.decoder.pending_bytes(); });

  py::class_<Sampler>(m, "LlmSampler")
      .def(py::init([](size_t vocab_size, float temperature, int32_t top_k, float top_p,
                       float repetition_penalty, uint64_t seed) {
             SamplerConfig c;
             c.temperature = temperature;
             c.top_k = top_k;
             c.top_p = top_p;
             c.repetition_penalty = repetition_penalty;
             c.seed = seed;
             return take(Sampler::create(vocab_size, c));
           }),
           py::arg("vocab_size"), py::arg("temperature") = 0.0f, py::arg("top_k") = 0,
           py::arg("top_p") = 1.0f, py::arg("repetition_penalty") = 1.0f, py::arg("seed") = 0)
      .def("sample",
           [](Sampler& s, py::buffer logits, const std::vector<int64_t>& history) {
             py::buffer_info info = logits.request();
             return take(s.sample(float_buffer(info), Span<const int64_t>(history.data(), history.size())));
           },
           py::arg("logits"), py::arg("history") = std::vector<int64_t>())
      .def("sample_many",
           [](Sampler& s, py::buffer logits, const std::vector<int64_t>& history, size_t count) {
             // Many draws from one distribution, for statistical tests.
             py::buffer_info info = logits.request();
             const Span<const float> l = float_buffer(info);
             std::vector<TokenId> out(count);
             for (size_t i = 0; i < count; ++i) {
               out[i] = take(s.sample(l, Span<const int64_t>(history.data(), history.size())));
             }
             return out;
           },
           py::arg("logits"), py::arg("history"), py::arg("count"))
      .def("distribution",
           [](Sampler& s, py::buffer logits, const std::vector<int64_t>& history) {
             py::buffer_info info = logits.request();
             std::vector<float> probs(s.vocab_size());
             check(s.distribution(float_buffer(info), Span<const int64_t>(history.data(), history.size()),
                                  Span<float>(probs.data(), probs.size())));
             return probs;
           },
           py::arg("logits"), py::arg("history") = std::vector<int64_t>())
      .def("reseed", &Sampler::reseed, py::arg("seed"))
      .def_property_readonly("vocab_size", &Sampler::vocab_size);
}
