// The portable form: the reduction starts at warpSize/2, so each wavefront reduces all of its lanes at any size.
#include <hip/hip_runtime.h>

__global__ void warp_sum(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? x[i] : 0.0f;
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
        v += __shfl_down(v, offset);
    }
    if (threadIdx.x % warpSize == 0) {
        atomicAdd(out, v);
    }
}
