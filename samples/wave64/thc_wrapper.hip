// Calls of a project's shuffle wrappers (thc_device_utils.h) are judged as the shuffle the wrapper makes, at the
// call, with the wrapper's defaults: width warpSize (64), and on ROCm no mask at all.
#include <hip/hip_runtime.h>
#include "thc_device_utils.h"

// Bug: lanes are numbered by the wavefront, but the butterfly starts at 16: lane 0 sums lanes 0-31 only.
__global__ void block_sum_wrapped(const float* __restrict__ in, float* out, int n) {
  __shared__ float partial[16];
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  float v = tid < n ? in[tid] : 0.0f;
  // expect: W64-001
  for (int offset = 16; offset > 0; offset /= 2) {
    v += WARP_SHFL_XOR(v, offset);
  }
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < blockDim.x / warpSize; ++w) s += partial[w];
    atomicAdd(out, s);
  }
}

// Correct: 32-lane rows, and the width 32 passed through the wrapper keeps every shuffle inside its row.
__global__ void row_max_wrapped(const float* __restrict__ in, float* out) {
  // ok: W64-002
  int row = threadIdx.x / 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  // ok: W64-001
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, WARP_SHFL_XOR(v, offset, 32));
  // ok: W64-007
  v = WARP_SHFL(v, 0, 32);
  // ok: W64-002
  if (threadIdx.x % 32 == 0) out[blockIdx.x * 8 + row] = v;
}

// Bug: a broadcast from lane 0 of each 32-lane row with the wrapper's default width (warpSize): the second row of
// each wavefront reads the first row's lane 0.
__device__ float row_leader(float v) {
  int row = threadIdx.x / 32;
  // expect: W64-007
  return WARP_SHFL(v, 0) + row;
}

// Not a wrapper: shfl_plus adds to what it shuffles, so its call is not read as a shuffle (the shuffle inside it
// is the header's, reported where the header is analyzed).
__device__ float row_leader_plus(float v) {
  int row = threadIdx.x / 32;
  // ok: W64-007
  return shfl_plus(v, 0) + row;
}
