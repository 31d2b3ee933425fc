// A ballot stored in a 32-bit `unsigned` loses lanes 32-63 on a 64-lane wavefront: the count of set predicates
// is wrong at wave64 only (FACTS.md section 2).
#include <hip/hip_runtime.h>

__global__ void count_positive(const float* x, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned mask = __ballot(x[i] > 0.0f);
    if (threadIdx.x % warpSize == 0) {
        atomicAdd(count, __popc(mask));
    }
}

// The fix: keep the mask 64 bits wide and count it with __popcll.
__global__ void count_positive_fixed(const float* x, int* count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long mask = __ballot(x[i] > 0.0f);
    if (threadIdx.x % warpSize == 0) {
        atomicAdd(count, __popcll(mask));
    }
}
