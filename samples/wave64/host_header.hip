// Host code reading a width macro that a header chooses with an architecture test (arch_width.h).
#include <hip/hip_runtime.h>
#include "arch_width.h"

#define TILE_LANES (2 * TILE_WARP)

__global__ void rows_kernel(float* x) {
  // ok: W64-011
  x[threadIdx.x % TILE_WARP] += 1.0f;
}

void launch_rows(float* x, int m) {
  int num_blocks = (m + 3) / 4;
  // expect: W64-011
  if (TILE_WARP == 64) num_blocks = (m + 1) / 2;
  // expect: W64-011
  int lanes = TILE_LANES;
  // ok: W64-011
  int rows = ROWS_PER_BLOCK * num_blocks;
  rows_kernel<<<rows, lanes>>>(x);
}
