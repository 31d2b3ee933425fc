#include "hip/hip_runtime.h"
// transpose (naive): out[cols, rows] = in[rows, cols]^T, both row-major fp32: out[c * rows + r] = in[r * cols + c].
//   One thread per element; reads are coalesced, writes are strided by `rows`.
// Launcher: int launch_transpose_naive(const float* in, float* out, int rows, int cols)
//   in, out: device pointers (may not alias); returns the hipGetLastError() code (0 = success).

#define BLOCK_DIM_X 32
#define BLOCK_DIM_Y 8

__global__ void transpose_naive(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

extern "C" int launch_transpose_naive(const float* in, float* out, int rows, int cols) {
  dim3 block(BLOCK_DIM_X, BLOCK_DIM_Y);
  dim3 grid((cols + BLOCK_DIM_X - 1) / BLOCK_DIM_X, (rows + BLOCK_DIM_Y - 1) / BLOCK_DIM_Y);
  hipLaunchKernelGGL(transpose_naive, grid, block, 0, 0, in, out, rows, cols);
  return (int)hipGetLastError();
}
