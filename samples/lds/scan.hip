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

// The scan over a length known only at run time (MoE expert counts): `offset` is 1 at the start of the up-sweep
// and doubles, then halves again in the down-sweep, so it is a power of two whose range depends on n. The lane
// stride 2 * offset is judged at every power of two and the least conflicted reported (offset = 1: 2-way),
// which holds whatever n is; `tid < d` of the down-sweep is sampled until d covers the block.
__global__ void scanRuntime(int* data, int n) {
  extern __shared__ int buf[];
  int tid = threadIdx.x;
  // ok: LDS-001
  buf[tid] = data[tid];
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      // expect: LDS-001
      buf[b] += buf[a];
    }
    offset <<= 1;
  }
  if (tid == 0) buf[n - 1] = 0;
  for (int d = 1; d < n; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      // expect: LDS-001
      int t = buf[a];
      // expect: LDS-001
      buf[a] = buf[b];
      // expect: LDS-001
      buf[b] += t;
    }
  }
  __syncthreads();
  // ok: LDS-001
  data[tid] = buf[tid];
}

// The same runtime-length scan with GPU Gems' padding (one slot skipped every 32): conflict-free at offset = 1,
// so no claim holds for every offset and nothing is reported. The tree reduction's `s` doubles from 1 as well,
// but its lanes stay one element apart.
__global__ void scanRuntimePadded(int* data, int n) {
  extern __shared__ int buf[];
  int tid = threadIdx.x;
  int offset = 1;
  for (int d = n >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (tid < d) {
      int a = offset * (2 * tid + 1) - 1;
      int b = offset * (2 * tid + 2) - 1;
      // ok: LDS-001
      buf[b + CONFLICT_FREE_OFFSET(b)] += buf[a + CONFLICT_FREE_OFFSET(a)];
    }
    offset <<= 1;
  }
  for (int s = 1; s < n; s <<= 1) {
    __syncthreads();
    // ok: LDS-001
    buf[tid] += buf[tid + s];
  }
}

// A kernel template sized by its own parameter (`__launch_bounds__(B)`, B open: nothing in the file launches
// it): the block it is written for has B threads, so B is read as the size of the block analyzed (256 assumed
// here) and the down-sweep that starts at B / 2 runs. Its lanes are 2 * i elements apart, 8-way at i = 16 where
// the bi < B guard leaves 8 lanes; the unit-stride load is conflict-free.
template <int B, typename V>
__global__ __launch_bounds__(B) void sweepDownOpen(V* data) {
  __shared__ V part[B];
  const int t = threadIdx.x;
  // ok: LDS-001
  part[t] = data[t];
  __syncthreads();
  for (int i = B >> 1; i > 0; i >>= 1) {
    const int lo = i * (2 * t + 1) - 1;
    const int hi = i * (2 * t + 2) - 1;
    if (hi < B) {
      // expect: LDS-001
      V keep = part[lo];
      // expect: LDS-001
      part[lo] = part[hi];
      // expect: LDS-001
      part[hi] += keep;
    }
    __syncthreads();
  }
  data[t] = part[t];
}

void scan(float* out, const float* in, float* data, int blocks) {
  hipLaunchKernelGGL(prescan<128>, dim3(blocks), dim3(128), 0, 0, out, in);
  hipLaunchKernelGGL(prescanUnpadded<128>, dim3(blocks), dim3(128), 0, 0, data);
}
