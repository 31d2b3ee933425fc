// Warp-level reductions and scans as hipify leaves them. The CUDA originals assumed 32-lane warps.
#include "hip/hip_runtime.h"

#define WARP 32

// Bug: lanes are numbered by the wavefront (warpSize = 64 on gfx942) but the reduction starts at 16,
// so lane 0 holds the sum of lanes 0-31 only and lanes 32-63 are lost.
__global__ void block_sum_wave(const float* __restrict__ in, float* out, int n) {
  __shared__ float partial[16];
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  float v = tid < n ? in[tid] : 0.0f;
  // expect: W64-001
  for (int offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down(v, offset);
  }
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < blockDim.x / warpSize; ++w) s += partial[w];
    atomicAdd(out, s);
  }
}

// Correct on wave64: 32-lane groups, a 16..1 reduction read only at lanes 0 and 32 of each wavefront.
__global__ void block_sum_groups(const float* __restrict__ in, float* out, int n) {
  __shared__ float partial[32];
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  // ok: W64-002
  int lane = threadIdx.x % WARP;
  float v = tid < n ? in[tid] : 0.0f;
  // ok: W64-001
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  // ok: W64-002
  if (lane == 0) partial[threadIdx.x / WARP] = v;
  __syncthreads();
  if (threadIdx.x < blockDim.x / WARP) {
    float s = partial[threadIdx.x];
    // ok: W64-001
    for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_down(s, offset);
    if (threadIdx.x == 0) atomicAdd(out, s);
  }
}

// Correct: the reduction covers the whole wavefront.
__global__ void block_sum_fixed(const float* __restrict__ in, float* out, int n) {
  int tid = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % warpSize;
  float v = tid < n ? in[tid] : 0.0f;
  // ok: W64-001
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (lane == 0) atomicAdd(out, v);
}

// Bug: the 32-lane result is broadcast from lane 0 of the 64-lane wavefront to every lane. The reduction
// is right for each half; the width-less broadcast is the line to change.
__device__ float warp_allreduce_max(float v) {
  // ok: W64-001
  for (int mask = 16; mask >= 1; mask /= 2) v = fmaxf(v, __shfl_xor(v, mask));
  // expect: W64-001
  return __shfl(v, 0);
}

__global__ void softmax_rows(const float* x, float* y, int cols) {
  const float* row = x + blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = warp_allreduce_max(m);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) y[blockIdx.x * cols + c] = expf(row[c] - m);
}

// Bug: width says the whole wavefront, the offsets cover half of it.
template <typename T>
__device__ T wave_sum(T v) {
  // expect: W64-001
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o, warpSize);
  return v;
}

__global__ void sum_templated(const double* in, double* out) {
  double v = wave_sum<double>(in[threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Bug: an unrolled butterfly in wavefront-organized code.
__global__ void dot_wave(const float* a, const float* b, float* out) {
  int warp_id = threadIdx.x / warpSize;
  float v = a[threadIdx.x] * b[threadIdx.x];
  // expect: W64-001
  v += __shfl_xor(v, 16);
  v += __shfl_xor(v, 8);
  v += __shfl_xor(v, 4);
  v += __shfl_xor(v, 2);
  v += __shfl_xor(v, 1);
  if (threadIdx.x % warpSize == 0) out[blockIdx.x * 16 + warp_id] = v;
}

// Correct: a partial butterfly that combines the 8 lanes holding one column (lanes differing in bits 2-4);
// it stops at offset 4, so it is not a warp reduction.
__global__ void column_max(const float* in, float* out) {
  int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  // ok: W64-001
  for (int offset = 16; offset >= 4; offset >>= 1) v = fmaxf(v, __shfl_xor(v, offset, warpSize));
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + lane;
}

// Bug: an inclusive scan that stops at 32 in code that numbers lanes by the wavefront.
__global__ void scan_wave(const int* in, int* out) {
  int lane = threadIdx.x & (warpSize - 1);
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 1; o < 32; o *= 2) {
    // expect: W64-001
    int t = __shfl_up(v, o);
    if (lane >= o) v += t;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Correct: a scan within 32-lane groups, guarded by the group lane, never crosses a group boundary.
__global__ void scan_groups(const int* in, int* out) {
  int lane = threadIdx.x & 31;
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 1; o < 32; o *= 2) {
    // ok: W64-001, W64-007
    int t = __shfl_up(v, o);
    if (lane >= o) v += t;
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Correct: consistent 32-lane logical warps with an explicit width of 32 on every shuffle.
__global__ void logical_warps(const float* in, float* out) {
  // ok: W64-002
  int lane = threadIdx.x % 32;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  // ok: W64-001
  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o, 32);
  // ok: W64-007
  v = __shfl(v, 0, 32);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v + lane;
}

void launch_all(const float* in, float* out, int n) {
  hipLaunchKernelGGL(block_sum_wave, dim3((n + 255) / 256), dim3(256), 0, 0, in, out, n);
  block_sum_groups<<<(n + 255) / 256, 256>>>(in, out, n);
  block_sum_fixed<<<(n + 255) / 256, 256>>>(in, out, n);
}
