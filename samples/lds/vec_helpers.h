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
