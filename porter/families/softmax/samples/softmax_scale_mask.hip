#include "hip/hip_runtime.h"
// softmax of scaled, masked scores (attention-style): y[r, c] = softmax_c(x[r, c] * scale + mask[r, c]) over the
//   last dim, row-major fp32. scale is a run-time argument (1/sqrt(d) in attention), mask an additive [M, N] tensor.
//   One block of BLOCK_SIZE threads per row; max and sum are shared-memory tree reductions.
// Launcher: int launch_softmax_scale_mask(const float* x, const float* mask, float* y, int M, int N, float scale)

#define BLOCK_SIZE 256

__global__ void softmax_scale_mask(const float* __restrict__ x, const float* __restrict__ mask, float* __restrict__ y,
                                   int M, int N, float scale) {
  __shared__ float red[BLOCK_SIZE];
  const size_t row = blockIdx.x;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) m = fmaxf(m, x[row * N + j] * scale + mask[row * N + j]);
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  const float mx = red[0];
  __syncthreads();

  float sum = 0.0f;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) sum += expf(x[row * N + j] * scale + mask[row * N + j] - mx);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float total = red[0];
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE)
    y[row * N + j] = expf(x[row * N + j] * scale + mask[row * N + j] - mx) / total;
}

extern "C" int launch_softmax_scale_mask(const float* x, const float* mask, float* y, int M, int N, float scale) {
  hipLaunchKernelGGL(softmax_scale_mask, dim3(M), dim3(BLOCK_SIZE), 0, 0, x, mask, y, M, N, scale);
  return (int)hipGetLastError();
}
