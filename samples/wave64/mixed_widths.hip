// The wavefront width and 32-lane arithmetic mixed in one expression or one shuffle.
#include <hip/hip_runtime.h>

// Bug: the group count is rounded up by warpSize (64) but divided by 32: a 96-thread block gets 4 groups where 3
// wrote a partial, and slot 3 is read unwritten.
__device__ float group_partials_sum(float v, float* partials) {
  int lane = threadIdx.x & 31;
  v += __shfl_xor(v, 1, 32);
  if (lane == 0) partials[threadIdx.x >> 5] = v;
  __syncthreads();
  // expect: W64-002
  int groups = (blockDim.x + warpSize - 1) >> 5;
  return lane < groups ? partials[lane] : 0.0f;
}

// Correct: rounded and divided by the same width.
__device__ int wave_count() {
  // ok: W64-002
  int waves = (blockDim.x + warpSize - 1) / warpSize;
  // ok: W64-002
  int groups = (blockDim.x + 31) >> 5;
  return waves + groups;
}

// Bug: a rotation tree whose source lanes wrap at 32 under a 64-wide shuffle: lanes 32-63 read lanes 0-31, so
// their values never reach lane 0 of the row.
__global__ void row_sum_rotate(const float* in, float* out) {
  float v = in[blockIdx.x * 64 + threadIdx.x];
  for (int l = 0; l <= 4; ++l) {
    int src = (threadIdx.x + (1 << l)) & 31;
    // expect: W64-001
    v += __shfl(v, src, 64);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Correct: the same tree over 32-lane rows with width 32.
__global__ void half_row_sum_rotate(const float* in, float* out) {
  float v = in[blockIdx.x * 64 + threadIdx.x];
  for (int l = 0; l <= 4; ++l) {
    int src = (threadIdx.x + (1 << l)) & 31;
    // ok: W64-001
    v += __shfl(v, src, 32);
  }
  if ((threadIdx.x & 31) == 0) out[blockIdx.x * 2 + (threadIdx.x >> 5)] = v;
}

// Bug: a shuffle wrapper whose width defaults to 32: every call that leaves it out, such as a broadcast from lane
// 0 of the wavefront, shuffles within 32-lane groups (lanes 32-63 read lane 32).
template <typename T>
// expect: W64-007
__device__ T shfl_from(T v, int src, int width = 32) {
  return __shfl(v, src, width);
}

// Correct: the wrapper's default is the wavefront.
template <typename T>
// ok: W64-007
__device__ T shfl_wave(T v, int src, int width = warpSize) {
  return __shfl(v, src, width);
}

__global__ void broadcast_first(float* data) {
  float v = data[threadIdx.x];
  data[threadIdx.x] = shfl_from(v, 0, 64) + shfl_wave(v, 0);
}

#define ROTATE_WIDTH 64

// A project's shuffle wrapper whose width defaults to the whole wavefront.
template <typename T>
__device__ T rotate_read(T v, int src, int width = ROTATE_WIDTH) {
  return __shfl(v, src, width);
}

// Bug: the rotation tree of row_sum_rotate in a template never instantiated here, through the wrapper: the call
// is dependent (`T v`), so only the template's pattern shows it.
template <typename T>
__device__ T row_sum_rotate_t(T v) {
  for (int l = 0; l <= 4; ++l) {
    int src = (threadIdx.x + (1 << l)) & 31;
    // expect: W64-001
    v += rotate_read(v, src);
  }
  return v;
}

// Correct: the same template pattern passing the 32-lane width to the wrapper.
template <typename T>
__device__ T half_row_sum_rotate_t(T v) {
  for (int l = 0; l <= 4; ++l) {
    int src = (threadIdx.x + (1 << l)) & 31;
    // ok: W64-001
    v += rotate_read(v, src, 32);
  }
  return v;
}
