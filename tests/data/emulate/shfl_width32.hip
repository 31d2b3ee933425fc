// Consistent 32-lane logical warps: every shuffle passes width 32, so the result is the same at wave32 and wave64
// (FACTS.md section 2: not a bug). Each 32-lane group writes its own sum and broadcasts lane 0 of the group.
#include <hip/hip_runtime.h>

__global__ void group_sums(const float* x, float* sums, float* bcast) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int offset = 16; offset > 0; offset >>= 1) {
        v += __shfl_xor(v, offset, 32);
    }
    float first = __shfl(x[i], 0, 32);
    float up = __shfl_up(x[i], 1, 32);
    bcast[i] = first + up;
    if ((threadIdx.x & 31) == 0) {
        sums[i / 32] = v;
    }
}
