// Code written for AMD wavefronts (it calls the amdgcn cross-lane builtins: DPP moves, ds_bpermute) may number
// lanes in 32-lane halves on purpose and still shuffle across the whole 64-lane wavefront: the halves are
// addressed knowingly, not left over from a CUDA warp. Hipified code with the same halves and no such builtin
// is still reported.
#include "hip/hip_runtime.h"

// Correct on gfx942: sorts 64 scores held two per lane; lanes 0-31 take the first list and lanes 32-63 the second,
// each reading across the wavefront, after a DPP max over quads.
__global__ void halves_by_design(const float* in, float* out) {
  int half_lane = threadIdx.x % 32;
  float a = in[threadIdx.x];
  float b = in[threadIdx.x + 64];
  float m = __builtin_bit_cast(float, __builtin_amdgcn_mov_dpp(__builtin_bit_cast(int, a), 0xb1, 0xf, 0xf, true));
  a = fmaxf(a, m);
  // ok: W64-007
  float from_a = __shfl(a, half_lane ^ 48);
  // ok: W64-007
  float from_b = __shfl(b, half_lane ^ 48);
  float mine = threadIdx.x < 32 ? from_a : from_b;
  // ok: W64-007
  out[threadIdx.x] = __shfl(mine, 7);
}

// Bug: the same halves in code without any AMD builtin (a CUDA warp of 32 kept by hipify): the broadcast of lane
// 7 gives lanes 32-63 the value of the first group's lane 7.
__global__ void halves_from_cuda(const float* in, float* out) {
  int lane = threadIdx.x % 32;
  float v = in[threadIdx.x] * (lane + 1);
  // expect: W64-007
  out[threadIdx.x] = __shfl(v, 7);
}
