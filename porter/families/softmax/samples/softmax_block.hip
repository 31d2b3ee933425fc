#include "hip/hip_runtime.h"
// softmax (shared-memory + warp shuffle): y[M,N] = softmax(x[M,N]) over the last dim, row-major fp32, with max
//   subtraction. One block of BLOCK_SIZE threads per row; block-wide max and sum are each a butterfly
//   (__shfl_xor_sync) inside every 32-lane warp followed by a pass over the per-warp results in shared memory.
// Launcher: int launch_softmax_block(const float* x, float* y, int M, int N)
//   x, y: device pointers; grid = M blocks; returns the hipGetLastError() code (0 = success).

#define BLOCK_SIZE 256
#define NUM_WARPS (BLOCK_SIZE / 32)

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  // expect: W64-003
  for (int mask = 16; mask > 0; mask >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, mask));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  // expect: W64-003
  for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
  return v;
}

// Every thread gets the block-wide result; `scratch` holds NUM_WARPS floats.
__device__ float block_allreduce(float v, float* scratch, bool is_max) {
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  v = is_max ? warp_max(v) : warp_sum(v);
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float r = is_max ? -INFINITY : 0.0f;
  for (int w = 0; w < NUM_WARPS; ++w) r = is_max ? fmaxf(r, scratch[w]) : r + scratch[w];
  __syncthreads();  // scratch is reused by the next reduction
  return r;
}

__global__ void softmax_block(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  __shared__ float scratch[NUM_WARPS];
  const float* xr = x + (size_t)blockIdx.x * N;
  float* yr = y + (size_t)blockIdx.x * N;

  float m = -INFINITY;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) m = fmaxf(m, xr[j]);
  m = block_allreduce(m, scratch, true);

  float s = 0.0f;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) s += __expf(xr[j] - m);
  s = block_allreduce(s, scratch, false);

  float inv = 1.0f / s;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) yr[j] = __expf(xr[j] - m) * inv;
}

extern "C" int launch_softmax_block(const float* x, float* y, int M, int N) {
  hipLaunchKernelGGL(softmax_block, dim3(M), dim3(BLOCK_SIZE), 0, 0, x, y, M, N);
  return (int)hipGetLastError();
}
