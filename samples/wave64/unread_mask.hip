// A 32-bit mask from a ballot that is only handed to shuffle wrappers: harmless where the wrapper's body never
// reads its mask parameter (the lost lanes are read by nobody), a hazard where it does.
#include <hip/hip_runtime.h>

namespace gpu {
template <typename T>
__device__ T down_sync(unsigned mask, T val, int delta, int width = warpSize) {
  return __shfl_down(val, delta, width);
}
}  // namespace gpu

template <typename T>
__device__ T down_if_low(unsigned mask, T val, int delta) {
  return (mask & 1u) ? __shfl_down(val, delta) : val;
}

__device__ float keep(unsigned mask, float v) { return v; }

// Correct: the wrapper ignores the mask (called by its qualified name, in a template the file never instantiates
// and in a kernel).
template <typename T>
__device__ T sum_wrapped(T v, int len) {
  unsigned mask = 0u;
  // ok: W64-004
  mask = __ballot(threadIdx.x < len);
  for (int o = warpSize / 2; o > 0; o >>= 1) v += gpu::down_sync(mask, v, o);
  return v;
}

__global__ void sum_kernel(float *out, int len) {
  float v = out[threadIdx.x];
  // ok: W64-004
  unsigned mask = __ballot(threadIdx.x < len);
  for (int o = warpSize / 2; o > 0; o >>= 1) v += gpu::down_sync(mask, v, o);
  out[threadIdx.x] = v;
}

// Correct: a plain function that never reads its mask parameter.
__global__ void pass_through(float *out, int len) {
  // ok: W64-004
  unsigned mask = __ballot(threadIdx.x < len);
  out[threadIdx.x] = keep(mask, out[threadIdx.x]);
}

// Bug: this wrapper reads the mask.
__global__ void sum_masked(float *out, int len) {
  float v = out[threadIdx.x];
  // expect: W64-004
  unsigned mask = __ballot(threadIdx.x < len);
  for (int o = warpSize / 2; o > 0; o >>= 1) v += down_if_low(mask, v, o);
  out[threadIdx.x] = v;
}

// Bug: the mask is both passed to the ignoring wrapper and stored.
__global__ void stored(int *out, int len) {
  // expect: W64-004
  unsigned mask = __ballot(threadIdx.x < len);
  out[threadIdx.x] = gpu::down_sync(mask, out[threadIdx.x], 1);
  out[blockIdx.x] = mask;
}
