// A project's reduction helpers, written for 32-lane CUDA warps (included by header_reductions.hip).
#pragma once
#include "hip/hip_runtime.h"

__device__ inline float warp_sum32(float v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  return v;
}

using warp_fn = float (*)(float);

// Block reduction over warps of the hardware width: lane 0 of each wavefront keeps its warp's partial.
template <warp_fn reduce>
__device__ inline float block_sum(float v) {
  __shared__ float partial[32];
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  v = reduce(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < (int)(blockDim.x / warpSize) ? partial[lane] : 0.0f;
  return reduce(v);
}

// One slot of a per-warp array, written through the pointer and the index the caller passes.
__device__ inline void put_slot(float* slots, int i, float v) { slots[i] = v; }

// The same 32-lane tree as a template, called from templates whose calls clang resolves only per instantiation.
template <typename T>
__device__ inline T warp_sum32_t(T v) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  return v;
}

// A free function named like a cooperative-groups member, wrapping the intrinsic (FBGEMM's vec_quant.cuh shape),
// and a tree that passes width 32 explicitly: right for 32-lane groups, half a row for a wavefront-wide one.
template <typename T>
__device__ inline T shfl_xor(unsigned mask, const T val, int lane_mask, int width = warpSize) {
  return __shfl_xor(val, lane_mask, width);
}
template <typename T>
__device__ inline T warp_sum_w32(T v, unsigned mask = 0xffffffffu) {
  for (int offset = 16; offset > 0; offset >>= 1) v += shfl_xor(mask, v, offset, 32);
  return v;
}
