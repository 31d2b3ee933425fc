// Work-efficient exclusive scan (Blelloch / GPU Gems 3 ch. 39) with padding against bank conflicts.
#include "hip/hip_runtime.h"

#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)

template <int BLOCK_THREADS>
__global__ void prescan(float* g_odata, const float* g_idata) {
  constexpr int n = 2 * BLOCK_THREADS;
  __shared__ float temp[n + n / NUM_BANKS];
  int thid = threadIdx.x;
  int ai = thid;
  int bi = thid + (n / 2);
  int bankOffsetA = CONFLICT_FREE_OFFSET(ai);
  int bankOffsetB = CONFLICT_FREE_OFFSET(bi);
  // ok: LDS-001
  temp[ai + bankOffsetA] = g_idata[blockIdx.x * n + ai];
  // ok: LDS-001
  temp[bi + bankOffsetB] = g_idata[blockIdx.x * n + bi];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      // ok: LDS-001
      temp[b + CONFLICT_FREE_OFFSET(b)] += temp[a + CONFLICT_FREE_OFFSET(a)];
    }
    offset *= 2;
  }
  if (thid == 0) temp[n - 1 + CONFLICT_FREE_OFFSET(n - 1)] = 0;
  __syncthreads();
  // ok: LDS-001
  g_odata[blockIdx.x * n + ai] = temp[ai + bankOffsetA];
  // ok: LDS-001
  g_odata[blockIdx.x * n + bi] = temp[bi + bankOffsetB];
}

// The same scan without the padding offsets: the even/odd loads are 2-way conflicted and the up-sweep's
// power-of-two strides up to 8-way.
template <int BLOCK_THREADS>
__global__ void prescanUnpadded(float* g_data) {
  constexpr int n = 2 * BLOCK_THREADS;
  __shared__ float temp[n];
  int thid = threadIdx.x;
  // expect: LDS-001
  temp[2 * thid] = g_data[2 * thid];
  // expect: LDS-001
  temp[2 * thid + 1] = g_data[2 * thid + 1];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (thid < d) {
      int a = offset * (2 * thid + 1) - 1;
      int b = offset * (2 * thid + 2) - 1;
      // expect: LDS-001
      temp[b] += temp[a];
    }
    offset *= 2;
  }
  __syncthreads();
  // expect: LDS-001
  g_data[2 * thid] = temp[2 * thid];
}

void scan(float* out, const float* in, float* data, int blocks) {
  hipLaunchKernelGGL(prescan<128>, dim3(blocks), dim3(128), 0, 0, out, in);
  hipLaunchKernelGGL(prescanUnpadded<128>, dim3(blocks), dim3(128), 0, 0, data);
}
