#include "hip/hip_runtime.h"
// row_reduce (naive): y[M] = reduce(x[M,N], last dim), row-major fp32; op: 0 = sum, 1 = max, 2 = mean.
//   One thread per row walks the N columns serially (uncoalesced across threads; the baseline).
// Launcher: int launch_row_reduce_naive(const float* x, float* y, int M, int N, int op)
//   x, y: device pointers; returns the hipGetLastError() code (0 = success).

#include <cfloat>

#define BLOCK_SIZE 128

template <int OP>
__global__ void row_reduce_naive(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M) return;
  const float* xr = x + (size_t)row * N;
  float acc = OP == 1 ? -FLT_MAX : 0.0f;
  for (int j = 0; j < N; ++j) {
    if (OP == 1) {
      acc = fmaxf(acc, xr[j]);
    } else {
      acc += xr[j];
    }
  }
  if (OP == 2) acc /= (float)N;
  y[row] = acc;
}

extern "C" int launch_row_reduce_naive(const float* x, float* y, int M, int N, int op) {
  dim3 grid((M + BLOCK_SIZE - 1) / BLOCK_SIZE);
  if (op == 0) {
    row_reduce_naive<0><<<grid, BLOCK_SIZE>>>(x, y, M, N);
  } else if (op == 1) {
    row_reduce_naive<1><<<grid, BLOCK_SIZE>>>(x, y, M, N);
  } else {
    row_reduce_naive<2><<<grid, BLOCK_SIZE>>>(x, y, M, N);
  }
  return (int)hipGetLastError();
}
