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

// A class template's partial specialization holds the reduction (Kokkos' HIPReductionsFunctor<F, false>): each
// thread stores through its own moved pointer, and after the barrier the first lanes gather one partial per
// 64-thread wavefront. Their 64-element lane stride puts lanes 0-3 of a 256-thread block in one bank (4-way for
// 4-byte elements). The element is the class's open `Scalar`; the caller hands on its own word pointer cast.
template <typename F, bool Wide>
struct Gatherer;

template <typename F>
struct Gatherer<F, false> {
  using Scalar = typename F::value_type;

  __device__ static void gather(Scalar v, Scalar* buf) {
    Scalar* const mine = buf + threadIdx.x;
    // ok: LDS-001
    *mine = v;
    __syncthreads();
    if (threadIdx.x * 64 < blockDim.x) {
      // expect: LDS-001
      *mine = buf[threadIdx.x * 64];
    }
  }

  __device__ static void run(unsigned* words, Scalar v) {
    Scalar* const all = reinterpret_cast<Scalar*>(words);
    gather(v, all);
  }
};

// The same gather with the partials stored side by side (one per wavefront, consecutive): no conflict.
template <typename F>
struct Gatherer<F, true> {
  using Scalar = typename F::value_type;

  __device__ static void gather(Scalar v, Scalar* buf) {
    Scalar* const mine = buf + threadIdx.x;
    if (threadIdx.x % 64 == 0) {
      // ok: LDS-001
      buf[threadIdx.x / 64] = v;
    }
    __syncthreads();
    if (threadIdx.x < blockDim.x / 64) {
      // ok: LDS-001
      *mine = buf[threadIdx.x];
    }
  }
};
