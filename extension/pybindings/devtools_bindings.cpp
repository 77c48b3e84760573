// torchedge._C.ETDumpTracer: an ETDumpTracer (devtools/etdump) with the
// buffers it records into, for torchedge.runtime.load(..., etdump=True).
// A Program created with a tracer keeps the Python object alive and the
// tracer sees its loads and every execute; serialize() returns the ETDump
// file bytes (torchedge.devtools.parse_etdump reads them).
#include <pybind11/pybind11.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "devtools/etdump/etdump_tracer.h"

namespace py = pybind11;
using namespace torchedge;

namespace {

class PyETDumpTracer {
 public:
  // Not value-initialized: pages no event reaches are never committed.
  PyETDumpTracer(size_t max_events, size_t debug_buffer_bytes)
      : event_bytes_(max_events * ETDumpTracer::kRecordBytes + alignof(ETDumpTracer::Record)),
        events_(new uint8_t[event_bytes_]),
        debug_(new uint8_t[debug_buffer_bytes]),
        tracer_({events_.get(), event_bytes_}, {debug_.get(), debug_buffer_bytes}) {}

  ETDumpTracer& tracer() { return tracer_; }
  std::string block_name;

 private:
  size_t event_bytes_;
  std::unique_ptr<uint8_t[]> events_;
  std::unique_ptr<uint8_t[]> debug_;
  ETDumpTracer tracer_;
};

}  // namespace

/// The tracer inside `object` (a torchedge._C.ETDumpTracer), or nullptr
/// for None; used by pybindings.cpp's Program constructors.
EventTracer* event_tracer_from(py::handle object) {
  if (object.is_none()) return nullptr;
  return &object.cast<PyETDumpTracer&>().tracer();
}

void bind_devtools(py::module_& m) {
  py::class_<PyETDumpTracer>(m, "ETDumpTracer")
      .def(py::init<size_t, size_t>(), py::arg("max_events") = size_t{1} << 18,
           py::arg("debug_buffer_bytes") = 0)
      .def("serialize", [](PyETDumpTracer& t) {
             const std::vector<uint8_t> bytes = t.tracer().serialize();
             return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
           })
      .def("reset", [](PyETDumpTracer& t) { t.tracer().reset(); })
      .def("set_profiling", [](PyETDumpTracer& t, bool on) { t.tracer().set_profiling(on); })
      .def("set_capture_intermediates",
           [](PyETDumpTracer& t, bool on) { t.tracer().set_capture_intermediates(on); })
      // The name is copied: the tracer borrows the copy until the next call.
      .def("set_block_name",
           [](PyETDumpTracer& t, py::object name) {
             t.block_name = name.is_none() ? std::string() : name.cast<std::string>();
             t.tracer().set_block_name(name.is_none() ? nullptr : t.block_name.c_str());
           })
      .def_property_readonly("num_events", [](PyETDumpTracer& t) { return t.tracer().num_events(); })
      .def_property_readonly("dropped_events",
                             [](PyETDumpTracer& t) { return t.tracer().dropped_events(); })
      .def_property_readonly("dropped_debug_events",
                             [](PyETDumpTracer& t) { return t.tracer().dropped_debug_events(); });
}
