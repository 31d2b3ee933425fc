// Block reduction through static shared memory and __syncthreads (tree in shared memory), one partial per block,
// plus the same with dynamic shared memory (extern __shared__) and a templated block size.
#include <hip/hip_runtime.h>

__global__ void block_sum(const float* x, float* partial, int n) {
    __shared__ float s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) {
            s[threadIdx.x] += s[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = s[0];
    }
}

template <int BLOCK>
__global__ void block_sum_dyn(const float* __restrict__ x, float* __restrict__ partial, int n) {
    extern __shared__ float sdata[];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    sdata[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) sdata[threadIdx.x] += sdata[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sdata[0];
}

// Host code with a chevron launch compiles too (it is not run by porter emulate).
void launch_block_sum(const float* x, float* partial, int n) {
    block_sum<<<(n + 255) / 256, 256>>>(x, partial, n);
    hipLaunchKernelGGL(HIP_KERNEL_NAME(block_sum_dyn<256>), dim3((n + 255) / 256), dim3(256), 256 * sizeof(float), 0,
                       x, partial, n);
}
