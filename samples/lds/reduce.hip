// Block reductions from the CUDA SDK "reduction" sample (reduce0..reduce4), hipified.
#include "hip/hip_runtime.h"

// reduce0: interleaved addressing with a divergent modulo test. Divergent but conflict-free: active lanes
// touch consecutive-or-spread dwords of distinct banks.
__global__ void reduce0(const float* g_idata, float* g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  // ok: LDS-001
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if ((tid % (2 * s)) == 0) {
      // ok: LDS-001
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// reduce1: strided index, the textbook shared-memory bank conflict.
__global__ void reduce1(const float* g_idata, float* g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    int index = 2 * s * tid;
    if (index < blockDim.x) {
      // expect: LDS-001
      sdata[index] += sdata[index + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// reduce2: sequential addressing, conflict-free.
__global__ void reduce2(const float* g_idata, float* g_odata, unsigned int n) {
  extern __shared__ float sdata[];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = (i < n) ? g_idata[i] : 0;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s) {
      // ok: LDS-001
      sdata[tid] += sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

// reduce4-style: templated block size, fully unrolled tail through a volatile alias.
template <unsigned int blockSize>
__global__ void reduce4(const float* g_idata, float* g_odata, unsigned int n) {
  __shared__ float sdata[blockSize];
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + threadIdx.x;
  float mySum = (i < n) ? g_idata[i] : 0;
  if (i + blockSize < n) mySum += g_idata[i + blockSize];
  sdata[tid] = mySum;
  __syncthreads();
  for (unsigned int s = blockSize / 2; s > 64; s >>= 1) {
    if (tid < s) {
      // ok: LDS-001
      sdata[tid] = mySum = mySum + sdata[tid + s];
    }
    __syncthreads();
  }
  if (tid < 64) {
    volatile float* vsmem = sdata;
    // ok: LDS-001
    vsmem[tid] = mySum = mySum + vsmem[tid + 64];
    // ok: LDS-001
    vsmem[tid] = mySum = mySum + vsmem[tid + 32];
  }
  if (tid == 0) g_odata[blockIdx.x] = sdata[0];
}

void reduce(const float* d_in, float* d_out, unsigned int n) {
  int threads = 256;
  int blocks = (n + threads - 1) / threads;
  hipLaunchKernelGGL(reduce0, dim3(blocks), dim3(256), 256 * sizeof(float), 0, d_in, d_out, n);
  hipLaunchKernelGGL(reduce1, dim3(blocks), dim3(256), 256 * sizeof(float), 0, d_in, d_out, n);
  hipLaunchKernelGGL(reduce2, dim3(blocks), dim3(256), 256 * sizeof(float), 0, d_in, d_out, n);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(reduce4<256>), dim3(blocks / 2), dim3(256), 0, 0, d_in, d_out, n);
}
