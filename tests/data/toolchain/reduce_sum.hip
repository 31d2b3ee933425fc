// A hipified block reduction: 256 threads, a float4 load per thread, a shared-memory tree.
// No #include on purpose: porter compiles plain hipified kernels with hip/hip_runtime.h forced in.
#define BLOCK 256

__global__ void __launch_bounds__(BLOCK) reduce_sum(const float4* __restrict__ in, float* __restrict__ out, int n4)
{
    __shared__ float partial[BLOCK];          // 1024 bytes of static LDS
    int tid = threadIdx.x;
    int i = blockIdx.x * BLOCK + tid;
    float v = 0.0f;
    if (i < n4) {
        float4 q = in[i];
        v = q.x + q.y + q.z + q.w;
    }
    partial[tid] = v;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s)
            partial[tid] += partial[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        atomicAdd(out, partial[0]);
}
