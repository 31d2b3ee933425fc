// warpSize in a shared-memory index: whether or not it is a compile-time constant, at run time it is the
// wavefront size of the target (64 on gfx942), so the lane pattern is known.
#include "hip/hip_runtime.h"

__global__ void __launch_bounds__(256) perWaveRows(const float* in, float* out) {
  __shared__ float rows[64 * 64];
  const int lane = threadIdx.x % warpSize;
  const int wave = threadIdx.x / warpSize;
  // ok: LDS-001
  rows[wave * warpSize + lane] = in[threadIdx.x];
  __syncthreads();
  // Each lane walks its own row of warpSize floats: every lane starts on bank 0.
  // expect: LDS-001
  out[threadIdx.x] = rows[lane * warpSize + wave];
}
