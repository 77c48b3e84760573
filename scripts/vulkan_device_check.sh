#!/usr/bin/env bash
# Runs the Vulkan delegate's tests on this machine's own Vulkan device (a
# real GPU) instead of Mesa's lavapipe, which `make test` uses:
#   the blob-reader and runtime ctest (vulkan_backend_test) and
#   tests/backends/test_vulkan.py (every zoo model and the operator cases
#   against eager PyTorch, graph breaks), and float16:
#   tests/backends/test_vulkan_float16.py (float16 zoo models and
#   force_fp16 against eager, the masked-feature errors and fallback) and
#   the float16 parity tables of every zoo model on this device
#   (scripts/vulkan_zoo_report.py --float16), after printing the device's
#   shaderFloat16 / storageBuffer16BitAccess. A GPU without them skips the
#   float16 runs with that reason (the masked-device tests still run).
# Needs a build (`make build`). TORCHEDGE_VULKAN_DEVICE=<index> picks one of
# several devices. Exits 0 without running anything, saying so, when the
# only device is a CPU implementation (lavapipe/llvmpipe) or there is none.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
export TORCHEDGE_VULKAN_TEST_DEVICE=system  # the tests then leave VK_ICD_FILENAMES alone
unset VK_ICD_FILENAMES VK_DRIVER_FILES

device=$(PYTHONPATH=python "$PY" - <<'PY'
from torchedge import _C
if not _C.vulkan_built():
    print("none: this build has no Vulkan delegate")
else:
    try:
        print(_C.vulkan_device())
    except RuntimeError as e:
        print(f"none: {e}")
PY
)
echo "vulkan_device_check: device: $device"
case "$device" in
  none:*) echo "vulkan_device_check: no Vulkan device; nothing to check"; exit 0 ;;
  *llvmpipe*|*lavapipe*)
    echo "vulkan_device_check: only the CPU implementation (lavapipe) is present;" \
         "make test already runs these tests on it"; exit 0 ;;
esac

ctest --test-dir build --output-on-failure -R vulkan_backend_test
PYTHONPATH=python "$PY" -m pytest -q tests/backends/test_vulkan.py
features=$(PYTHONPATH=python "$PY" -c 'from torchedge import _C; print(_C.vulkan_float16_features())')
echo "vulkan_device_check: float16 features: $features"
PYTHONPATH=python "$PY" -m pytest -q -rs tests/backends/test_vulkan_float16.py
case "$features" in
  *False*) echo "vulkan_device_check: no float16 on $device: float16 parity tables skipped" ;;
  *) PYTHONPATH=python "$PY" scripts/vulkan_zoo_report.py --float16 ;;
esac
echo "vulkan_device_check: all Vulkan tests passed on $device"
