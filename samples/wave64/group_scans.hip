// Scans and butterflies in code that also numbers lanes by the wavefront (a 64-bit bitmap per wavefront below).
#include "hip/hip_runtime.h"

// Correct: the scan step is guarded by the 32-lane id, so lane 32 + k adds lane 32 + k - d only when k >= d: each
// 32-lane group is scanned on its own, and the group totals go through sums[] by the same 32-lane numbering.
__device__ void group_prefix(int& v, int* sums) {
  const int group = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  for (int d = 1; d < 32; d *= 2) {
    // ok: W64-001, W64-007
    const int t = __shfl_up(v, d);
    if (lane >= d) v += t;
  }
  if (lane == 31) sums[group] = v;
  __syncthreads();
  if (group > 0) v += sums[group - 1];
}

// Bug: the same scan guarded by the wavefront lane stops after 32 lanes: lanes 32-63 never add lanes 0-31.
__device__ void wave_prefix(int& v, int* sums) {
  const int lane = threadIdx.x & (warpSize - 1);
  for (int d = 1; d < 32; d *= 2) {
    // expect: W64-001
    const int t = __shfl_up(v, d);
    if (lane >= d) v += t;
  }
  if (lane == warpSize - 1) sums[threadIdx.x / warpSize] = v;
}

__global__ void pack_bits(const int* in, int* out, unsigned long long* bits, int* sums) {
  const int lanex = threadIdx.x & 63;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  group_prefix(v, sums);
  int w = v;
  wave_prefix(w, sums);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + w;
  if (lanex == 0) bits[(blockIdx.x * blockDim.x + threadIdx.x) / 64] = __ballot(v > 0);
}

// Correct: the AND butterfly takes the offset-32 step too (a wave64 build adds it under #if __GFX9__).
__global__ void common_bits(const int* in, int* out) {
  const int lane = threadIdx.x % warpSize;
  int m = in[blockIdx.x * blockDim.x + threadIdx.x];
  m &= __shfl_xor(m, 1);
  m &= __shfl_xor(m, 2);
  m &= __shfl_xor(m, 4);
  m &= __shfl_xor(m, 8);
  // ok: W64-001
  m &= __shfl_xor(m, 16);
  m &= __shfl_xor(m, 32);
  if (lane == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / warpSize] = m;
}

// Bug: without the offset-32 step each 32-lane half ANDs only its own lanes.
__global__ void common_bits_half(const int* in, int* out) {
  const int lane = threadIdx.x % warpSize;
  int m = in[blockIdx.x * blockDim.x + threadIdx.x];
  m &= __shfl_xor(m, 1);
  m &= __shfl_xor(m, 2);
  m &= __shfl_xor(m, 4);
  m &= __shfl_xor(m, 8);
  // expect: W64-001
  m &= __shfl_xor(m, 16);
  if (lane == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / warpSize] = m;
}
