// torchedge/kernels/optimized/portable_fallback.h
//
// Declarations of the portable kernels the optimized ones hand their
// unsupported cases to (same boxed signature; defined in kernels/portable,
// namespace torchedge::native). An optimized kernel calls its portable twin
// directly, e.g. `return native::mm_out(ctx, args);`.
#pragma once

#include "runtime/core/evalue.h"
#include "runtime/core/span.h"
#include "runtime/kernel/kernel_context.h"

namespace torchedge {
namespace native {
#define TE_PORTABLE_KERNEL(name, function) Error function(KernelContext&, Span<EValue*>);
#include "kernels/portable/kernel_list.inc"
#undef TE_PORTABLE_KERNEL
}  // namespace native
}  // namespace torchedge
