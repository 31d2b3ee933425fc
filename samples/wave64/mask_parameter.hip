// A 32-bit mask handed in as a parameter: the parameter's declaration is the line to change, reported with its use.
#include <hip/hip_runtime.h>
#include <stdint.h>

template <typename T>
// expect: W64-003
__device__ T group_sum(const unsigned& mask, T v) {
  for (int o = 16; o > 0; o /= 2) {
    // expect: W64-003
    v += __shfl_down_sync(mask, v, o);
  }
  return v;
}

// ok: W64-003
__device__ float wave_sum(uint64_t mask, float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // ok: W64-003
    v += __shfl_down_sync(mask, v, o);
  }
  return v;
}
