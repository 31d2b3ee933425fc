#include "hip/hip_runtime.h"
// transpose (shared-memory tile): out[cols, rows] = in[rows, cols]^T, both row-major fp32.
//   A block of TILE_DIM x BLOCK_ROWS threads moves one TILE_DIM x TILE_DIM tile through shared memory so that
//   both the global read and the global write are coalesced; the tile row is padded by one float (+1) so the
//   column-wise shared read does not hit one bank TILE_DIM times.
// Launcher: int launch_transpose_tiled(const float* in, float* out, int rows, int cols)
//   in, out: device pointers (may not alias); returns the hipGetLastError() code (0 = success).

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < cols && (y + j) < rows) tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * cols + x];
  }
  __syncthreads();

  x = blockIdx.y * TILE_DIM + threadIdx.x;  // transposed block offset
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    if (x < rows && (y + j) < cols) out[(size_t)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

extern "C" int launch_transpose_tiled(const float* in, float* out, int rows, int cols) {
  dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
  dim3 block(TILE_DIM, BLOCK_ROWS);
  hipLaunchKernelGGL(transpose_tiled, grid, block, 0, 0, in, out, rows, cols);
  return (int)hipGetLastError();
}
