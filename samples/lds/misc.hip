// Kernels without a constant launch configuration, and accesses the model cannot follow.
#include "hip/hip_runtime.h"

#define NUM_BUCKETS 32

// No launch site in this file and no __launch_bounds__: 256 threads are assumed (the finding says so).
// Each thread owns a row of 32 counters: its counters all sit in one bank, shared by every lane.
__global__ void privateHistogram(const int* keys, int* hist, int n) {
  __shared__ int counters[256 * NUM_BUCKETS];
  for (int b = 0; b < NUM_BUCKETS; ++b) {
    // expect: LDS-001
    counters[threadIdx.x * NUM_BUCKETS + b] = 0;
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    // ok: LDS-001 (the bucket comes from memory: not modelled, listed by --explain)
    // expect: LDS-000
    counters[threadIdx.x * NUM_BUCKETS + keys[i] % NUM_BUCKETS] += 1;
  }
  __syncthreads();
  // ok: LDS-001, LDS-000
  hist[blockIdx.x * blockDim.x + threadIdx.x] = counters[threadIdx.x];
}

// Grid-stride fill of a shared buffer: consecutive lanes, consecutive words.
__global__ void __launch_bounds__(128) stageBuffer(const float* in, float* out, int n) {
  __shared__ float buf[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x) {
    // ok: LDS-001
    buf[i] = in[blockIdx.x * 1024 + i];
  }
  __syncthreads();
  // ok: LDS-001
  out[blockIdx.x * blockDim.x + threadIdx.x] = buf[1023 - threadIdx.x];
}

// Broadcast: every lane reads the same word.
__global__ void scaleByShared(float* data, const float* scale) {
  __shared__ float s[4];
  if (threadIdx.x < 4) s[threadIdx.x] = scale[threadIdx.x];
  __syncthreads();
  // ok: LDS-001
  data[blockIdx.x * blockDim.x + threadIdx.x] *= s[blockIdx.x & 3];
}

// A loop whose body steps its own variable as well (a down-sweep's `for (d = 0; d < n; d <<= 1) { d += 1; ...}`
// sees d = 1, 3, 7, ..., 63): its header alone (0, then 0 << 1 = 0 again) says nothing of the values the body
// sees, so the access is listed as unchecked rather than judged at d = 0 (a unit stride).
__global__ void __launch_bounds__(64) bodyStepped(float* out) {
  __shared__ float s[64 * 65];
  for (int d = 0; d < 64; d <<= 1) {
    d += 1;
    // ok: LDS-001
    // expect: LDS-000
    s[threadIdx.x * (d + 1)] = out[threadIdx.x];
  }
}
