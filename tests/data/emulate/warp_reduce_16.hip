// A CUDA warp reduction hipified as is: it starts at offset 16, so on a 64-lane wavefront lane 0 only sums
// lanes 0-31 (FACTS.md section 2). Correct at wave32, wrong at wave64.
#include <hip/hip_runtime.h>

__global__ void warp_sum(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_down(v, offset);
    }
    if (threadIdx.x % warpSize == 0) {
        atomicAdd(out, v);
    }
}
