// torchedge/extension/pybindings/llm_runner_bindings.cpp
//
// The LLM generation loop (extension/llm/runner) in torchedge._C; python/
// torchedge/llm/generate.py wraps it:
//
//   LlmRunner(model_path, tokenizer_path, kernels="optimized")
//     .generate(prompt, max_new_tokens, temperature, top_k, top_p,
//               repetition_penalty, seed, stop_at_end_of_turn, on_text) -> dict
//     .generate_tokens(ids, ...) -> dict      the same from token ids
//     .chat_prompt(message, system) -> str    one user turn in the chat template
//     .reset(), .position, .max_context, .max_seq_len, .vocab_size
//
// Generation runs with the GIL released; `on_text(piece)` (optional) is
// called with it held, on the calling thread, once per whole-character
// piece. The dict holds the GenerationStats. Failures raise
// torchedge._C.TorchEdgeError(code, name, message); an exception raised by
// on_text stops generation and propagates.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "extension/llm/runner/generation.h"
#include "runtime/core/error_message.h"

namespace py = pybind11;
using namespace torchedge;
using namespace torchedge::llm;

namespace {

[[noreturn]] void raise(Error err) {
  py::object type = py::module_::import("torchedge._C").attr("TorchEdgeError");
  const char* message = last_error_message();
  py::str text = py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(strlen(message)), "replace"));
  PyErr_SetObject(type.ptr(), py::make_tuple(static_cast<int>(err), error_name(err), text).ptr());
  throw py::error_already_set();
}

void check(Error err) {
  if (err != Error::Ok) raise(err);
}

py::dict stats_dict(const GenerationStats& s) {
  py::dict d;
  d["prompt_tokens"] = s.prompt_tokens;
  d["new_tokens"] = s.new_tokens;
  d["prefill_s"] = s.prefill_s;
  d["decode_s"] = s.decode_s;
  d["first_token_s"] = s.first_token_s;
  d["prefill_tokens_per_s"] = s.prefill_tokens_per_s();
  d["decode_tokens_per_s"] = s.decode_tokens_per_s();
  d["position"] = s.position;
  d["stop_reason"] = stop_reason_name(s.stop_reason);
  return d;
}

GenerationConfig config_of(int64_t max_new_tokens, float temperature, int32_t top_k, float top_p,
                           float repetition_penalty, uint64_t seed, bool stop_at_end_of_turn) {
  GenerationConfig c;
  c.max_new_tokens = max_new_tokens;
  c.sampling.temperature = temperature;
  c.sampling.top_k = top_k;
  c.sampling.top_p = top_p;
  c.sampling.repetition_penalty = repetition_penalty;
  c.sampling.seed = seed;
  c.stop_at_end_of_turn = stop_at_end_of_turn;
  return c;
}

class PyLlmRunner {
 public:
  PyLlmRunner(const std::string& model, const std::string& tokenizer, const std::string& kernels) {
    ModuleOptions options;
    if (kernels == "portable") {
      options.kernels = KernelLibrary::Portable;
    } else if (kernels != "optimized") {
      throw py::value_error("kernels must be 'optimized' or 'portable', got '" + kernels + "'");
    }
    runner_ = std::make_unique<LlmRunner>(model, tokenizer, options);
    check(runner_->load());
  }

  template <typename Prompt>
  py::dict run(const Prompt& prompt, const GenerationConfig& config, py::object on_text) {
    // The callback re-takes the GIL; a Python exception inside it is kept
    // and stops the loop (the next pieces are dropped).
    std::unique_ptr<py::error_already_set> failure;
    TextCallback callback;
    if (!on_text.is_none()) {
      callback = [&](const std::string& piece) {
        py::gil_scoped_acquire gil;
        if (failure) return;
        try {
          on_text(py::reinterpret_steal<py::str>(PyUnicode_DecodeUTF8(
              piece.data(), static_cast<Py_ssize_t>(piece.size()), "replace")));
        } catch (py::error_already_set& error) {
          failure = std::make_unique<py::error_already_set>(std::move(error));
        }
      };
    }
    Result<GenerationStats> stats = Error::Internal;
    {
      py::gil_scoped_release release;
      stats = generate(prompt, config, callback);
    }
    if (failure) throw std::move(*failure);
    if (!stats.ok()) raise(stats.error());
    return stats_dict(stats.get());
  }

  LlmRunner& runner() { return *runner_; }

 private:
  Result<GenerationStats> generate(const std::string& prompt, const GenerationConfig& config,
                                   const TextCallback& callback) {
    return runner_->generate(prompt, config, callback);
  }
  Result<GenerationStats> generate(const std::vector<int64_t>& prompt,
                                   const GenerationConfig& config, const TextCallback& callback) {
    return runner_->generate_tokens(prompt, config, callback);
  }

  std::unique_ptr<LlmRunner> runner_;
};

// The Python signature of generate / generate_tokens after their prompt.
template <typename Prompt>
py::dict generate_with(PyLlmRunner& self, const Prompt& prompt, int64_t max_new_tokens,
                       float temperature, int32_t top_k, float top_p, float repetition_penalty,
                       uint64_t seed, bool stop_at_end_of_turn, py::object on_text) {
  return self.run(prompt, config_of(max_new_tokens, temperature, top_k, top_p, repetition_penalty,
                                    seed, stop_at_end_of_turn),
                  on_text);
}

// Binds generate_with<Prompt> as `name`, its prompt argument called `prompt_name`.
template <typename Prompt>
void def_generate(py::class_<PyLlmRunner>& cls, const char* name, const char* prompt_name) {
  cls.def(name, &generate_with<Prompt>, py::arg(prompt_name), py::arg("max_new_tokens") = 256,
          py::arg("temperature") = 0.0f, py::arg("top_k") = 0, py::arg("top_p") = 1.0f,
          py::arg("repetition_penalty") = 1.0f, py::arg("seed") = 0,
          py::arg("stop_at_end_of_turn") = true, py::arg("on_text") = py::none());
}

}  // namespace

void bind_llm_runner(py::module_& m) {
  py::class_<PyLlmRunner> cls(m, "LlmRunner");
  def_generate<std::string>(cls, "generate", "prompt");
  def_generate<std::vector<int64_t>>(cls, "generate_tokens", "ids");
  cls.def(py::init<const std::string&, const std::string&, const std::string&>(),
          py::arg("model_path"), py::arg("tokenizer_path"), py::arg("kernels") = "optimized")
      .def("chat_prompt",
           [](PyLlmRunner& self, const std::string& message, const std::string& system) {
             Result<std::string> text = self.runner().chat_prompt(message, system);
             if (!text.ok()) raise(text.error());
             return text.get();
           },
           py::arg("message"), py::arg("system") = "")
      .def("reset", [](PyLlmRunner& self) { self.runner().reset(); })
      .def_property_readonly("position", [](PyLlmRunner& self) { return self.runner().position(); })
      .def_property_readonly("max_context",
                             [](PyLlmRunner& self) { return self.runner().metadata().max_context; })
      .def_property_readonly("max_seq_len",
                             [](PyLlmRunner& self) { return self.runner().metadata().max_seq_len; })
      .def_property_readonly("vocab_size",
                             [](PyLlmRunner& self) { return self.runner().metadata().vocab_size; });
}
