// Calls of a header's 32-lane reduction helpers (reduce_utils.h). The helper is right for 32-lane warps; the
// call is wrong where this code spreads a row over the whole 64-lane wavefront.
#include "hip/hip_runtime.h"
#include "reduce_utils.h"

// Bug: one row per wavefront, strided by warpSize (64 on gfx942): warp_sum32 sums each 32-lane half
// separately, so the mean uses half of the row.
__global__ void row_mean_wave(const float* x, float* mean, int C) {
  const int row = blockIdx.x;
  const int lane = threadIdx.x % warpSize;
  float s = 0.0f;
  for (int i = lane; i < C; i += warpSize) s += x[row * C + i];
  // expect: W64-001
  s = warp_sum32(s);
  if (lane == 0) mean[row] = s / C;
}

// Bug: the same, with the lane taken from threadIdx.x and a stride of warpSize * 4 elements.
__global__ void row_sum_strided(const float4* x, float* out, int C4) {
  float s = 0.0f;
  for (int c = threadIdx.x * 4; c < C4; c += warpSize * 4) s += x[blockIdx.x * C4 + c / 4].x;
  // expect: W64-001
  s = warp_sum32(s);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

// Bug: block_sum numbers lanes by warpSize, so each wavefront's partial is lanes 0-31's sum only.
__global__ void total(const float* x, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // expect: W64-001
  float s = block_sum<warp_sum32>(i < n ? x[i] : 0.0f);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

// Correct on wave64: 32-lane groups (lane = tid % 32), each reduced by the 32-lane helper and read at its lane 0.
__global__ void row_mean_groups(const float* x, float* mean, int C) {
  const int lane = threadIdx.x % 32;
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  float s = 0.0f;
  for (int i = lane; i < C; i += 32) s += x[row * C + i];
  // ok: W64-001
  s = warp_sum32(s);
  if (lane == 0) mean[row] = s / C;
}

#define SLOTS_BLOCK 256

// Bug: one slot per wavefront, written through the header's put_slot, but the array and the second stage count
// 32-lane warps: slots 4-7 are read and never written.
__global__ void slots_through_helper(const float* x, float* out) {
  __shared__ float partial[SLOTS_BLOCK / 32];
  const float v = x[blockIdx.x * SLOTS_BLOCK + threadIdx.x];
  // expect: W64-008
  if (threadIdx.x % warpSize == 0) put_slot(partial, threadIdx.x / warpSize, v);
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    // expect: W64-008
    for (int i = 0; i < SLOTS_BLOCK / 32; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

// Correct: the same helper with slots counted per wavefront.
__global__ void slots_through_helper_wave(const float* x, float* out) {
  __shared__ float partial[SLOTS_BLOCK / 64];
  const float v = x[blockIdx.x * SLOTS_BLOCK + threadIdx.x];
  // ok: W64-008
  if (threadIdx.x % warpSize == 0) put_slot(partial, threadIdx.x / warpSize, v);
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < (int)(blockDim.x / warpSize); ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

// Bug: under the test the block is exactly one wavefront, but the header's tree sums lanes 0-31 into lane 0; the
// template is never instantiated here, so the helper is known only from its pattern's call.
template <typename T>
__global__ void one_wave_block_sum(const T* in, T* out) {
  T v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (blockDim.x == warpSize) {
    // expect: W64-001
    v = warp_sum32_t(v);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Correct: the test makes the block one 32-lane group, which the tree covers.
template <typename T>
__global__ void one_group_block_sum(const T* in, T* out) {
  T v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (blockDim.x == 32) {
    // ok: W64-001
    v = warp_sum32_t(v);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// One body for both block shapes: the 32-lane tree when the block is one wavefront, block_sum otherwise.

// Correct: every launch in this file gives 64 threads, one wavefront, so the else branch's block_sum never runs;
// the taken branch is the bug.
__global__ void one_wave_launched(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (blockDim.x == warpSize) {
    // expect: W64-001
    v = warp_sum32(v);
  } else {
    // ok: W64-001
    v = block_sum<warp_sum32>(v);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Bug: the same body launched with a block size known only at run time: the else branch can run.
__global__ void any_block_launched(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  if (blockDim.x == warpSize) {
    // expect: W64-001
    v = warp_sum32(v);
  } else {
    // expect: W64-001
    v = block_sum<warp_sum32>(v);
  }
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

void launch_sums(const float* in, float* out, int blocks, int threads) {
  one_wave_launched<<<blocks, 64>>>(in, out);
  any_block_launched<<<blocks, threads>>>(in, out);
}

// Bug: a row of timesteps per wavefront (t strided by warpSize over threadIdx.x, rows by threadIdx.y), reduced by
// the explicit-width-32 tree: lane 0 publishes the sum of lanes 0-31 and drops lanes 32-63's timesteps.
__global__ void row_denominator(const float* x, float* den, int T) {
  float s = 0.0f;
  for (int t = threadIdx.x + threadIdx.y * warpSize; t < T; t += 4 * warpSize) s += x[t];
  // expect: W64-001
  s = warp_sum_w32(s);
  if (threadIdx.x == 0) den[threadIdx.y] = s;
}

// Correct: the same tree over 32-lane groups, each read at its own lane 0.
__global__ void group_denominator(const float* x, float* den, int T) {
  const int lane = threadIdx.x % 32;
  const int group = threadIdx.x / 32;
  float s = 0.0f;
  for (int t = lane; t < T; t += 32) s += x[group * T + t];
  // ok: W64-001
  s = warp_sum_w32(s);
  if (lane == 0) den[group] = s;
}
