// Shared by every compute shader of the Vulkan delegate.
//
// Bindings: one descriptor set, four storage buffers. Binding 0 is the
// operator's output, 1..3 its inputs (unused slots point at a dummy region).
// Each buffer is exactly one tensor's region of the delegate's pool, so an
// index past a tensor's end is outside the bound range (the blob reader
// rejects parameters that would reach there before any dispatch exists).
//
// Storage type T: every shader is compiled twice from this source, once as
// is (float32 buffers) and once with -DTE_FLOAT16 (float16 buffers; needs
// the device's storageBuffer16BitAccess and shaderFloat16). Values are
// loaded into float32 (implicit float16_t -> float conversions) and the
// shaders compute and accumulate in float32, rounding once per stored
// element with T(...); binary.comp alone computes in CT, float16 in the
// float16 variant, where one correctly rounded float16 operation equals
// eager PyTorch's float32 operation rounded to float16.
//
// Parameters arrive as up to 32 u32 push-constant words; float parameters
// are their IEEE-754 bits (uintBitsToFloat).
#ifdef TE_FLOAT16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define T float16_t
#define CT float16_t
#else
#define T float
#define CT float
#endif

layout(std430, set = 0, binding = 0) buffer restrict writeonly Out { T out_data[]; };
layout(std430, set = 0, binding = 1) buffer restrict readonly In0 { T in0[]; };
layout(std430, set = 0, binding = 2) buffer restrict readonly In1 { T in1[]; };
layout(std430, set = 0, binding = 3) buffer restrict readonly In2 { T in2[]; };

layout(push_constant) uniform Params { uint p[32]; };

float pf(uint i) { return uintBitsToFloat(p[i]); }

// The linear invocation index of a 1-D job dispatched as a 2-D grid (the
// runtime folds a count beyond maxComputeWorkGroupCount[0] into y).
uint linear_index(uint local_size) {
  return gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * local_size;
}
