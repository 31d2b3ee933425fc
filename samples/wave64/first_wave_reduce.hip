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

// A wavefront-wide butterfly: its first step exchanges lanes 32 apart on gfx942.
template <typename T>
__device__ T wave_sum(T v) {
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  return v;
}

// Bug: the tree folds the block down to 64 partials and hands the last step to the first 32 threads, a warp on
// NVIDIA; on gfx942 the wavefront-wide butterfly then reads lanes 32-63, which do not run that branch.
__global__ void block_sum_last_warp(const float* in, float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned h = blockDim.x / 2; h > 32; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x < 32) {
    float v = s[threadIdx.x] + s[threadIdx.x + 32];
    // expect: W64-007
    v = wave_sum(v);
    float m = v;
    // expect: W64-007
    for (int o = warpSize / 2; o > 0; o /= 2) m = fmaxf(m, __shfl_down(m, o));
    if (threadIdx.x == 0) out[blockIdx.x] = v + m;
  }
}

// Correct: the whole first wavefront runs the butterfly, or 32 threads run a tree that starts at 16.
__global__ void block_sum_first_wave(const float* in, float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < warpSize) {
    // ok: W64-007
    float v = wave_sum(s[threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
  if (threadIdx.x < 32) {
    float v = s[threadIdx.x];
    // ok: W64-007
    for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o, 32);
    if (threadIdx.x == 0) out[blockIdx.x] += v;
  }
}

// Correct: with a y extent, threadIdx.x < 32 may hold every lane of a wavefront (32 x 2 blocks).
__global__ void rows_of_32(const float* in, float* out) {
  float v = in[(blockIdx.x * blockDim.y + threadIdx.y) * 32 + threadIdx.x];
  if (threadIdx.x < 32) {
    // ok: W64-007
    v = wave_sum(v);
  }
  if (threadIdx.x == 0) out[blockIdx.x * blockDim.y + threadIdx.y] = v;
}
