#include "hip/hip_runtime.h"
// softmax (naive): y[M,N] = softmax(x[M,N]) over the last dim, row-major fp32, with max subtraction:
//   y[i,j] = exp(x[i,j] - max_j x[i,:]) / sum_j exp(x[i,j] - max_j x[i,:]).
//   One thread per row, three serial passes over the row (max, sum of exponentials, normalize).
// Launcher: int launch_softmax_naive(const float* x, float* y, int M, int N)
//   x, y: device pointers (may not alias); returns the hipGetLastError() code (0 = success).

#define BLOCK_SIZE 128

__global__ void softmax_naive(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const float* xr = x + (size_t)row * N;
  float* yr = y + (size_t)row * N;
  float m = -INFINITY;
  for (int j = 0; j < N; ++j) m = fmaxf(m, xr[j]);
  float s = 0.0f;
  for (int j = 0; j < N; ++j) s += expf(xr[j] - m);
  float inv = 1.0f / s;
  for (int j = 0; j < N; ++j) yr[j] = expf(xr[j] - m) * inv;
}

extern "C" int launch_softmax_naive(const float* x, float* y, int M, int N) {
  int blocks = (M + BLOCK_SIZE - 1) / BLOCK_SIZE;
  hipLaunchKernelGGL(softmax_naive, dim3(blocks), dim3(BLOCK_SIZE), 0, 0, x, y, M, N);
  return (int)hipGetLastError();
}
