// torchedge/extension/pybindings/embedding_bindings.cpp
//
// The sentence-embedding library (extension/embedding) in torchedge._C
// (python/torchedge/embedding/embedder.py wraps it):
//
//   Embedder(model_path, tokenizer_path, max_length=0, portable=False)
//     .tokenize(text) -> list[int]         [CLS] ... [SEP], truncated
//     .embed_all(texts) -> (bytes, dimension)   float32 rows, GIL released
//     .max_length, .dimension
//
// Failures raise torchedge._C.TorchEdgeError(code, name, message).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "extension/embedding/embedder.h"
#include "runtime/core/error_message.h"

namespace py = pybind11;
using namespace torchedge;

namespace {

PyObject* g_embedding_error_type = nullptr;  // torchedge._C.TorchEdgeError

[[noreturn]] void raise_error(Error err) {
  const char* message = last_error_message();
  py::str text = py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(strlen(message)), "replace"));
  py::tuple args = py::make_tuple(static_cast<int>(err), error_name(err), text);
  PyErr_SetObject(g_embedding_error_type, args.ptr());
  throw py::error_already_set();
}

std::string text_of(const py::handle& text) {
  if (py::isinstance<py::bytes>(text) || py::isinstance<py::str>(text)) {
    return text.cast<std::string>();
  }
  throw py::type_error("a sentence must be str or bytes");
}

struct PyEmbedder {
  std::unique_ptr<embedding::Embedder> embedder;
};

}  // namespace

void bind_embedding(py::module_& m) {
  g_embedding_error_type = m.attr("TorchEdgeError").ptr();
  py::class_<PyEmbedder>(m, "Embedder")
      .def(py::init([](const std::string& model, const std::string& tokenizer, size_t max_length,
                       bool portable) {
             embedding::EmbedderOptions options;
             options.max_length = max_length;
             options.module.kernels = portable ? KernelLibrary::Portable : KernelLibrary::Optimized;
             Result<std::unique_ptr<embedding::Embedder>> e = [&] {
               py::gil_scoped_release release;
               return embedding::Embedder::load(model, tokenizer, options);
             }();
             if (!e.ok()) raise_error(e.error());
             auto self = std::make_unique<PyEmbedder>();
             self->embedder = std::move(e.get());
             return self;
           }),
           py::arg("model_path"), py::arg("tokenizer_path"), py::arg("max_length") = 0,
           py::arg("portable") = false)
      .def("tokenize",
           [](const PyEmbedder& self, const py::handle& text) {
             Result<std::vector<llm::TokenId>> ids = self.embedder->tokenize(text_of(text));
             if (!ids.ok()) raise_error(ids.error());
             return ids.get();
           },
           py::arg("text"))
      .def("embed_all",
           [](PyEmbedder& self, const py::list& texts) {
             std::vector<std::string> inputs;
             inputs.reserve(texts.size());
             for (py::handle t : texts) inputs.push_back(text_of(t));
             Result<std::vector<std::vector<float>>> vectors = [&] {
               py::gil_scoped_release release;
               return self.embedder->embed_all(inputs);
             }();
             if (!vectors.ok()) raise_error(vectors.error());
             std::string bytes;
             for (const std::vector<float>& v : vectors.get()) {
               bytes.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
             }
             return py::make_tuple(py::bytes(bytes), self.embedder->dimension());
           },
           py::arg("texts"))
      .def_property_readonly("max_length", [](const PyEmbedder& self) { return self.embedder->max_length(); })
      .def_property_readonly("dimension", [](const PyEmbedder& self) { return self.embedder->dimension(); });
}
