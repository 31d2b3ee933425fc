// A header's block-level helpers, analyzed on their own (nothing here calls them) and through their callers in
// header_helpers.hip. A pointer parameter that threads write at their own slot, then read back at other threads'
// slots after __syncthreads(), is taken for shared memory; its element type, a template parameter here, is tried
// at every scalar size and the least conflicted reported.
#pragma once
#include "hip/hip_runtime.h"

// Bug: the first 32 threads each sum their own 32-element slice: at step i every lane reads element i of its
// slice, so all of them hit one bank (32-way for 4-byte elements, 8-way even for bytes).
template <typename T>
__device__ T slice_sum(T* part, T v) {
  // ok: LDS-001
  part[threadIdx.x] = v;
  __syncthreads();
  T acc = T(0);
  if (threadIdx.x < 32) {
    for (int i = 0; i < 32; ++i) {
      // expect: LDS-001
      acc += part[threadIdx.x * 32 + i];
    }
  }
  __syncthreads();
  return acc;
}

// The same partials walked with the lane innermost (element i * 32 + lane): consecutive lanes, consecutive banks.
template <typename T>
__device__ T strided_sum(T* part, T v) {
  // ok: LDS-001
  part[threadIdx.x] = v;
  __syncthreads();
  T acc = T(0);
  if (threadIdx.x < 32) {
    for (int i = 0; i < 8; ++i) {
      // ok: LDS-001
      acc += part[i * 32 + threadIdx.x];
    }
  }
  __syncthreads();
  return acc;
}

// Not taken for shared memory: no barrier, every thread rescales only its own row (a global buffer, most likely),
// although the same walk on LDS would be 32-way.
__device__ void scale_rows(float* rows, float s) {
  for (int i = 0; i < 32; ++i) {
    // ok: LDS-001
    rows[threadIdx.x * 32 + i] *= s;
  }
}
