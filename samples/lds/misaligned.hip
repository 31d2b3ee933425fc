// A sliding window over a byte tile: each thread of a 16x16 block owns 8 pixels of a 128-byte row but reads
// 16 bytes from its own start, so every second lane's 16-byte vector begins 8 bytes off a 16-byte boundary.
// The pointer type promises the alignment, so the compiler still emits ds_read_b128; how gfx942 groups the
// lanes of such a misaligned read is not documented. On NVIDIA the same read is a misaligned-address fault, not
// a conflict-free layout: the finding is LDS-001's, one confidence step lower, and no padding is proposed.
#include "hip/hip_runtime.h"

#define TILE_Y 16
#define TILE_X 128

__global__ void windowSum(unsigned* out, const uint2* in) {
  __shared__ unsigned char tile[TILE_Y + 2][TILE_X];
  int tx = threadIdx.x, ty = threadIdx.y;
  // ok: LDS-001, LDS-002 (each lane writes its own 8 aligned bytes: a 128-byte row per 16 lanes)
  *reinterpret_cast<uint2*>(&tile[ty][tx * 8]) = in[ty * 16 + tx];
  __syncthreads();
  // expect: LDS-001
  // ok: LDS-002 (not conflict-free on NVIDIA: a fault there)
  uint4 wide = *reinterpret_cast<const uint4*>(&tile[ty + 1][tx * 8]);
  // ok: LDS-001, LDS-002 (the aligned 8-byte read of the same window start: one 128-byte row per 16 lanes)
  uint2 half = *reinterpret_cast<const uint2*>(&tile[ty + 2][tx * 8]);
  out[ty * 16 + tx] = wide.x + wide.y + wide.z + wide.w + half.x + half.y;
}

void launch(unsigned* out, const uint2* in) {
  hipLaunchKernelGGL(windowSum, dim3(1), dim3(16, 16), 0, 0, out, in);
}
