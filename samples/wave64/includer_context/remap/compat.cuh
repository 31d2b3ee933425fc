// A project's ROCm compatibility header (exllamav2's compat.cuh): on ROCm the CUDA *_sync shuffles become the
// mask-less HIP ones, so the 32-bit masks its users write never reach a *_sync intrinsic.
#pragma once
#include <hip/hip_runtime.h>

#if defined(USE_ROCM) || defined(__HIP_PLATFORM_AMD__)
#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)
#define __shfl_down_sync(mask, var, delta) __shfl_down(var, delta)
#endif
