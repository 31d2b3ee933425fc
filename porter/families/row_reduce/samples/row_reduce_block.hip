#include "hip/hip_runtime.h"
// row_reduce (shared-memory + warp shuffle): y[M] = reduce(x[M,N], last dim), row-major fp32;
//   op: 0 = sum, 1 = max, 2 = mean. One block of BLOCK_SIZE threads per row: each thread folds a strided slice,
//   each 32-lane warp reduces with __shfl_down_sync, warp leaders meet in shared memory, warp 0 finishes.
// Launcher: int launch_row_reduce_block(const float* x, float* y, int M, int N, int op)
//   x, y: device pointers; grid = M blocks; returns the hipGetLastError() code (0 = success).

#include <cfloat>

#define BLOCK_SIZE 256
#define WARP_SIZE 32

template <int OP>
__device__ __forceinline__ float combine(float a, float b) {
  return OP == 1 ? fmaxf(a, b) : a + b;
}

template <int OP>
__device__ __forceinline__ float warp_reduce(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    // expect: W64-003
    v = combine<OP>(v, __shfl_down_sync(0xffffffff, v, offset));
  return v;
}

template <int OP>
__global__ void row_reduce_block(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  __shared__ float warp_vals[BLOCK_SIZE / WARP_SIZE];
  const float identity = OP == 1 ? -FLT_MAX : 0.0f;
  int row = blockIdx.x;
  int lane = threadIdx.x % WARP_SIZE;
  int warp = threadIdx.x / WARP_SIZE;
  const float* xr = x + (size_t)row * N;

  float v = identity;
  for (int j = threadIdx.x; j < N; j += BLOCK_SIZE) v = combine<OP>(v, xr[j]);
  v = warp_reduce<OP>(v);
  if (lane == 0) warp_vals[warp] = v;
  __syncthreads();

  if (warp == 0) {
    v = lane < BLOCK_SIZE / WARP_SIZE ? warp_vals[lane] : identity;
    v = warp_reduce<OP>(v);
    if (lane == 0) y[row] = OP == 2 ? v / (float)N : v;
  }
}

extern "C" int launch_row_reduce_block(const float* x, float* y, int M, int N, int op) {
  if (op == 0) {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(row_reduce_block<0>), dim3(M), dim3(BLOCK_SIZE), 0, 0, x, y, M, N);
  } else if (op == 1) {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(row_reduce_block<1>), dim3(M), dim3(BLOCK_SIZE), 0, 0, x, y, M, N);
  } else {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(row_reduce_block<2>), dim3(M), dim3(BLOCK_SIZE), 0, 0, x, y, M, N);
  }
  return (int)hipGetLastError();
}
