// A per-thread array indexed at run time: the compiler must place it in scratch (private) memory.
#include <hip/hip_runtime.h>

__global__ void pick(const float* __restrict__ in, const int* __restrict__ idx, float* __restrict__ out)
{
    float a[64];
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < 64; ++i)
        a[i] = in[tid * 64 + i];
    out[tid] = a[idx[tid] & 63];
}
