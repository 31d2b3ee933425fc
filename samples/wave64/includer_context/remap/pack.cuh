// Included by pack.cu after compat.cuh, which maps the *_sync shuffles to mask-less ones: analyzed in pack.cu's
// context (porter/includers.py), no 32-bit mask reaches a *_sync intrinsic. Each step stays inside a 4-lane group.
#pragma once

__device__ inline unsigned pack4(unsigned q, int t) {
  // ok: W64-003
  q |= __shfl_down_sync(0x55555555, q, 1) << 8;
  // ok: W64-003
  q |= __shfl_down_sync(0x11111111, q, 2) << 16;
  return q;
}

__device__ inline float quad_max(float v) {
  // ok: W64-003
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 2));
  // ok: W64-003
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 1));
  return v;
}
