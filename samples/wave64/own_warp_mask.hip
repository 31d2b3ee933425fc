// A cub-derived exchange that carries its own WarpMask, returning a 32-bit mask for 32-lane logical warps:
// the unqualified call runs that copy, not hipCUB's 64-bit one, so the unsigned int member loses nothing.
#include <hip/hip_runtime.h>

template <int LOGICAL_WARP_THREADS>
__device__ unsigned int WarpMask(unsigned int warp_id) {
  // ok: W64-004
  unsigned int member_mask = 0xFFFFFFFFu >> (32 - LOGICAL_WARP_THREADS);
  if (LOGICAL_WARP_THREADS < 32) member_mask <<= warp_id * LOGICAL_WARP_THREADS;
  return member_mask;
}

template <int LOGICAL_WARP_THREADS>
struct Exchange {
  unsigned int lane_id;
  // ok: W64-004
  const unsigned int member_mask;
  __device__ Exchange(unsigned int warp_id)
      : lane_id(threadIdx.x % LOGICAL_WARP_THREADS), member_mask(WarpMask<LOGICAL_WARP_THREADS>(warp_id)) {}
};

__global__ void exchange(int* out) {
  Exchange<16> ex(threadIdx.x / 16);
  out[threadIdx.x] = ex.lane_id;
}
