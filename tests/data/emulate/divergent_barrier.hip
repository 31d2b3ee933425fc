// Threads that return early never reach __syncthreads: on a GPU this hangs or corrupts shared memory.
#include <hip/hip_runtime.h>

__global__ void early_exit(const float* x, float* y, int n) {
    __shared__ float tile[128];
    int i = threadIdx.x;
    if (i >= n) return;
    tile[i] = x[i];
    __syncthreads();
    y[i] = tile[(i + 1) % n];
}

__global__ void two_barriers(float* y) {
    if (threadIdx.x < 32) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    y[threadIdx.x] = 1.0f;
}
