// Code chosen by the HIP version: a ROCm build sees HIP_VERSION (6.x, far above 502), so it compiles the first
// branch of `#if HIP_VERSION >= 502`, not the fallback.
#include <hip/hip_runtime.h>

__global__ void block_sum(const float* in, float* out) {
  extern __shared__ float s[];
  s[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  for (unsigned h = blockDim.x / 2; h > 32; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
#if HIP_VERSION >= 502
  if (threadIdx.x < 32) {
    float v = s[threadIdx.x] + s[threadIdx.x + 32];
    // Bug: the tree starts at half the wavefront while only threads 0-31 run it.
    // expect: W64-007
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
#else
  if (threadIdx.x < 32) {
    float v = s[threadIdx.x] + s[threadIdx.x + 32];
    // ok: W64-007
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
#endif
}

#if HIP_VERSION_MAJOR < 6
// ok: W64-003
__device__ float old_rocm_sum(float v) { return v + __shfl_xor_sync(0xffffffff, v, 16); }
#endif
