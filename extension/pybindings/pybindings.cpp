// torchedge._C: Python bindings over the C++ runtime (extension/module).
//
// Deliberately free of libtorch and numpy: tensors cross the boundary as
// (dtype wire value, sizes, buffer[, dim order]) tuples. Inputs are read in place from
// any object exposing the buffer protocol (the Python side passes a
// contiguous tensor's memory); outputs are copied into bytes objects, since
// the runtime's output memory is reused by the next run. python/torchedge/
// runtime.py turns these into torch.Tensors.
//
// Every runtime failure raises torchedge._C.TorchEdgeError with args
// (code: int, code_name: str, message: str).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "extension/module/data_file.h"
#include "extension/module/module.h"
#include "runtime/core/error_message.h"
#include "runtime/kernel/kernel_registry.h"
#include "backends/test_backend/test_backend.h"
#include "kernels/optimized/cpu/cpu_features.h"
#include "kernels/portable/portable_kernels.h"
#include "kernels/prim/prim_kernels.h"
#include "kernels/quantized/register_quantized_kernels.h"

namespace py = pybind11;
using namespace torchedge;

void bind_xnnpack(py::module_& m);  // extension/pybindings/xnnpack_bindings.cpp
void bind_vulkan(py::module_& m);   // extension/pybindings/vulkan_bindings.cpp
void bind_llm_tokenizer(py::module_& m);  // extension/pybindings/llm_tokenizer_bindings.cpp
void bind_llm_runner(py::module_& m);  // extension/pybindings/llm_runner_bindings.cpp
void bind_embedding(py::module_& m);  // extension/pybindings/embedding_bindings.cpp
void bind_devtools(py::module_& m);  // extension/pybindings/devtools_bindings.cpp
EventTracer* event_tracer_from(py::handle object);  // devtools_bindings.cpp
void raise_if_error(Error err);  // TorchEdgeRuntimeError for the other binding files

namespace {

PyObject* g_error_type = nullptr;

// Strings from a file (names, messages quoting it) may not be valid UTF-8.
py::str lenient_str(const char* data, size_t size) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(data, static_cast<Py_ssize_t>(size), "replace"));
}

[[noreturn]] void raise(Error err) {
  const char* message = last_error_message();
  py::str text = lenient_str(message, strlen(message));
  py::tuple args = py::make_tuple(static_cast<int>(err), error_name(err), text);
  PyErr_SetObject(g_error_type, args.ptr());
  throw py::error_already_set();
}

void check(Error err) {
  if (err != Error::Ok) raise(err);
}

// "portable" or "optimized" (ModuleOptions::kernels); anything else is a
// ValueError naming the choices.
KernelLibrary kernel_library(const std::string& name) {
  if (name == "portable") return KernelLibrary::Portable;
  if (name == "optimized") return KernelLibrary::Optimized;
  throw py::value_error("kernels must be 'portable' or 'optimized', got '" + name + "'");
}

py::dict tensor_info_dict(const TensorInfo& info) {
  py::dict d;
  d["dtype"] = static_cast<int>(info.dtype);
  d["sizes"] = std::vector<int32_t>(info.sizes.begin(), info.sizes.end());
  d["dim_order"] = std::vector<int>(info.dim_order.begin(), info.dim_order.end());
  d["dynamic"] = info.is_dynamic;
  d["nbytes"] = info.nbytes;
  return d;
}

class PyProgram {
 public:
  // `tracer`: None or the torchedge._C.ETDumpTracer the module's options
  // point at, kept alive as long as the program.
  PyProgram(std::unique_ptr<Module> module, py::object tracer = py::none())
      : tracer_(std::move(tracer)), module_(std::move(module)) {
    check(module_->load());
  }

  py::list method_names() {
    Result<std::vector<std::string>> names = module_->method_names();
    if (!names.ok()) raise(names.error());
    py::list out;
    for (const std::string& n : names.get()) out.append(lenient_str(n.data(), n.size()));
    return out;
  }

  py::dict method_meta(const std::string& name) {
    Result<MethodMeta> meta = module_->method_meta(name);
    if (!meta.ok()) raise(meta.error());
    py::dict d;
    py::list inputs, outputs, planned;
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      Result<TensorInfo> info = meta->input_tensor_info(i);
      inputs.append(info.ok() ? py::object(tensor_info_dict(info.get())) : py::none());
    }
    for (size_t i = 0; i < meta->num_outputs(); ++i) {
      Result<TensorInfo> info = meta->output_tensor_info(i);
      outputs.append(info.ok() ? py::object(tensor_info_dict(info.get())) : py::none());
    }
    for (size_t i = 0; i < meta->num_planned_buffers(); ++i) {
      planned.append(meta->planned_buffer_size(i).get());
    }
    d["name"] = name;
    d["inputs"] = inputs;
    d["outputs"] = outputs;
    d["planned_buffer_sizes"] = planned;
    d["num_instructions"] = meta->num_instructions();
    d["method_allocator_bytes"] = meta->method_allocator_bytes();
    return d;
  }

  void load_method(const std::string& name) { check(module_->load_method(name)); }

  py::list run(const std::string& name, const py::list& inputs) {
    Result<Method*> method = module_->method(name);
    if (!method.ok()) raise(method.error());
    Method* m = method.get();
    // Stack-like storage for the input views; kept alive through execute().
    std::vector<std::vector<int32_t>> sizes(inputs.size());
    std::vector<std::vector<int32_t>> strides(inputs.size());
    std::vector<std::vector<uint8_t>> orders(inputs.size());
    std::vector<Tensor> tensors(inputs.size());
    std::vector<py::buffer_info> buffers;
    buffers.reserve(inputs.size());
    std::vector<EValue> values;
    for (size_t i = 0; i < inputs.size(); ++i) {
      py::handle item = inputs[i];
      if (py::isinstance<py::tuple>(item)) {
        py::tuple t = item.cast<py::tuple>();
        const int dtype = t[0].cast<int>();
        sizes[i] = t[1].cast<std::vector<int32_t>>();
        if (!is_valid_scalar_type(dtype) || sizes[i].size() > kTensorDimensionLimit) {
          record_error_message("input %zu: unsupported dtype %d or rank %zu", i, dtype,
                               sizes[i].size());
          raise(Error::InvalidArgument);
        }
        buffers.push_back(t[2].cast<py::buffer>().request());
        strides[i].resize(sizes[i].size());
        orders[i].resize(sizes[i].size());
        for (size_t d = 0; d < orders[i].size(); ++d) orders[i][d] = static_cast<uint8_t>(d);
        if (t.size() > 3) {  // the buffer is laid out in this dim order (a permutation)
          const std::vector<int> order = t[3].cast<std::vector<int>>();
          std::vector<bool> seen(orders[i].size(), false);
          bool valid = order.size() == orders[i].size();
          for (size_t d = 0; valid && d < order.size(); ++d) {
            valid = order[d] >= 0 && static_cast<size_t>(order[d]) < seen.size() && !seen[order[d]];
            if (valid) seen[order[d]] = true;
            if (valid) orders[i][d] = static_cast<uint8_t>(order[d]);
          }
          if (!valid) {
            record_error_message("input %zu: dim order is not a permutation of its %zu dims", i,
                                 orders[i].size());
            raise(Error::InvalidArgument);
          }
        }
        tensors[i] = Tensor(static_cast<ScalarType>(dtype), static_cast<int>(sizes[i].size()),
                            sizes[i].data(), orders[i].data(), strides[i].data(),
                            buffers.back().ptr);
        const size_t have = static_cast<size_t>(buffers.back().size * buffers.back().itemsize);
        if (have != tensors[i].nbytes()) {
          record_error_message("input %zu: buffer holds %zu bytes, shape needs %zu", i, have,
                               tensors[i].nbytes());
          raise(Error::InvalidArgument);
        }
        values.emplace_back(&tensors[i]);
      } else if (py::isinstance<py::bool_>(item)) {
        values.emplace_back(item.cast<bool>());
      } else if (py::isinstance<py::int_>(item)) {
        values.emplace_back(item.cast<int64_t>());
      } else if (py::isinstance<py::float_>(item)) {
        values.emplace_back(item.cast<double>());
      } else {
        record_error_message("input %zu: unsupported Python type", i);
        raise(Error::InvalidType);
      }
    }
    Error err = Error::Ok;
    {
      py::gil_scoped_release release;
      err = m->set_inputs({values.data(), values.size()});
      if (err == Error::Ok) err = m->execute();
    }
    check(err);
    py::list outputs;
    for (size_t i = 0; i < m->num_outputs(); ++i) {
      const EValue* v = m->output(i).get();
      if (v->is_tensor()) {
        const Tensor& t = v->to_tensor();
        std::vector<int32_t> shape(t.sizes().begin(), t.sizes().end());
        std::vector<int> order(t.dim_order().begin(), t.dim_order().end());
        outputs.append(py::make_tuple(static_cast<int>(t.dtype()), shape, order,
                                      py::bytes(static_cast<const char*>(t.data()), t.nbytes())));
      } else if (v->is_int()) {
        outputs.append(py::int_(v->to_int()));
      } else if (v->is_double()) {
        outputs.append(py::float_(v->to_double()));
      } else if (v->is_bool()) {
        outputs.append(py::bool_(v->to_bool()));
      } else {
        outputs.append(py::none());
      }
    }
    return outputs;
  }

  size_t planned_bytes(const std::string& name) { return module_->planned_bytes(name); }

 private:
  py::object tracer_;  // declared first: outlives the module's methods
  std::unique_ptr<Module> module_;
};

}  // namespace

void raise_if_error(Error err) { check(err); }

PYBIND11_MODULE(_C, m) {
  m.doc() = "torchedge C++ runtime bindings";
  g_error_type = PyErr_NewException("torchedge._C.TorchEdgeError", PyExc_RuntimeError, nullptr);
  m.attr("TorchEdgeError") = py::handle(g_error_type);

  // A .ptd opened once; every Program given the same DataFile reads its bytes.
  py::class_<DataFile, std::shared_ptr<DataFile>>(m, "DataFile")
      .def_static(
          "open",
          [](const std::string& path, bool mmap) {
            Result<std::shared_ptr<DataFile>> file =
                DataFile::open(path, mmap ? LoadMode::Mmap : LoadMode::File);
            if (!file.ok()) raise(file.error());
            return file.get();
          },
          py::arg("path"), py::arg("mmap") = true)
      .def("keys",
           [](const DataFile& file) {
             py::list keys;
             for (size_t i = 0; i < file.num_keys(); ++i) {
               const char* key = file.key(i).get();
               keys.append(lenient_str(key, strlen(key)));
             }
             return keys;
           })
      .def_property_readonly("data_address",
                             [](const DataFile& file) {
                               return reinterpret_cast<uintptr_t>(file.segment_data().data());
                             })
      .def_property_readonly("data_size",
                             [](const DataFile& file) { return file.segment_data().size(); });

  py::class_<PyProgram>(m, "Program")
      .def_static(
          "from_bytes",
          [](py::bytes data, bool full_verification, const std::string& kernels,
             py::object tracer, std::vector<std::shared_ptr<DataFile>> data_files) {
            std::string_view view = data;
            ModuleOptions options;
            options.verification = full_verification ? Verification::Full : Verification::Minimal;
            options.kernels = kernel_library(kernels);
            options.event_tracer = event_tracer_from(tracer);
            auto module = std::make_unique<Module>(view.data(), view.size(), options);
            check(module->add_data_maps({data_files.begin(), data_files.end()}));
            return std::make_unique<PyProgram>(std::move(module), tracer);
          },
          py::arg("data"), py::arg("full_verification") = true,
          py::arg("kernels") = "optimized", py::arg("tracer") = py::none(),
          py::arg("data_files") = std::vector<std::shared_ptr<DataFile>>())
      .def_static(
          "from_file",
          [](const std::string& path, bool mmap, bool full_verification,
             const std::string& kernels, py::object tracer,
             std::vector<std::shared_ptr<DataFile>> data_files) {
            ModuleOptions options;
            options.load_mode = mmap ? LoadMode::Mmap : LoadMode::File;
            options.verification = full_verification ? Verification::Full : Verification::Minimal;
            options.kernels = kernel_library(kernels);
            options.event_tracer = event_tracer_from(tracer);
            auto module = std::make_unique<Module>(path, options);
            check(module->add_data_maps({data_files.begin(), data_files.end()}));
            return std::make_unique<PyProgram>(std::move(module), tracer);
          },
          py::arg("path"), py::arg("mmap") = true, py::arg("full_verification") = true,
          py::arg("kernels") = "optimized", py::arg("tracer") = py::none(),
          py::arg("data_files") = std::vector<std::shared_ptr<DataFile>>())
      .def("method_names", &PyProgram::method_names)
      .def("method_meta", &PyProgram::method_meta)
      .def("load_method", &PyProgram::load_method)
      .def("run", &PyProgram::run)
      .def("planned_bytes", &PyProgram::planned_bytes);

  m.def("register_test_backend", []() { check(register_test_backend()); },
        "Links the delegation test backend (TorchEdgeTestBackend) into this process.");
  m.def("test_backend_live_delegates", &test_backend_live_delegates);
  bind_xnnpack(m);  // set_num_threads, ... (xnnpack_bindings.cpp)
  bind_vulkan(m);   // vulkan_status, ... (vulkan_bindings.cpp)
  bind_llm_tokenizer(m);  // LlmTokenizer, LlmTokenDecoder, LlmSampler
  bind_llm_runner(m);     // LlmRunner: the generation loop
  bind_embedding(m);      // Embedder: sentence embeddings
  bind_devtools(m);       // ETDumpTracer

  m.def("cpu_isa", []() { return std::string(optimized::isa_name(optimized::best_isa())); },
        "The SIMD instruction set the optimized kernels use here (scalar, avx2, avx512).");
  m.def("set_kernel_dtype_checks", [](bool enabled) { set_kernel_dtype_checks(enabled); },
        "Turns load_method's check of call dtypes against the kernels' proven dtypes on or "
        "off (on by default; tests/ops/discover_dtypes.py turns it off to probe).");
  m.def("registered_kernels", []() {
    check(register_portable_kernels());
    check(register_prim_kernels());
    check(register_quantized_kernels());
    std::vector<std::string> names;
    for (size_t i = 0; i < num_registered_kernels(); ++i) names.push_back(registered_kernel(i).name);
    return names;
  });
}
