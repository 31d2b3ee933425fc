// Host launch math that counts 32-thread warps for kernels that number their lanes in 32-lane groups.
#include <hip/hip_runtime.h>

// One 32-lane group per 32 experts; its winner is broadcast at the default width, which reads lane 0 of the
// wavefront in the upper group as well. The broadcast is the line to change (width 32): the groups stay, and
// the host's count of them stays right.
__global__ void pick_per_group(const float* score, int* best, int n) {
  int lane = threadIdx.x % 32;
  int group = threadIdx.x / 32;
  int i = group * 32 + lane;
  float v = i < n ? score[i] : -1.0f;
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_down(v, o, 32));
  // expect: W64-001, W64-007
  v = __shfl(v, 0);
  if (lane == 0) best[group] = (int)v;
}

void launch_pick(const float* score, int* best, int n) {
  // ok: W64-009
  int num_warps = (n + 31) / 32;
  // ok: W64-009
  pick_per_group<<<1, num_warps * 32>>>(score, best, n);
}
