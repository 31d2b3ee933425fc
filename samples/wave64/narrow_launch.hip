// Kernels that the host launches only on devices whose warp is 32 lanes wide.
#include <hip/hip_runtime.h>

// Correct on gfx942: a 32-lane variant that the host below launches only when the device's warp size is 32.
__device__ int rank_in_group32(int key) {
  // ok: W64-004
  const unsigned mask = (unsigned)__ballot(key != 0);
  // ok: W64-002
  const int lane = threadIdx.x % 32;
  // ok: W64-005
  return __popc(mask & ((1u << lane) - 1));
}

__global__ void ranks32(const int* keys, int* ranks) {
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = rank_in_group32(keys[blockIdx.x * blockDim.x + threadIdx.x]);
}

// The 64-lane variant, launched on every other device.
__global__ void ranks64(const int* keys, int* ranks) {
  const unsigned long long mask = __ballot(keys[blockIdx.x * blockDim.x + threadIdx.x] != 0);
  const int lane = threadIdx.x % warpSize;
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = __popcll(mask & ((1ull << lane) - 1));
}

// Bug: the same 32-lane code, launched whatever the device: on gfx942 lanes 32-63 count from a truncated mask.
__device__ int rank_in_group(int key) {
  // expect: W64-004
  const unsigned mask = (unsigned)__ballot(key != 0);
  const int lane = threadIdx.x % 32;
  // expect: W64-005
  return __popc(mask & ((1u << lane) - 1));
}

__global__ void ranks_any(const int* keys, int* ranks) {
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = rank_in_group(keys[blockIdx.x * blockDim.x + threadIdx.x]);
}

void rank_keys(const int* keys, int* ranks, int blocks) {
  int width = 0;
  hipDeviceGetAttribute(&width, hipDeviceAttributeWarpSize, 0);
  if (width == 32)
    ranks32<<<blocks, 256>>>(keys, ranks);
  else
    ranks64<<<blocks, 256>>>(keys, ranks);
  ranks_any<<<blocks, 256>>>(keys, ranks);
}
