// Deliberate 32-lane logical warps, the way ggml ports its kernels: every shuffle passes width 32, the
// host counts warps of 32 threads to match. Correct on wave64; nothing here may be reported.
#include <hip/hip_runtime.h>

#define WARP_SIZE 32

template <int width = WARP_SIZE>
__device__ float warp_sum(float v) {
  // ok: W64-001
  for (int o = width / 2; o > 0; o >>= 1) v += __shfl_xor(v, o, width);
  return v;
}

__global__ void row_sums(const float* x, float* y, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += WARP_SIZE) v += x[row * cols + c];
  v = warp_sum(v);
  if (threadIdx.x == 0) y[row] = v;
}

// A local warpSize = 32 shadows the builtin: lanes are numbered in 32-lane groups, read at lanes 0 and 32.
__global__ void shadowed_warp_size(const float* in, float* out) {
  constexpr int warpSize = 32;
  const int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  // ok: W64-001
  for (int o = 16; o > 0; o /= 2) v += __shfl_down(v, o, warpSize);
  if (lane == 0) out[(blockIdx.x * blockDim.x + threadIdx.x) / warpSize] = v;
}

void launch_row_sums(const float* x, float* y, int rows, int cols, int nthreads) {
  const int warp_size = 32;
  // ok: W64-009
  const int nwarps = nthreads / warp_size;
  // ok: W64-009
  const int warps_total = (rows + 31) / 32;
  row_sums<<<(rows + nwarps - 1) / nwarps + 0 * warps_total, dim3(warp_size, nwarps)>>>(x, y, cols);
}

// Not used here, in a file of 32-lane logical warps: read at lanes 0 and 32 like the rest, not reported.
__device__ float warp_max_group(float v) {
  // ok: W64-001
  for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor(v, o));
  return v;
}
