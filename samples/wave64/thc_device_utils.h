// THC/ATen-style shuffle wrappers (ATen/cuda/DeviceUtils.cuh; apex and DeepSpeed call them), here on the include
// path: their width defaults to warpSize and their 32-bit mask is not passed on ROCm.
#pragma once
#include <hip/hip_runtime.h>

template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR(T value, int laneMask, int width = warpSize, unsigned int mask = 0xffffffff) {
#if defined(__HIP_PLATFORM_AMD__)
  return __shfl_xor(value, laneMask, width);
#else
  return __shfl_xor_sync(mask, value, laneMask, width);
#endif
}

// The ROCm side only, as a hipified copy has it.
template <typename T>
__device__ __forceinline__ T WARP_SHFL(T value, int srcLane, int width = warpSize) {
  return __shfl(value, srcLane, width);
}

// Not a pure wrapper (it adds to the shuffled value): its calls are judged as calls, not as shuffles.
template <typename T>
__device__ __forceinline__ T shfl_plus(T value, int srcLane) {
  return __shfl(value, srcLane) + value;
}
