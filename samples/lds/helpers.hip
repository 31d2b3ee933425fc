// Shared memory used inside device functions: a helper that declares its own buffer (block reductions), and a
// tile handed to a helper as a pointer argument. The block is the one of the kernels that call the helper.
#include "hip/hip_runtime.h"

// One partial per 64-lane wavefront, read back by the first wavefront: consecutive floats, no conflict.
__device__ float blockSum(float v) {
  __shared__ float partial[16];
  const int wave = threadIdx.x / 64;
  // ok: LDS-001
  if (threadIdx.x % 64 == 0) partial[wave] = v;
  __syncthreads();
  // ok: LDS-001
  return threadIdx.x < blockDim.x / 64 ? partial[threadIdx.x] : 0.0f;
}

// A helper that transposes through its own tile: the column read puts 32 lanes on one bank.
__device__ float transposeOwn(const float* in) {
  __shared__ float t[32][32];
  // ok: LDS-001
  t[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  // expect: LDS-001
  return t[threadIdx.x][threadIdx.y];
}

// The caller's tile, passed as a pointer to its rows.
__device__ float columnOf(float (*tile)[32]) {
  // expect: LDS-001
  return tile[threadIdx.x][threadIdx.y];
}

// The same helper on a padded tile is conflict-free: 33 floats per row.
__device__ float columnOfPadded(float (*tile)[33]) {
  // ok: LDS-001
  return tile[threadIdx.x][threadIdx.y];
}

__global__ void useHelpers(const float* in, float* out) {
  __shared__ float tile[32][32];
  __shared__ float padded[32][33];
  // ok: LDS-001
  tile[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  // ok: LDS-001
  padded[threadIdx.y][threadIdx.x] = in[threadIdx.y * 32 + threadIdx.x];
  __syncthreads();
  out[threadIdx.y * 32 + threadIdx.x] = columnOf(tile) + columnOfPadded(padded) + transposeOwn(in);
}

__global__ void reduceRows(const float* in, float* out) {
  float s = blockSum(in[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = s;
}

void launchHelpers(const float* in, float* out) {
  dim3 threads(32, 32);
  useHelpers<<<1, threads>>>(in, out);
  reduceRows<<<64, 1024>>>(in, out);
}
