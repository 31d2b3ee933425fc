// A block reduction's second stage in 32-lane groups: every group reads the per-group partials at its
// 32-lane id, so after the xor tree all groups hold the same values and a default-width broadcast of lane 0
// (lane 0 of the wavefront) hands each group what its own lane 0 holds.
#include <hip/hip_runtime.h>

#define GROUPS 8

// Correct: the partials are read at lane (tid & 31) by every group and combined by xor shuffles only.
__device__ float block_max_groups(float* red, float v) {
  int lane = threadIdx.x & 31;
  int group = threadIdx.x >> 5;
  for (int m = 16; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor(v, m, 32));
  if (lane == 0) red[group] = v;
  __syncthreads();
  v = lane < GROUPS ? red[lane] : -1e30f;
  for (int m = GROUPS / 2; m > 0; m >>= 1) v = fmaxf(v, __shfl_xor(v, m));
  // ok: W64-001, W64-007
  return __shfl(v, 0);
}

// Correct: lanes past the partials keep their own group's sum, but the xor offsets stay below GROUPS, so lane 0
// of each group combines only lanes 0..GROUPS-1, which read the same slots in every group.
__device__ float block_sum_groups(float* red, float v) {
  int lane = threadIdx.x & 31;
  int group = threadIdx.x >> 5;
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor(v, m);
  if (lane == 0) red[group] = v;
  __syncthreads();
  if (lane < GROUPS) v = red[lane];
  for (int m = GROUPS >> 1; m > 0; m >>= 1) v += __shfl_xor(v, m);
  // ok: W64-001, W64-007
  return __shfl(v, 0);
}

// Bug: each 32-lane group is a row that sums its own 4 partials (red[group * 4 + lane]): the groups of a
// wavefront hold different sums and lanes 32-63 receive the first row's.
__device__ float row_sum_segments(float* red, float v) {
  int lane = threadIdx.x & 31;
  int group = threadIdx.x >> 5;
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor(v, m);
  if (lane < 4) red[group * 4 + lane] = v;
  __syncthreads();
  v = lane < 4 ? red[group * 4 + lane] : 0.0f;
  for (int m = 2; m > 0; m >>= 1) v += __shfl_xor(v, m);
  // expect: W64-001, W64-007
  return __shfl(v, 0);
}

// Bug: an xor offset of 16 reaches lanes 16-31, which kept their own group's partial sum, so lane 0 of each
// group ends with a different value and lanes 32-63 receive the first group's.
__device__ float block_sum_wide_tree(float* red, float v) {
  int lane = threadIdx.x & 31;
  int group = threadIdx.x >> 5;
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor(v, m);
  if (lane == 0) red[group] = v;
  __syncthreads();
  if (lane < GROUPS) v = red[lane];
  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor(v, m);
  // expect: W64-001, W64-007
  return __shfl(v, 0);
}

__global__ void reduce_rows(const float* x, float* out) {
  __shared__ float red[GROUPS * 4];
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  float a = block_max_groups(red, v);
  __syncthreads();
  float b = block_sum_groups(red, v);
  __syncthreads();
  float c = row_sum_segments(red, v);
  __syncthreads();
  float d = block_sum_wide_tree(red, v);
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}
