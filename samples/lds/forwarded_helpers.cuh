// A header's block routines reached only through thin wrappers that pass their own pointer parameter on (nothing
// here launches them): the wrappers say nothing of the memory, so a routine that exchanges values between threads
// through the pointer across __syncthreads() is taken for a shared-memory one, with the assumed block, and each
// finding says so (lower confidence). A lane id read through an argument-less getter is followed into it.
#pragma once
#include "hip/hip_runtime.h"

__device__ inline int lane_of_thread() { return __lane_id(); }

// Bug: compare-exchange of pairs `stride` apart at pos = 2 * t - (t & (stride - 1)): for a stride below 32 the
// lanes of a phase touch runs of `stride` keys with gaps of `stride`, 64 dwords over 32 banks: 2-way conflicts.
__device__ void pair_merge(float* keys) {
  for (int stride = 16; stride > 0; stride /= 2) {
    const int t = threadIdx.x;
    const int pos = 2 * t - (t & (stride - 1));
    // expect: LDS-001
    const float a = keys[pos];
    // expect: LDS-001
    const float b = keys[pos + stride];
    // expect: LDS-001
    keys[pos] = fminf(a, b);
    // expect: LDS-001
    keys[pos + stride] = fmaxf(a, b);
    __syncthreads();
  }
}

// The wrapper: it hands its own pointer on, one list after another (the same shift in every lane).
__device__ void merge_lists(float* keys, int lists) {
  for (int i = 0; i < lists; ++i) {
    pair_merge(keys + i * 2 * blockDim.x);
  }
}

// Each wavefront's first lane leaves a partial; after the barrier the first wavefront reads them back, one per
// lane through the lane-id getter: consecutive slots, no conflict.
__device__ float partial_sum(float v, float* part) {
  const int lane = lane_of_thread();
  const int wave = threadIdx.x / warpSize;
  if (lane == 0) {
    // ok: LDS-001
    part[wave] = v;
  }
  __syncthreads();
  if (wave == 0) {
    // ok: LDS-001
    v = lane < blockDim.x / warpSize ? part[lane] : 0.0f;
  }
  return v;
}

__device__ float block_sum(float v, float* part) { return partial_sum(v, part); }

// Bug: after the barrier each lane reads the head of its own 32-float row (lane id from the getter): every lane of
// a phase on bank 0.
__device__ float row_head(float v, float* rows) {
  // ok: LDS-001
  rows[threadIdx.x] = v;
  __syncthreads();
  // expect: LDS-001
  return rows[lane_of_thread() * 32];
}
