// torchedge/extension/pybindings/xnnpack_bindings.cpp
//
// The XNNPACK delegate's part of torchedge._C:
//   set_num_threads(n) / get_num_threads()   threads of XNNPACK delegates in
//                                            programs loaded afterwards
//   xnnpack_live_delegates()                 for lifetime tests
//   _xnnpack_run_blob(blob, inputs, output_sizes, iterations=1)
//       runs one "TEX1" blob directly through the registered backend
//       (init, `iterations` executes, destroy) on float32 inputs given as
//       (sizes, buffer) pairs; returns the outputs' bytes and the median
//       execute time in seconds. A test hook: it lets the AOT half be checked
//       against eager PyTorch partition by partition.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "backends/xnnpack/xnnpack_backend.h"
#include "kernels/optimized/threadpool/threadpool.h"
#include "runtime/backend/backend_interface.h"
#include "runtime/core/error_message.h"

namespace py = pybind11;
using namespace torchedge;

void raise_if_error(Error err);  // pybindings.cpp: TorchEdgeRuntimeError

namespace {

// Metadata and storage of one float32 tensor handed to the backend.
struct HostTensor {
  std::vector<int32_t> sizes, strides;
  std::vector<uint8_t> order;
  std::vector<float> storage;  // outputs only
  Tensor tensor;

  void bind(void* data) {
    strides.resize(sizes.size());
    order.resize(sizes.size());
    for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<uint8_t>(d);
    tensor = Tensor(ScalarType::Float, static_cast<int>(sizes.size()), sizes.data(), order.data(),
                    strides.data(), data);
  }
};

[[noreturn]] void fail(const char* what, Error err) {
  throw std::runtime_error(std::string(what) + ": " + error_name(err) + ": " +
                           last_error_message());
}

py::tuple run_blob(py::bytes blob_bytes, const py::list& inputs,
                   const std::vector<std::vector<int32_t>>& output_sizes, int iterations) {
  if (register_xnnpack_backend() != Error::Ok) fail("registering", Error::Internal);
  const BackendInterface* backend = find_backend("XnnpackBackend");
  const std::string blob = blob_bytes;
  std::vector<HostTensor> tensors(inputs.size() + output_sizes.size());
  std::vector<py::buffer_info> buffers;
  for (size_t i = 0; i < inputs.size(); ++i) {
    py::tuple item = inputs[i].cast<py::tuple>();
    tensors[i].sizes = item[0].cast<std::vector<int32_t>>();
    buffers.push_back(item[1].cast<py::buffer>().request());
    tensors[i].bind(buffers.back().ptr);
    if (static_cast<size_t>(buffers.back().size * buffers.back().itemsize) !=
        tensors[i].tensor.nbytes()) {
      throw std::runtime_error("input " + std::to_string(i) + ": buffer size does not match");
    }
  }
  for (size_t j = 0; j < output_sizes.size(); ++j) {
    HostTensor& t = tensors[inputs.size() + j];
    t.sizes = output_sizes[j];
    size_t numel = 1;
    for (int32_t s : t.sizes) numel *= static_cast<size_t>(s);
    t.storage.assign(numel + 4, 0.0f);  // + XNNPACK's permitted over-read
    t.bind(t.storage.data());
  }
  std::vector<EValue> values;
  for (HostTensor& t : tensors) values.emplace_back(&t.tensor);
  std::vector<EValue*> args;
  for (EValue& v : values) args.push_back(&v);

  std::vector<uint64_t> pool(blob.size() / 8 + (64 << 17));  // blob size + 64 MiB
  MemoryAllocator allocator(pool.data(), pool.size() * 8);
  Result<DelegateHandle*> handle = backend->init(
      {reinterpret_cast<const uint8_t*>(blob.data()), blob.size()}, {}, &allocator);
  if (!handle.ok()) fail("init", handle.error());
  std::vector<double> seconds;
  Error err = Error::Ok;
  {
    py::gil_scoped_release release;
    for (int k = 0; k < std::max(1, iterations) && err == Error::Ok; ++k) {
      const auto start = std::chrono::steady_clock::now();
      err = backend->execute(handle.get(), {args.data(), args.size()});
      seconds.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
  }
  backend->destroy(handle.get());
  if (err != Error::Ok) fail("execute", err);
  py::list outputs;
  for (size_t j = 0; j < output_sizes.size(); ++j) {
    const Tensor& t = tensors[inputs.size() + j].tensor;
    outputs.append(py::bytes(static_cast<const char*>(t.data()), t.nbytes()));
  }
  std::sort(seconds.begin(), seconds.end());
  return py::make_tuple(outputs, seconds[seconds.size() / 2]);
}

}  // namespace

void bind_xnnpack(py::module_& m) {
  // The shared pool's setter (set_xnnpack_num_threads is its void alias):
  // a change while a method executes is InvalidState, raised here.
  m.def("set_num_threads", [](size_t n) { raise_if_error(set_num_threads(n)); },
        py::arg("num_threads"),
        "Threads of the shared pool (optimized kernels, XNNPACK delegates loaded from now on); "
        "raises while a method executes.");
  m.def("get_num_threads", &xnnpack_num_threads);
  m.def("xnnpack_live_delegates", &xnnpack_live_delegates);
  m.def("_xnnpack_run_blob", &run_blob, py::arg("blob"), py::arg("inputs"),
        py::arg("output_sizes"), py::arg("iterations") = 1);
}
