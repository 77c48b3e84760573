// torchedge/extension/pybindings/vulkan_bindings.cpp
//
// The Vulkan delegate's part of torchedge._C:
//   vulkan_built()           whether this build has the delegate
//   vulkan_device()          the selected device's name; raises
//                            RuntimeError with the reason when none
//   vulkan_live_delegates()  for lifetime tests
//   vulkan_float16_features(present=True)
//                            {"shaderFloat16": bool, "storageBuffer16BitAccess":
//                            bool}: what the device has, or (present=False)
//                            what delegates may use after the mask
//   vulkan_mask_float16_features(shaderFloat16=False, storageBuffer16BitAccess=False)
//                            hides features from delegates initialized later
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
  m.def(
      "vulkan_float16_features",
      [](bool present) {
        const torchedge::VulkanFloat16Features f = torchedge::vulkan_float16_features(present);
        py::dict d;
        d["shaderFloat16"] = f.shader_float16;
        d["storageBuffer16BitAccess"] = f.storage_buffer_16bit_access;
        return d;
      },
      py::arg("present") = true);
  m.def("vulkan_mask_float16_features", &torchedge::vulkan_mask_float16_features,
        py::arg("shaderFloat16") = false, py::arg("storageBuffer16BitAccess") = false);
#else
  m.def("vulkan_built", []() { return false; });
  m.def("vulkan_device", []() -> std::string {
    throw std::runtime_error("this build has no Vulkan delegate (TORCHEDGE_BUILD_VULKAN=OFF)");
  });
  m.def("vulkan_live_delegates", []() { return 0; });
  m.def(
      "vulkan_float16_features",
      [](bool) {
        py::dict d;
        d["shaderFloat16"] = false;
        d["storageBuffer16BitAccess"] = false;
        return d;
      },
      py::arg("present") = true);
  m.def("vulkan_mask_float16_features", [](bool, bool) {}, py::arg("shaderFloat16") = false,
        py::arg("storageBuffer16BitAccess") = false);
#endif
}
