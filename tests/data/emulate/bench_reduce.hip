// Benchmark kernel: grid-stride loads, a wavefront shuffle reduction, then one value per wavefront combined
// through shared memory after __syncthreads (the usual two-level block reduction).
#include <hip/hip_runtime.h>

__global__ void reduce_sum(const float* __restrict__ x, float* __restrict__ partial, int n) {
    __shared__ float per_wave[1024 / 32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += x[i];
    for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
    const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
    if (lane == 0) per_wave[wave] = v;
    __syncthreads();
    const int nwaves = (blockDim.x + warpSize - 1) / warpSize;
    if (wave == 0) {
        v = lane < nwaves ? per_wave[lane] : 0.0f;
        for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
        if (lane == 0) partial[blockIdx.x] = v;
    }
}
