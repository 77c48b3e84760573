#include "backends/vulkan/vulkan_delegate.h"

#include <cstring>

#include "backends/vulkan/dispatch_size.h"
#include "backends/vulkan/float16_support.h"
#include "backends/vulkan/pool_plan.h"
#include "runtime/core/error_message.h"
#include "runtime/executor/event_tracer.h"
#include "runtime/platform/platform.h"

namespace torchedge {
namespace vulkan {

namespace {

#define TE_VK_RETURN(call, error)                                                            \
  do {                                                                                       \
    const VkResult vk_result_ = (call);                                                      \
    TE_CHECK_OR_RETURN(vk_result_ == VK_SUCCESS, error, "vulkan delegate: %s failed: %s",    \
                       #call, vk_result_name(vk_result_));                                   \
  } while (0)

Error memory_error(VkResult r) {
  return r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY
             ? Error::DelegateMemoryAllocationFailed
             : Error::Internal;
}

// A buffer with its own memory of a type having `required` flags
// (`preferred` too when possible); `*flags` receives the type's flags.
Error make_buffer(VulkanContext* ctx, uint64_t bytes, VkBufferUsageFlags usage,
                  VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                  VkBuffer* buffer, VkDeviceMemory* memory, VkMemoryPropertyFlags* flags) {
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(ctx->device(), &info, nullptr, buffer);
  TE_CHECK_OR_RETURN(r == VK_SUCCESS, memory_error(r),
                     "vulkan delegate: vkCreateBuffer(%llu bytes) failed: %s",
                     static_cast<unsigned long long>(bytes), vk_result_name(r));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx->device(), *buffer, &req);
  const int32_t type = ctx->memory_type(req.memoryTypeBits, required, preferred);
  TE_CHECK_OR_RETURN(type >= 0, Error::DelegateInvalidCompatibility,
                     "vulkan delegate: no memory type with flags 0x%x for a %llu-byte buffer",
                     required, static_cast<unsigned long long>(bytes));
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  r = vkAllocateMemory(ctx->device(), &alloc, nullptr, memory);
  TE_CHECK_OR_RETURN(r == VK_SUCCESS, memory_error(r),
                     "vulkan delegate: vkAllocateMemory(%llu bytes) failed: %s",
                     static_cast<unsigned long long>(req.size), vk_result_name(r));
  TE_VK_RETURN(vkBindBufferMemory(ctx->device(), *buffer, *memory, 0), Error::Internal);
  *flags = ctx->memory_flags(static_cast<uint32_t>(type));
  return Error::Ok;
}

void barrier(VkCommandBuffer cb, VkPipelineStageFlags src, VkAccessFlags src_access,
             VkPipelineStageFlags dst, VkAccessFlags dst_access) {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = src_access;
  b.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cb, src, dst, 0, 1, &b, 0, nullptr, 0, nullptr);
}

// Builder state that lives only during build_delegate.
struct Build {
  const ParsedBlob& blob;
  PoolPlan plan;
  VulkanContext* ctx;
  Delegate* d;
  bool mapped;               // pool memory host-visible: no staging
  uint8_t* pool_host;        // mapped pool (when `mapped`)
  uint8_t* staging_host;     // mapped staging buffer (otherwise)
  uint64_t* staging_offsets; // per io binding (staging mode)
  bool f32_as_f16;           // kFlagFloat16Compute in effect
};

Error make_memory(Build& b, MemoryAllocator* allocator) {
  Delegate* d = b.d;
  const uint64_t alignment = b.ctx->properties().limits.minStorageBufferOffsetAlignment;
  VkMemoryPropertyFlags flags = 0;
  TE_RETURN_IF_ERROR(make_buffer(
      b.ctx, b.plan.pool_bytes,
      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
          VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &d->pool, &d->pool_memory, &flags));
  const VkMemoryPropertyFlags host =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  b.mapped = (flags & host) == host;
  const uint32_t num_io = d->num_inputs + d->num_outputs;
  b.staging_offsets = allocator->allocate_array<uint64_t>(num_io + 1);
  TE_CHECK_OR_RETURN(b.staging_offsets != nullptr, Error::MemoryAllocationFailed,
                     "vulkan delegate: method allocator exhausted");
  uint64_t staging_bytes = 0;
  for (uint32_t i = 0; i < num_io; ++i) {
    b.staging_offsets[i] = staging_bytes;
    staging_bytes +=
        region_bytes(b.blob.tensors[i], alignment < 16 ? 16 : alignment, b.f32_as_f16);
  }
  uint8_t*& staging_host = b.staging_host;
  if (b.mapped) {
    void* p = nullptr;
    TE_VK_RETURN(vkMapMemory(b.ctx->device(), d->pool_memory, 0, VK_WHOLE_SIZE, 0, &p),
                 Error::Internal);
    b.pool_host = static_cast<uint8_t*>(p);
  } else {
    // Large enough for the constants' one-time upload too.
    const uint64_t bytes =
        staging_bytes > b.plan.constant_bytes ? staging_bytes : b.plan.constant_bytes;
    TE_RETURN_IF_ERROR(make_buffer(b.ctx, bytes > 0 ? bytes : 16,
                                   VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                   host, VK_MEMORY_PROPERTY_HOST_CACHED_BIT, &d->staging,
                                   &d->staging_memory, &flags));
    void* p = nullptr;
    TE_VK_RETURN(vkMapMemory(b.ctx->device(), d->staging_memory, 0, VK_WHOLE_SIZE, 0, &p),
                 Error::Internal);
    staging_host = static_cast<uint8_t*>(p);
  }
  for (uint32_t i = 0; i < num_io; ++i) {
    const TensorInfo& t = b.blob.tensors[i];
    IoBinding& io = d->io[i];
    io.rank = t.rank;
    memcpy(io.dims, t.dims, sizeof(io.dims));
    io.numel = t.numel;
    io.nbytes = device_bytes(t, b.f32_as_f16);
    io.float16 = t.float16;
    io.convert = !t.float16 && b.f32_as_f16;
    io.host = b.mapped ? b.pool_host + b.plan.offsets[i] : staging_host + b.staging_offsets[i];
  }
  return Error::Ok;
}

// Copies constants into the pool: directly when mapped, else through the
// staging buffer with a one-time command buffer.
Error upload_constants(Build& b) {
  Delegate* d = b.d;
  const ParsedBlob& blob = b.blob;
  if (b.plan.constant_bytes == 0) return Error::Ok;
  uint8_t* dst = b.mapped ? b.pool_host : b.staging_host;
  // Constant regions are contiguous in the pool (pool_plan.h); the staging
  // copy mirrors their layout from the first constant's offset.
  uint64_t base = UINT64_MAX;
  for (uint32_t i = 0; i < blob.num_tensors; ++i) {
    if (blob.tensors[i].kind == TensorKind::Constant && b.plan.offsets[i] < base) base = b.plan.offsets[i];
  }
  for (uint32_t i = 0; i < blob.num_tensors; ++i) {
    const TensorInfo& t = blob.tensors[i];
    if (t.kind != TensorKind::Constant) continue;
    const uint64_t at = b.mapped ? b.plan.offsets[i] : b.plan.offsets[i] - base;
    // float32 weights computed in float16 are rounded once, here.
    copy_to_device(dst + at, blob.data + t.const_offset, t.numel, device_bytes(t, b.f32_as_f16),
                   !t.float16 && b.f32_as_f16);
  }
  if (b.mapped) return Error::Ok;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = b.ctx->command_pool();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  std::lock_guard<std::mutex> guard(b.ctx->lock());
  TE_VK_RETURN(vkAllocateCommandBuffers(b.ctx->device(), &alloc, &cb), Error::Internal);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cb, &begin);
  VkBufferCopy region{0, base, b.plan.constant_bytes};
  vkCmdCopyBuffer(cb, d->staging, d->pool, 1, &region);
  vkEndCommandBuffer(cb);
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cb;
  VkResult r = vkQueueSubmit(b.ctx->queue(), 1, &submit, VK_NULL_HANDLE);
  if (r == VK_SUCCESS) r = vkQueueWaitIdle(b.ctx->queue());
  vkFreeCommandBuffers(b.ctx->device(), b.ctx->command_pool(), 1, &cb);
  TE_CHECK_OR_RETURN(r == VK_SUCCESS, memory_error(r),
                     "vulkan delegate: uploading constants failed: %s", vk_result_name(r));
  return Error::Ok;
}

Error make_descriptors(Build& b, VkDescriptorSet* sets) {
  Delegate* d = b.d;
  const ParsedBlob& blob = b.blob;
  VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kMaxOpIds * blob.num_ops};
  VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  info.maxSets = blob.num_ops;
  info.poolSizeCount = 1;
  info.pPoolSizes = &size;
  TE_VK_RETURN(vkCreateDescriptorPool(b.ctx->device(), &info, nullptr, &d->descriptor_pool),
               Error::DelegateMemoryAllocationFailed);
  const uint64_t max_range = b.ctx->properties().limits.maxStorageBufferRange;
  for (uint32_t k = 0; k < blob.num_ops; ++k) {
    VkDescriptorSetLayout layout = b.ctx->set_layout();
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = d->descriptor_pool;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &layout;
    TE_VK_RETURN(vkAllocateDescriptorSets(b.ctx->device(), &alloc, &sets[k]),
                 Error::DelegateMemoryAllocationFailed);
    VkDescriptorBufferInfo buffers[kMaxOpIds];
    VkWriteDescriptorSet writes[kMaxOpIds];
    const OpInfo& op = blob.ops[k];
    for (uint32_t s = 0; s < kMaxOpIds; ++s) {
      // Unused slots see the op's output region; the shader never reads them.
      const uint32_t id = op.ids[s] == kNoTensor ? op.ids[0] : op.ids[s];
      const uint64_t range = device_bytes(blob.tensors[id], b.f32_as_f16);
      TE_CHECK_OR_RETURN(range <= max_range, Error::DelegateInvalidCompatibility,
                         "vulkan delegate: tensor %u is %llu bytes; this device binds at most "
                         "%llu bytes per storage buffer",
                         id, static_cast<unsigned long long>(range),
                         static_cast<unsigned long long>(max_range));
      buffers[s] = VkDescriptorBufferInfo{d->pool, b.plan.offsets[id], range};
      writes[s] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[s].dstSet = sets[k];
      writes[s].dstBinding = s;
      writes[s].descriptorCount = 1;
      writes[s].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[s].pBufferInfo = &buffers[s];
    }
    vkUpdateDescriptorSets(b.ctx->device(), kMaxOpIds, writes, 0, nullptr);
  }
  return Error::Ok;
}

Error record_commands(Build& b, const VkDescriptorSet* sets) {
  Delegate* d = b.d;
  const ParsedBlob& blob = b.blob;
  VulkanContext* ctx = b.ctx;
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = ctx->command_pool();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  {
    std::lock_guard<std::mutex> guard(ctx->lock());
    TE_VK_RETURN(vkAllocateCommandBuffers(ctx->device(), &alloc, &d->commands),
                 Error::DelegateMemoryAllocationFailed);
  }
  VkCommandBuffer cb = d->commands;
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  TE_VK_RETURN(vkBeginCommandBuffer(cb, &begin), Error::Internal);
  if (d->queries != VK_NULL_HANDLE) vkCmdResetQueryPool(cb, d->queries, 0, blob.num_ops + 1);
  if (!b.mapped && d->num_inputs > 0) {
    for (uint32_t i = 0; i < d->num_inputs; ++i) {
      VkBufferCopy region{b.staging_offsets[i], b.plan.offsets[i], d->io[i].nbytes};
      vkCmdCopyBuffer(cb, d->staging, d->pool, 1, &region);
    }
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
  }
  if (d->queries != VK_NULL_HANDLE) {
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->queries, 0);
  }
  VkPipeline bound = VK_NULL_HANDLE;
  for (uint32_t k = 0; k < blob.num_ops; ++k) {
    const OpInfo& op = blob.ops[k];
    uint32_t groups[3];
    TE_RETURN_IF_ERROR(dispatch_size(op, k, ctx->properties().limits, groups));
    const bool half = stored_float16(blob.tensors[op.ids[0]], b.f32_as_f16);
    TE_ASSIGN_OR_RETURN(VkPipeline pipeline, ctx->pipeline(op.shader, half));
    if (pipeline != bound) {
      vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      bound = pipeline;
    }
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->pipeline_layout(), 0, 1,
                            &sets[k], 0, nullptr);
    vkCmdPushConstants(cb, ctx->pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       4 * kMaxParams, op.params);
    vkCmdDispatch(cb, groups[0], groups[1], groups[2]);
    if (d->queries != VK_NULL_HANDLE) {
      vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->queries, k + 1);
    }
    // Each op may read what any earlier one wrote (and reuse its space).
    barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  }
  if (!b.mapped) {
    for (uint32_t i = d->num_inputs; i < d->num_inputs + d->num_outputs; ++i) {
      VkBufferCopy region{b.plan.offsets[i], b.staging_offsets[i], d->io[i].nbytes};
      vkCmdCopyBuffer(cb, d->pool, d->staging, 1, &region);
    }
    barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  } else {
    barrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  }
  TE_VK_RETURN(vkEndCommandBuffer(cb), Error::Internal);
  return Error::Ok;
}

Error build(Build& b, MemoryAllocator* allocator) {
  Delegate* d = b.d;
  const ParsedBlob& blob = b.blob;
  uint64_t alignment = b.ctx->properties().limits.minStorageBufferOffsetAlignment;
  if (alignment < 16) alignment = 16;
  TE_ASSIGN_OR_RETURN(b.plan, plan_pool(blob, alignment, b.f32_as_f16, allocator));
  d->pool_bytes = b.plan.pool_bytes;
  d->io = allocator->allocate_array<IoBinding>(blob.num_inputs + blob.num_outputs + 1);
  VkDescriptorSet* sets = allocator->allocate_array<VkDescriptorSet>(blob.num_ops);
  uint32_t* handles = allocator->allocate_array<uint32_t>(blob.num_ops);
  Shader* shaders = allocator->allocate_array<Shader>(blob.num_ops);
  TE_CHECK_OR_RETURN(d->io != nullptr && sets != nullptr && handles != nullptr &&
                         shaders != nullptr,
                     Error::MemoryAllocationFailed, "vulkan delegate: method allocator exhausted");
  for (uint32_t k = 0; k < blob.num_ops; ++k) {
    handles[k] = blob.ops[k].debug_handle;
    shaders[k] = blob.ops[k].shader;
  }
  d->debug_handles = handles;
  d->shaders = shaders;
  TE_RETURN_IF_ERROR(make_memory(b, allocator));
  TE_RETURN_IF_ERROR(upload_constants(b));
  TE_RETURN_IF_ERROR(make_descriptors(b, sets));
  if (b.ctx->timestamp_bits() > 0) {
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = blob.num_ops + 1;
    d->timestamps = allocator->allocate_array<uint64_t>(blob.num_ops + 1);
    TE_CHECK_OR_RETURN(d->timestamps != nullptr, Error::MemoryAllocationFailed,
                       "vulkan delegate: method allocator exhausted");
    TE_VK_RETURN(vkCreateQueryPool(b.ctx->device(), &q, nullptr, &d->queries),
                 Error::DelegateMemoryAllocationFailed);
  }
  VkFenceCreateInfo fence{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  TE_VK_RETURN(vkCreateFence(b.ctx->device(), &fence, nullptr, &d->fence),
               Error::DelegateMemoryAllocationFailed);
  return record_commands(b, sets);
}

Error check_argument(const Delegate& d, uint32_t i, EValue* arg) {
  TE_CHECK_OR_RETURN(arg != nullptr && arg->is_tensor(), Error::InvalidType,
                     "vulkan delegate: argument %u is not a tensor", i);
  const Tensor& t = arg->to_tensor();
  const IoBinding& io = d.io[i];
  const ScalarType dtype = io.float16 ? ScalarType::Half : ScalarType::Float;
  bool same = t.dtype() == dtype && t.dim() == static_cast<int>(io.rank);
  for (uint32_t k = 0; same && k < io.rank; ++k) {
    same = t.size(static_cast<int>(k)) == static_cast<Tensor::SizesType>(io.dims[k]);
  }
  TE_CHECK_OR_RETURN(same && t.mutable_data() != nullptr && t.is_contiguous(),
                     Error::InvalidArgument,
                     "vulkan delegate: argument %u must be a contiguous %s tensor of the "
                     "shape the delegate was compiled for (rank %u, %llu elements)",
                     i, io.float16 ? "float16" : "float32", io.rank,
                     static_cast<unsigned long long>(io.numel));
  return Error::Ok;
}

void report_ops(EventTracer* tracer, const Delegate& d, uint64_t start, uint64_t end) {
  const uint32_t n = d.num_ops;
  bool timed = false;
  if (d.queries != VK_NULL_HANDLE) {
    timed = vkGetQueryPoolResults(d.context->device(), d.queries, 0, n + 1,
                                  sizeof(uint64_t) * (n + 1), d.timestamps, sizeof(uint64_t),
                                  VK_QUERY_RESULT_64_BIT) == VK_SUCCESS;
  }
  const double period = d.context->properties().limits.timestampPeriod;
  const uint32_t bits = d.context->timestamp_bits();
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  for (uint32_t k = 0; k < n; ++k) {
    uint64_t s = start, e = end;
    if (timed) {
      // GPU ticks since the first timestamp, placed inside the submit interval.
      s = start + static_cast<uint64_t>(((d.timestamps[k] - d.timestamps[0]) & mask) * period);
      e = start + static_cast<uint64_t>(((d.timestamps[k + 1] - d.timestamps[0]) & mask) * period);
    }
    tracer->log_delegate_event(shader_name(d.shaders[k]), static_cast<int32_t>(d.debug_handles[k]),
                               nullptr, s, e);
  }
}

}  // namespace

Result<Delegate*> build_delegate(const ParsedBlob& blob, MemoryAllocator* allocator) {
  TE_ASSIGN_OR_RETURN(VulkanContext * ctx, VulkanContext::get());
  Delegate* d = allocator->allocate_array<Delegate>(1);
  TE_CHECK_OR_RETURN(d != nullptr, Error::MemoryAllocationFailed,
                     "vulkan delegate: method allocator exhausted");
  *d = Delegate{};
  d->context = ctx;
  d->num_inputs = blob.num_inputs;
  d->num_outputs = blob.num_outputs;
  d->num_ops = blob.num_ops;
  TE_ASSIGN_OR_RETURN(const bool f32_as_f16, resolve_float16(blob, *ctx));
  d->float32_as_float16 = f32_as_f16;
  Build b{blob, PoolPlan{}, ctx, d, false, nullptr, nullptr, nullptr, f32_as_f16};
  const Error err = build(b, allocator);
  if (err != Error::Ok) {
    release_delegate(d);
    return err;
  }
  return d;
}

Error run_delegate(Delegate* d, Span<EValue*> args) {
  const uint32_t count = d->num_inputs + d->num_outputs;
  TE_CHECK_OR_RETURN(args.size() == count, Error::InvalidArgument,
                     "vulkan delegate: %zu arguments, expected %u inputs and %u outputs",
                     args.size(), d->num_inputs, d->num_outputs);
  for (uint32_t i = 0; i < count; ++i) TE_RETURN_IF_ERROR(check_argument(*d, i, args[i]));
  EventTracer* tracer = current_delegate_tracer();
  const uint64_t t0 = tracer != nullptr ? platform_now_ns() : 0;
  for (uint32_t i = 0; i < d->num_inputs; ++i) {
    const IoBinding& io = d->io[i];
    copy_to_device(io.host, args[i]->to_tensor().mutable_data(), io.numel, io.nbytes, io.convert);
  }
  const uint64_t t1 = tracer != nullptr ? platform_now_ns() : 0;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &d->commands;
  VkResult r;
  {
    std::lock_guard<std::mutex> guard(d->context->lock());
    r = vkQueueSubmit(d->context->queue(), 1, &submit, d->fence);
  }
  if (r == VK_SUCCESS) r = vkWaitForFences(d->context->device(), 1, &d->fence, VK_TRUE, UINT64_MAX);
  if (r == VK_SUCCESS) r = vkResetFences(d->context->device(), 1, &d->fence);
  TE_CHECK_OR_RETURN(r == VK_SUCCESS, Error::Internal,
                     "vulkan delegate: running the command buffer failed: %s", vk_result_name(r));
  const uint64_t t2 = tracer != nullptr ? platform_now_ns() : 0;
  for (uint32_t i = d->num_inputs; i < count; ++i) {
    const IoBinding& io = d->io[i];
    copy_from_device(args[i]->to_tensor().mutable_data(), io.host, io.numel, io.nbytes, io.convert);
  }
  if (tracer != nullptr) {
    tracer->log_delegate_event(kInputCopyEvent, -1, nullptr, t0, t1);
    tracer->log_delegate_event(kSubmitEvent, -1, nullptr, t1, t2);
    tracer->log_delegate_event(kOutputCopyEvent, -1, nullptr, t2, platform_now_ns());
    report_ops(tracer, *d, t1, t2);
  }
  return Error::Ok;
}

void release_delegate(Delegate* d) {
  if (d == nullptr || d->context == nullptr) return;
  VkDevice dev = d->context->device();
  if (d->commands != VK_NULL_HANDLE) {
    std::lock_guard<std::mutex> guard(d->context->lock());
    vkFreeCommandBuffers(dev, d->context->command_pool(), 1, &d->commands);
  }
  if (d->fence != VK_NULL_HANDLE) vkDestroyFence(dev, d->fence, nullptr);
  if (d->queries != VK_NULL_HANDLE) vkDestroyQueryPool(dev, d->queries, nullptr);
  if (d->descriptor_pool != VK_NULL_HANDLE) vkDestroyDescriptorPool(dev, d->descriptor_pool, nullptr);
  if (d->staging != VK_NULL_HANDLE) vkDestroyBuffer(dev, d->staging, nullptr);
  if (d->staging_memory != VK_NULL_HANDLE) vkFreeMemory(dev, d->staging_memory, nullptr);
  if (d->pool != VK_NULL_HANDLE) vkDestroyBuffer(dev, d->pool, nullptr);
  if (d->pool_memory != VK_NULL_HANDLE) vkFreeMemory(dev, d->pool_memory, nullptr);
  *d = Delegate{};
}

}  // namespace vulkan
}  // namespace torchedge
