// porter: hip2cuda.h -- compile hipified CUDA (as hipify-perl leaves it) with nvcc, unchanged.
// Use: nvcc -I <porter>/runtime ...; the hip/*.h files next to this one redirect `#include "hip/hip_runtime.h"`.
// It maps the HIP runtime API to CUDA's and HIP's mask-less cross-lane intrinsics to the CUDA *_sync forms.
// On NVIDIA warpSize is 32: code runs as written for NVIDIA, not as gfx942 (wave64) would run it.
// Debian's HIP nvidia_detail headers (5.2.3) do not compile against CUDA 13, hence this project-owned header.
// Part of porter (Apache-2.0).
#pragma once
#ifndef PORTER_HIP2CUDA_H
#define PORTER_HIP2CUDA_H

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cstdint>

#ifndef __HIP_PLATFORM_NVIDIA__
#define __HIP_PLATFORM_NVIDIA__ 1
#endif

// ---- types and status codes ---------------------------------------------------------------------------------
typedef cudaError_t hipError_t;
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaDeviceProp hipDeviceProp_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef __nv_bfloat16 hip_bfloat16;
typedef __nv_bfloat16 __hip_bfloat16;
typedef __nv_bfloat162 __hip_bfloat162;
#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipMemcpyHostToHost cudaMemcpyHostToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock

// ---- runtime API ---------------------------------------------------------------------------------------------
#define hipMalloc cudaMalloc
#define hipMallocManaged cudaMallocManaged
#define hipFree cudaFree
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemset cudaMemset
#define hipMemsetAsync cudaMemsetAsync
#define hipMemcpyToSymbol cudaMemcpyToSymbol
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceCount cudaGetDeviceCount
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipStreamCreate cudaStreamCreate
#define hipStreamDestroy cudaStreamDestroy
#define hipStreamSynchronize cudaStreamSynchronize
#define hipEventCreate cudaEventCreate
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipEventDestroy cudaEventDestroy
#define hipFuncSetAttribute(f, attr, v) cudaFuncSetAttribute((const void*)(f), (cudaFuncAttribute)(attr), (v))
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor

// ---- launches ------------------------------------------------------------------------------------------------
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define HIP_SYMBOL(x) x
#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)

// ---- cross-lane operations: HIP's mask-less forms -> CUDA *_sync over the full 32-lane warp ------------------
// HIP's __ballot / __activemask return 64-bit masks; widened here so `unsigned long long` code keeps its types.
#define PORTER_FULL_MASK 0xffffffffu
#define __shfl(...) __shfl_sync(PORTER_FULL_MASK, __VA_ARGS__)
#define __shfl_up(...) __shfl_up_sync(PORTER_FULL_MASK, __VA_ARGS__)
#define __shfl_down(...) __shfl_down_sync(PORTER_FULL_MASK, __VA_ARGS__)
#define __shfl_xor(...) __shfl_xor_sync(PORTER_FULL_MASK, __VA_ARGS__)
#define __ballot(pred) ((unsigned long long)__ballot_sync(PORTER_FULL_MASK, (pred)))
#define __any(pred) __any_sync(PORTER_FULL_MASK, (pred))
#define __all(pred) __all_sync(PORTER_FULL_MASK, (pred))
#define __activemask() ((unsigned long long)__activemask())

__device__ __forceinline__ unsigned int __lane_id() {
  unsigned int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

#endif  // PORTER_HIP2CUDA_H
