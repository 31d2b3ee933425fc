// llm.c's AMD fork: WARP_SIZE is the wavefront (64 on gfx942), but the warp reductions kept CUDA's 16..1
// butterflies. The block reduction receives them as template arguments.
#include <hip/hip_runtime.h>

#define WARP_SIZE 64U

__device__ inline float warp_reduce_sum(float v) {
  // expect: W64-001
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  return v;
}

// Not used in this file: judged by the file's own notion of a warp (low confidence).
__device__ inline float warp_reduce_max(float v) {
  // expect: W64-001
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor(v, offset));
  return v;
}

// Correct: covers the whole wavefront.
__device__ inline float warp_reduce_min(float v) {
  // ok: W64-001
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) v = fminf(v, __shfl_xor(v, offset));
  return v;
}

template <float (*warp_reduction)(float)>
__device__ inline float block_reduce(float v) {
  __shared__ float shared[WARP_SIZE];
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const int warps = blockDim.x / WARP_SIZE;
  float w = warp_reduction(v);
  if (lane == 0) shared[warp] = w;
  __syncthreads();
  w = lane < warps ? shared[lane] : 0.0f;
  return warp_reduction(w);
}

template <typename T>
__global__ void global_sum(const T* x, float* out, int n) {
  float s = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) s += float(x[i]);
  s = block_reduce<warp_reduce_sum>(s);
  if (threadIdx.x == 0) *out = s;
}
