// A header of kernels templated on their warp width (a CUSP-derived COO product, as rocALUTION launched it with
// WARP_SIZE = 64 on gfx9), instantiated by the library's sources, not here.
#pragma once
#include <hip/hip_runtime.h>

// Bug: the lanes run 0..WARP_SIZE-1, but the padding, the carry lane and the tail test are the 32-lane warp's.
template <unsigned BLOCK_SIZE, unsigned WARP_SIZE>
__global__ void coo_carry(const int* rows_in, const float* vals_in, float* y, int* carry_rows, float* carry_vals) {
  __shared__ volatile int rows[48 * (BLOCK_SIZE / 32)];
  __shared__ volatile float vals[BLOCK_SIZE];
  const int thread_lane = threadIdx.x & (WARP_SIZE - 1);
  const int warp_id = (BLOCK_SIZE * blockIdx.x + threadIdx.x) / WARP_SIZE;
  // expect: W64-002
  const int idx = 16 * (threadIdx.x / 32 + 1) + threadIdx.x;
  rows[idx - 16] = -1;
  // expect: W64-002
  if (thread_lane == 31) rows[idx] = rows_in[warp_id];
  const int row = rows_in[warp_id * WARP_SIZE + thread_lane];
  rows[idx] = row;
  vals[threadIdx.x] = vals_in[warp_id * WARP_SIZE + thread_lane];
  if (row == rows[idx - 1]) vals[threadIdx.x] += vals[threadIdx.x - 1];
  // expect: W64-002
  if (thread_lane < 31 && row != rows[idx + 1]) y[row] += vals[threadIdx.x];
  // expect: W64-002
  if (thread_lane == 31) {
    carry_rows[warp_id] = rows[idx];
    carry_vals[warp_id] = vals[threadIdx.x];
  }
}

// Correct on gfx942: the same kernel after the fix, with the warp's last lane and its padding in WARP_SIZE.
template <unsigned BLOCK_SIZE, unsigned WARP_SIZE>
__global__ void coo_carry_fixed(const int* rows_in, const float* vals_in, float* y, int* carry_rows,
                                float* carry_vals) {
  __shared__ volatile int rows[48 * (BLOCK_SIZE / 32) + WARP_SIZE / 2];
  __shared__ volatile float vals[BLOCK_SIZE];
  const int thread_lane = threadIdx.x & (WARP_SIZE - 1);
  const int warp_id = (BLOCK_SIZE * blockIdx.x + threadIdx.x) / WARP_SIZE;
  const int idx = WARP_SIZE / 2 * (threadIdx.x / WARP_SIZE + 1) + threadIdx.x;
  rows[idx - WARP_SIZE / 2] = -1;
  // ok: W64-002
  if (thread_lane == WARP_SIZE - 1) rows[idx] = rows_in[warp_id];
  const int row = rows_in[warp_id * WARP_SIZE + thread_lane];
  rows[idx] = row;
  vals[threadIdx.x] = vals_in[warp_id * WARP_SIZE + thread_lane];
  if (row == rows[idx - 1]) vals[threadIdx.x] += vals[threadIdx.x - 1];
  // ok: W64-002
  if (thread_lane < WARP_SIZE - 1 && row != rows[idx + 1]) y[row] += vals[threadIdx.x];
  if (thread_lane == WARP_SIZE - 1) {
    carry_rows[warp_id] = rows[idx];
    carry_vals[warp_id] = vals[threadIdx.x];
  }
}
