// A project's memory helpers (included by header_helpers.hip): each makes one access through the pointer it is
// given, whatever memory that points into; on __shared__ memory the call is an LDS access at the call site.
#pragma once
#include "hip/hip_runtime.h"

// 16 bytes through a reinterpret_cast: one ds_read_b128 / ds_write_b128 per lane on LDS.
template <class T>
__device__ inline float4 load16(const T* p) {
  return *reinterpret_cast<const float4*>(p);
}

template <class T>
__device__ inline void store16(T* p, float4 v) {
  *reinterpret_cast<float4*>(p) = v;
}

// One element at a subscript the caller passes.
__device__ inline float load_at(const float* p, int i) { return p[i]; }

// A member function that moves data through the pointer it is given (the object itself is a register tile).
struct Frag4 {
  float4 v;
  __device__ void load(const float* p) { v = *reinterpret_cast<const float4*>(p); }
  __device__ void store(float* p) const { *reinterpret_cast<float4*>(p) = v; }
};

// Eight floats per lane moved as two float4 (a vec_t<float, 8> shape): on LDS, two ds_read_b128 / ds_write_b128.
struct Frag8 {
  float4 v[2];
  // the two halves side by side: 32 contiguous bytes per lane
  __device__ void store(float* p) const {
    for (int i = 0; i < 2; ++i) reinterpret_cast<float4*>(p)[i] = v[i];
  }
  // the two halves `stride` floats apart (each half of the tile holds one float4 per lane)
  __device__ void store_split(float* p, int stride) const {
    for (int i = 0; i < 2; ++i) *reinterpret_cast<float4*>(p + i * stride) = v[i];
  }
};
