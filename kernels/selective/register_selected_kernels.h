// torchedge/kernels/selective/register_selected_kernels.h
//
// The kernels of a selective build (docs/selective-build.md): a build
// configured with -DTORCHEDGE_SELECTED_OPS=ops.yaml generates the
// definition of this function from the op list, so the table holds exactly
// the listed operators (from kernels/portable, kernels/prim,
// kernels/quantized, kernels/cortex_m) and nothing else is linked.
//
// Dtypes are selected too, twice over:
//  - at compile time, the selective library is built with
//    TORCHEDGE_SELECTED_DTYPES (the union of the listed dtypes), so
//    switch_dtype() keeps only those cases (dtype_dispatch.h); a kernel
//    reached with another dtype fails with InvalidType, "not compiled
//    into this selective build";
//  - at load, each listed operator's dtypes are registered as its mask
//    (kernel_registry.h, KernelDtypes), so load_method rejects a call with
//    an unlisted dtype, naming the operator, dtype and instruction.
// An operator not in the list fails load_method with OperatorMissing,
// naming it.
#pragma once

#include "runtime/core/error.h"

namespace torchedge {

/// Registers the selected kernels and their dtype masks (explicit: call it
/// before loading a method). Fails with OutOfResources when the registry is full.
Error register_selected_kernels();

}  // namespace torchedge
