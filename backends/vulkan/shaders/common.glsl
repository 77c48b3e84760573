// Shared by every compute shader of the Vulkan delegate.
//
// Bindings: one descriptor set, four storage buffers. Binding 0 is the
// operator's output, 1..3 its inputs (unused slots point at a dummy region).
// Each buffer is exactly one tensor's region of the delegate's pool, so an
// index past a tensor's end is outside the bound range (the blob reader
// rejects parameters that would reach there before any dispatch exists).
//
// Parameters arrive as up to 32 u32 push-constant words; float parameters
// are their IEEE-754 bits (uintBitsToFloat).
layout(std430, set = 0, binding = 0) buffer restrict writeonly Out { float out_data[]; };
layout(std430, set = 0, binding = 1) buffer restrict readonly In0 { float in0[]; };
layout(std430, set = 0, binding = 2) buffer restrict readonly In1 { float in1[]; };
layout(std430, set = 0, binding = 3) buffer restrict readonly In2 { float in2[]; };

layout(push_constant) uniform Params { uint p[32]; };

float pf(uint i) { return uintBitsToFloat(p[i]); }

// The linear invocation index of a 1-D job dispatched as a 2-D grid (the
// runtime folds a count beyond maxComputeWorkGroupCount[0] into y).
uint linear_index(uint local_size) {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * local_size;
}
