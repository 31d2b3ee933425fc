// apex's reduce_block_into_lanes: the block folds its partials into the first wavefront (tid < warpSize), which
// then reduces them with shuffles into `lanes` lanes. ff232fb8 moved the sum variant's loop to warpSize / 2 but
// left the max variant at 16.
#include <hip/hip_runtime.h>

// Bug: all 64 lanes of the first wavefront hold partials, but the tree from 16 combines each half by itself, so
// lanes 0..lanes-1 miss the partials of lanes 32-63.
template <typename T>
__device__ T block_max_into_lanes(T* x, T val, int lanes = 1) {
  int tid = threadIdx.x + threadIdx.y * blockDim.x;
  x[tid] = val;
  __syncthreads();
  T final = val;
  if (tid < warpSize) {
    final = fmaxf(fabsf(x[tid]), fabsf(x[tid + warpSize]));
    // expect: W64-001
    for (int i = 16; i >= lanes; i >>= 1) final = fmaxf(fabsf(final), fabsf(__shfl_down(final, i)));
  }
  return final;
}

// Correct (the sum variant after ff232fb8): the tree starts at half the wavefront.
template <typename T>
__device__ T block_sum_into_lanes(T* x, T val, int lanes = 1) {
  int tid = threadIdx.x + threadIdx.y * blockDim.x;
  x[tid] = val;
  __syncthreads();
  T final = val;
  if (tid < warpSize) {
    final = x[tid] + x[tid + warpSize];
    // ok: W64-001
    for (int i = warpSize / 2; i >= lanes; i >>= 1) final = final + __shfl_down(final, i);
  }
  return final;
}

// Correct: 32-lane warps leave at most 32 partials, read by lanes 0-31 of the first wavefront; lanes 32-63 add 0.
__device__ float block_sum_warps32(float* partial, float v) {
  int lane = threadIdx.x % 32;
  int warps = blockDim.x / 32;
  if (lane == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < warpSize) {
    v = threadIdx.x < warps ? partial[threadIdx.x] : 0.0f;
    // ok: W64-001
    for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o);
  }
  return v;
}
