// A project that defines its own __shfl_xor_sync (llm.c's AMD fork does): the wrapper takes a 32-bit mask and
// ignores it, so the 0xFFFFFFFF its callers pass is harmless. HIP's intrinsic is not called.
#include <hip/hip_runtime.h>

template <typename T>
static __device__ __forceinline__ T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize) {
  return __shfl_xor(var, lane_mask, width);
}

__device__ float warp_sum(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // ok: W64-003
    v += __shfl_xor_sync(0xFFFFFFFF, v, o);
  }
  return v;
}

__device__ int warp_max(int v) {
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // expect: W64-003
    v = max(v, __shfl_down_sync(0xFFFFFFFF, v, o));
  }
  return v;
}
