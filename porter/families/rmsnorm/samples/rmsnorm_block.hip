#include "hip/hip_runtime.h"
// rmsnorm (shared-memory + warp shuffle): y[M,N] = x / sqrt(mean(x^2) + eps) * gamma[N], row-major fp32.
//   One block per row; the row is staged once in dynamic shared memory (N floats: N <= 12288 for 48 KiB),
//   the sum of squares reduces per warp with __shfl_xor_sync and across warps in shared memory.
// Launcher: int launch_rmsnorm_block(const float* x, const float* gamma, float* y, int M, int N, float eps)
//   x, gamma, y: device pointers; grid = M blocks, dynamic shared = N * sizeof(float); returns the
//   hipGetLastError() code (0 = success).

#define BLOCK_SIZE 256
#define WARPS_PER_BLOCK (BLOCK_SIZE / 32)

__global__ void rmsnorm_block(const float* __restrict__ x, const float* __restrict__ gamma, float* __restrict__ y,
                              int M, int N, float eps) {
  extern __shared__ float srow[];
  __shared__ float warp_sums[WARPS_PER_BLOCK];
  __shared__ float s_inv_rms;
  const float* xr = x + (size_t)blockIdx.x * N;
  float* yr = y + (size_t)blockIdx.x * N;
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x / 32;

  float ss = 0.0f;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) {
    float v = xr[j];
    srow[j] = v;
    ss += v * v;
  }
  // expect: W64-003
  for (int mask = 16; mask >= 1; mask >>= 1) ss += __shfl_xor_sync(0xffffffff, ss, mask);
  if (lane == 0) warp_sums[warp] = ss;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < WARPS_PER_BLOCK; ++w) total += warp_sums[w];
    s_inv_rms = rsqrtf(total / N + eps);
  }
  __syncthreads();
  float inv_rms = s_inv_rms;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) yr[j] = srow[j] * inv_rms * gamma[j];
}

extern "C" int launch_rmsnorm_block(const float* x, const float* gamma, float* y, int M, int N, float eps) {
  size_t smem = (size_t)N * sizeof(float);
  hipLaunchKernelGGL(rmsnorm_block, dim3(M), dim3(BLOCK_SIZE), smem, 0, x, gamma, y, M, N, eps);
  return (int)hipGetLastError();
}
