#include "hip/hip_runtime.h"
// softmax (online, one warp per row): y[M,N] = softmax(x[M,N]) over the last dim, row-major fp32.
//   Pass 1 keeps a running (max m, sum d) per lane: d = d * exp(m_old - m_new) + exp(x - m_new), so the row is
//   read once for both statistics; the 32 lanes then merge their (m, d) pairs with __shfl_xor_sync.
//   Pass 2 writes exp(x - m) / d. blockDim = (32, ROWS_PER_BLOCK): threadIdx.y picks the row.
// Launcher: int launch_softmax_online(const float* x, float* y, int M, int N)
//   x, y: device pointers; returns the hipGetLastError() code (0 = success).

#define WARP_SIZE 32
#define ROWS_PER_BLOCK 4

struct MD {
  float m;
  float d;
};

__device__ __forceinline__ MD md_merge(MD a, MD b) {
  float m = fmaxf(a.m, b.m);
  if (m == -INFINITY) return a;  // both empty
  MD r;
  r.m = m;
  r.d = a.d * __expf(a.m - m) + b.d * __expf(b.m - m);
  return r;
}

__global__ void softmax_online(const float* __restrict__ x, float* __restrict__ y, int M, int N) {
  int row = blockIdx.x * ROWS_PER_BLOCK + threadIdx.y;
  if (row >= M) return;
  int lane = threadIdx.x;
  const float* xr = x + (size_t)row * N;
  float* yr = y + (size_t)row * N;

  MD acc = {-INFINITY, 0.0f};
  for (int j = lane; j < N; j += WARP_SIZE) {
    MD one = {xr[j], 1.0f};
    acc = md_merge(acc, one);
  }
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    MD other;
    // expect: W64-003
    other.m = __shfl_xor_sync(0xffffffff, acc.m, offset);
    // expect: W64-003
    other.d = __shfl_xor_sync(0xffffffff, acc.d, offset);
    acc = md_merge(acc, other);
  }
  float inv = 1.0f / acc.d;
  for (int j = lane; j < N; j += WARP_SIZE) yr[j] = __expf(xr[j] - acc.m) * inv;
}

extern "C" int launch_softmax_online(const float* x, float* y, int M, int N) {
  dim3 block(WARP_SIZE, ROWS_PER_BLOCK);
  dim3 grid((M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
  hipLaunchKernelGGL(softmax_online, grid, block, 0, 0, x, y, M, N);
  return (int)hipGetLastError();
}
