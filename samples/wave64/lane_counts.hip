// Counts written for 32-lane warps next to code that works in whole wavefronts.
#include <hip/hip_runtime.h>

#define VEC 4
#define CEIL_DIV(a, b) (((a) + (b) - 1) / (b))

// Each lane handles VEC channels per step and the steps advance a wavefront's worth (warpSize * VEC), but the
// shared region is rounded to 32 lanes' worth: for C = 192 lanes 32-63 of the last step write past it.
__global__ void channel_sums(const float* x, float* out, int C) {
  extern __shared__ float sums[];
  // expect: W64-008
  int rounded = CEIL_DIV(C, 32 * VEC) * (32 * VEC);
  for (int i = threadIdx.x; i < rounded; i += blockDim.x) sums[i] = 0.0f;
  __syncthreads();
  int lane = threadIdx.x % warpSize;
  for (int c = lane * VEC; c < CEIL_DIV(C, warpSize * VEC) * warpSize * VEC; c += warpSize * VEC) {
    for (int k = 0; k < VEC; ++k) atomicAdd(&sums[c + k], c + k < C ? x[c + k] : 0.0f);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < C; i += blockDim.x) out[i] = sums[i];
}

// The same kernel rounded to the wavefront, and one that rounds to 32 lanes and also steps by 32 lanes.
__global__ void channel_sums_wave(const float* x, float* out, int C) {
  extern __shared__ float sums[];
  // ok: W64-008
  int rounded = CEIL_DIV(C, warpSize * VEC) * (warpSize * VEC);
  for (int i = threadIdx.x; i < rounded; i += blockDim.x) sums[i] = 0.0f;
  __syncthreads();
  for (int c = (threadIdx.x % warpSize) * VEC; c < rounded; c += warpSize * VEC) {
    for (int k = 0; k < VEC; ++k) atomicAdd(&sums[c + k], c + k < C ? x[c + k] : 0.0f);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < C; i += blockDim.x) out[i] = sums[i];
}

__global__ void channel_sums_groups(const float* x, float* out, int C) {
  extern __shared__ float sums[];
  // ok: W64-008
  int rounded = CEIL_DIV(C, 32 * VEC) * (32 * VEC);
  for (int i = threadIdx.x; i < rounded; i += blockDim.x) sums[i] = 0.0f;
  __syncthreads();
  for (int c = (threadIdx.x % 32) * VEC; c < rounded; c += 32 * VEC) {
    for (int k = 0; k < VEC; ++k) atomicAdd(&sums[c + k], c + k < C ? x[c + k] : 0.0f);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < C; i += blockDim.x) out[i] = sums[i];
}

void launch_channel_sums(const float* x, float* out, int C) {
  // expect: W64-009
  size_t bytes = CEIL_DIV(C, 32 * VEC) * (32 * VEC) * sizeof(float);
  channel_sums<<<1, 256, bytes>>>(x, out, C);
  int w = 0;
  hipDeviceGetAttribute(&w, hipDeviceAttributeWarpSize, 0);
  // ok: W64-009
  size_t wave_bytes = CEIL_DIV(C, w * VEC) * (w * VEC) * sizeof(float);
  channel_sums_wave<<<1, 256, wave_bytes>>>(x, out, C);
  // ok: W64-009
  size_t group_bytes = CEIL_DIV(C, 32 * VEC) * (32 * VEC) * sizeof(float);
  channel_sums_groups<<<1, 256, group_bytes>>>(x, out, C);
}

// One row per wavefront: a grid of N * 32 threads covers only N / 2 rows on gfx942.
__global__ void row_max(const float* x, float* y, int N, int C) {
  int warps = blockDim.x / warpSize;
  int row = blockIdx.x * warps + threadIdx.x / warpSize;
  if (row >= N) return;
  float m = -INFINITY;
  for (int i = threadIdx.x % warpSize; i < C; i += warpSize) m = fmaxf(m, x[row * C + i]);
  atomicMax(reinterpret_cast<int*>(y) + row, __float_as_int(m));   // non-negative inputs
}

// One row per 32-lane group: N * 32 threads is exactly what it needs.
__global__ void row_max_groups(const float* x, float* y, int N, int C) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= N) return;
  float m = -INFINITY;
  for (int i = threadIdx.x % 32; i < C; i += 32) m = fmaxf(m, x[row * C + i]);
  atomicMax(reinterpret_cast<int*>(y) + row, __float_as_int(m));
}

void launch_row_max(const float* x, float* y, int N, int C, int block) {
  // expect: W64-009
  row_max<<<CEIL_DIV(N * 32, block), block>>>(x, y, N, C);
  // ok: W64-009
  row_max_groups<<<CEIL_DIV(N * 32, block), block>>>(x, y, N, C);
}
