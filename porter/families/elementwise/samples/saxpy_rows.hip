#include "hip/hip_runtime.h"
// elementwise (in-place accumulation, run-time scale): y[M,N] = a * x[M,N] + y[M,N] (saxpy over a row-major
//   matrix), fp32. y is read and written; a is a run-time scalar, as in BLAS saxpy.
//   One thread per element: blockDim = (256), grid = (ceil(N / 256), M); a block covers 256 columns of one row.
// Launcher: int launch_saxpy_rows(int M, int N, float a, const float* x, float* y)
//   x, y: device pointers (hipMalloc'd); returns the hipGetLastError() code (0 = success).

#define THREADS 256

__global__ void saxpy_rows(int M, int N, float a, const float* __restrict__ x, float* __restrict__ y) {
  int row = blockIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    size_t i = (size_t)row * N + col;
    y[i] = a * x[i] + y[i];
  }
}

extern "C" int launch_saxpy_rows(int M, int N, float a, const float* x, float* y) {
  dim3 grid((N + THREADS - 1) / THREADS, M);
  hipLaunchKernelGGL(saxpy_rows, grid, dim3(THREADS), 0, 0, M, N, a, x, y);
  return (int)hipGetLastError();
}
