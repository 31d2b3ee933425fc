#include "hip/hip_runtime.h"
// row_reduce, predicate count (row_count): counts[r] = number of j with x[r, j] > threshold, row-major fp32 in, int32 out;
//   threshold is a run-time argument. One block of BLOCK_SIZE threads per row, shared-memory tree sum.
// Launcher: int launch_row_count_above(const float* x, int* counts, int M, int N, float threshold)

#define BLOCK_SIZE 256

__global__ void row_count_above(const float* __restrict__ x, int* __restrict__ counts, int M, int N,
                                float threshold) {
  __shared__ int red[BLOCK_SIZE];
  const float* xr = x + (size_t)blockIdx.x * N;
  int c = 0;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) c += xr[j] > threshold ? 1 : 0;
  red[threadIdx.x] = c;
  __syncthreads();
  for (int s = BLOCK_SIZE / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) counts[blockIdx.x] = red[0];
}

extern "C" int launch_row_count_above(const float* x, int* counts, int M, int N, float threshold) {
  hipLaunchKernelGGL(row_count_above, dim3(M), dim3(BLOCK_SIZE), 0, 0, x, counts, M, N, threshold);
  return (int)hipGetLastError();
}
