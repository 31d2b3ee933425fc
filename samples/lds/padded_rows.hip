#include "hip/hip_runtime.h"
#include "hip/hip_fp16.h"

// A staging buffer of 32 rows of 64 halves, each row padded by 8 (one 16-byte chunk), filled 16 bytes per lane:
// lane t stores chunk t % 8 of row t / 8. The chunk step (8 halves) divides the buffer into 256 x (8 + 1) as well,
// but the rows step by the padded 72, so the padding is used.
__global__ void stagePaddedRows(const uint4* src, unsigned* dst) {
  __shared__ __half stage[32 * (64 + 8)];
  int t = threadIdx.x;
  // ok: LDS-003
  *reinterpret_cast<uint4*>(stage + (t / 8) * 72 + (t % 8) * 8) = src[blockIdx.x * 64 + t];
  __syncthreads();
  // ok: LDS-003
  dst[blockIdx.x * 64 + t] = reinterpret_cast<const unsigned*>(stage + (t / 32) * 72)[t % 32];
}

// The same buffer filled with the unpadded row of 64 but read back with the padded 72: the two accesses name
// different elements.
__global__ void stageRowsBypassed(const uint4* src, unsigned* dst) {
  __shared__ __half stage[32 * (64 + 8)];
  int t = threadIdx.x;
  // expect: LDS-003
  *reinterpret_cast<uint4*>(stage + (t / 8) * 64 + (t % 8) * 8) = src[blockIdx.x * 64 + t];
  __syncthreads();
  // ok: LDS-003
  dst[blockIdx.x * 64 + t] = reinterpret_cast<const unsigned*>(stage + (t / 32) * 72)[t % 32];
}

void launchStages(const uint4* src, unsigned* dst, int n) {
  hipLaunchKernelGGL(stagePaddedRows, dim3(n), dim3(64), 0, 0, src, dst);
  hipLaunchKernelGGL(stageRowsBypassed, dim3(n), dim3(64), 0, 0, src, dst);
}
