// Included by pack.cu, which defines a constant first but maps no shuffle: analyzed in its context all the same,
// and each 32-bit mask reaches the real *_sync intrinsic, which takes 64-bit masks on ROCm.
#pragma once

__device__ inline unsigned pack2(unsigned q) {
  // expect: W64-003
  return q | (__shfl_down_sync(0x55555555, q, 1) << 16);
}

__device__ inline float pair_max(float v) {
  // expect: W64-003
  return fmaxf(v, __shfl_xor_sync(0xffffffff, v, 1));
}
