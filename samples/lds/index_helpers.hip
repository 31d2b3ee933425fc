// Subscripts computed by small device functions that take arguments: an element-index helper (row, column ->
// flat index) and a rounding division with a local. Each call is read as the helper's returned value with its
// parameters bound to the call's arguments in the calling thread, so the lane pattern is the caller's.
#include "hip/hip_runtime.h"

#define TILE 32

__device__ __forceinline__ int flat_at(int row, int col) { return row * TILE + col; }

__device__ __forceinline__ int round_down_div(int a, int b) {
  int shift = 1 - a / b;
  return (a + shift * b) / b - shift;
}

// Each lane writes its own row of the unpadded tile: lanes 32 floats apart, one bank for a whole phase (32-way);
// the row-major read that follows has consecutive lanes on consecutive banks.
__global__ void columnStore(const float *in, float *out) {
  __shared__ float tile[TILE * TILE];
  const int t = threadIdx.x;
  for (int k = 0; k < TILE; ++k) {
    // expect: LDS-001
    tile[flat_at(t, k)] = in[k * TILE + t];
  }
  __syncthreads();
  // ok: LDS-001
  out[t] = tile[flat_at(0, t)];
}

// A down-sampling read: lane t reads element round_down_div(2 * t, 1), every other float of a row, so lanes t and
// t + 16 share a bank (2-way); a divisor of 2 brings the lanes back to consecutive floats.
__global__ void strideRead(const float *in, float *out) {
  __shared__ float row[4 * TILE];
  const int t = threadIdx.x;
  row[t] = in[t];
  row[t + 2 * TILE] = in[t + 2 * TILE];
  __syncthreads();
  // expect: LDS-001
  float a = row[round_down_div(2 * t, 1)];
  // ok: LDS-001
  float b = row[round_down_div(2 * t, 2)];
  out[t] = a + b;
}

// A helper whose value comes from memory stays unchecked (LDS-000), not guessed.
__device__ int slot_of(const int *perm, int i) { return perm[i]; }

__global__ void permuted(const int *perm, float *out) {
  __shared__ float s[256];
  s[threadIdx.x] = 1.0f;
  __syncthreads();
  // ok: LDS-001
  out[threadIdx.x] = s[slot_of(perm, threadIdx.x)];
}

// A lane numbering computed with __ffs from the block size (128 threads: b = 5) swaps the lane's low and high
// bits, sh = (t & 31) << 2 | t >> 5 (a byte histogram's trick to put lanes one dword apart). Byte rows of 256 per
// shuffled id put the 32 lanes of a phase 1024 bytes apart, all in bank 0 (32-way); the shuffled id alone as a
// byte index reaches one dword per lane.
__global__ void shuffledRows(unsigned char *bins_out) {
  extern __shared__ unsigned char bins[];
  const int b = __ffs(blockDim.x) - 3;
  const int sh = (threadIdx.x & ((1 << b) - 1)) << 2 | (threadIdx.x >> b);
  // expect: LDS-001
  bins[256 * sh] = 0;
  // ok: LDS-001
  bins[sh] = 1;
  __syncthreads();
  bins_out[threadIdx.x] = bins[threadIdx.x];
}

int main() {
  float *d = nullptr;
  int *p = nullptr;
  unsigned char *c = nullptr;
  hipLaunchKernelGGL(shuffledRows, dim3(1), dim3(128), 256 * 128, 0, c);
  hipLaunchKernelGGL(columnStore, dim3(1), dim3(32), 0, 0, d, d);
  hipLaunchKernelGGL(strideRead, dim3(1), dim3(64), 0, 0, d, d);
  hipLaunchKernelGGL(permuted, dim3(1), dim3(256), 0, 0, p, d);
  return 0;
}
