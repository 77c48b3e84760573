// torchedge/extension/pybindings/vulkan_bindings.cpp
//
// The Vulkan delegate's part of torchedge._C:
//   vulkan_built()           whether this build has the delegate
//   vulkan_device()          the selected device's name; raises
//                            RuntimeError with the reason when none
//   vulkan_live_delegates()  for lifetime tests
#include <pybind11/pybind11.h>

#include <stdexcept>
#include <string>

#include "runtime/core/error_message.h"
#if defined(TORCHEDGE_HAVE_VULKAN)
#include "backends/vulkan/vulkan_backend.h"
#endif

namespace py = pybind11;

void bind_vulkan(py::module_& m) {
#if defined(TORCHEDGE_HAVE_VULKAN)
  m.def("vulkan_built", []() { return true; });
  m.def("vulkan_device", []() {
    const char* name = torchedge::vulkan_device_name();
    if (name == nullptr) throw std::runtime_error(torchedge::last_error_message());
    return std::string(name);
  });
  m.def("vulkan_live_delegates", &torchedge::vulkan_live_delegates);
#else
  m.def("vulkan_built", []() { return false; });
  m.def("vulkan_device", []() -> std::string {
    throw std::runtime_error("this build has no Vulkan delegate (TORCHEDGE_BUILD_VULKAN=OFF)");
  });
  m.def("vulkan_live_delegates", []() { return 0; });
#endif
}
