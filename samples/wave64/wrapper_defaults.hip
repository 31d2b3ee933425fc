// Shuffle wrappers whose width defaults to 32, judged by the code that leaves the width out.
#include "hip/hip_runtime.h"

// Correct: every call that leaves the width out is in 32-lane-group code (lane = tid % 32, results read at a
// group's lane 0, that is lanes 0 and 32): the default of 32 is the width these callers mean.
template <typename T>
// ok: W64-007
__device__ T down_in_group(T v, int delta, int width = 32) {
  return __shfl_down(v, delta, width);
}

__global__ void group_sums(const float* in, float* out) {
  const int lane = threadIdx.x % 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += down_in_group(v, o);
  if (lane == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

// Bug: a caller numbers lanes by the wavefront and leaves the width out, so its broadcast from lane 0 gives
// lanes 32-63 the value of lane 32.
template <typename T>
// expect: W64-007
__device__ T read_lane(T v, int src, int width = 32) {
  return __shfl(v, src, width);
}

__global__ void wave_broadcast(float* data) {
  const int lane = threadIdx.x % warpSize;
  float v = data[blockIdx.x * blockDim.x + threadIdx.x];
  data[blockIdx.x * blockDim.x + threadIdx.x] = read_lane(v, 0) + lane;
}
