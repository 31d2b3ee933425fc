// Guards whose bound is a runtime count capped by a constant: `tid < min(rows, K)` lets at most K lanes through,
// so an access under it is judged with lanes 0..K-1 active (what the guard allows at its widest), not the
// whole wavefront. A bound with no constant cap keeps every lane.
#include "hip/hip_runtime.h"

#define ROWS 4
#define COLS 64

// The first rows lanes read their row's total: rows 64 floats apart, one bank; at most ROWS = 4 lanes: 4-way.
__global__ void rowTotals(const float *in, float *out, int n) {
  __shared__ float sums[ROWS * COLS];
  const int tid = threadIdx.x;
  for (int r = 0; r < ROWS; ++r)
    sums[r * COLS + tid] = in[r * COLS + tid];
  __syncthreads();
  const int live = n < ROWS ? n : ROWS;
  if (tid < live)
    // expect: LDS-001
    out[tid] = sums[tid * COLS];
  const int capped = min(n, 2);
  if (tid < capped)
    // expect: LDS-001
    out[tid + ROWS] = sums[tid * COLS + 1];
  // one lane at most: nothing to conflict with
  if (tid < min(n, 1))
    // ok: LDS-001
    out[tid + 2 * ROWS] = sums[tid * COLS + 2];
}

int main(int argc, char **argv) {
  float *d = nullptr;
  hipLaunchKernelGGL(rowTotals, dim3(1), dim3(COLS), 0, 0, d, d, argc);
  return 0;
}
