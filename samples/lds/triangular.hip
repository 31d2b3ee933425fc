// Loop nests whose inner loop starts or ends at a value of the enclosing loop (a triangular nest), and loops
// whose step expression also steps another variable (`++row, gidx += n`).
#include "hip/hip_runtime.h"

// Bitonic sort over 2 * blockDim.x floats: for each runtime `span`, the compare-exchange distance walks span / 2
// down to 1. pos = 2 * tid - (tid & (dist - 1)) leaves a gap of `dist` after every run of `dist` lanes, so at the
// distances below 32 a 32-lane phase touches 64 dwords, two in each bank: 2-way conflicted.
__global__ void bitonicShared(float* data, int count) {
  __shared__ float vals[512];
  int t = threadIdx.x;
  vals[t] = data[t];
  vals[t + 256] = data[t + 256];
  for (int span = 2; span <= count; span <<= 1) {
    for (int dist = span / 2; dist > 0; dist >>= 1) {
      __syncthreads();
      int pos = 2 * t - (t & (dist - 1));
      // expect: LDS-001
      float lo = vals[pos];
      // expect: LDS-001
      float hi = vals[pos + dist];
      if (lo > hi) {
        // expect: LDS-001
        vals[pos] = hi;
        // expect: LDS-001
        vals[pos + dist] = lo;
      }
    }
  }
  __syncthreads();
  data[t] = vals[t];
}

// The same nest with sequential addressing: every distance reads consecutive floats, conflict-free.
__global__ void halvingShared(float* data, int count) {
  __shared__ float acc[512];
  int t = threadIdx.x;
  acc[t] = data[t];
  for (int span = 2; span <= count; span <<= 1) {
    for (int dist = span / 2; dist > 0; dist >>= 1) {
      __syncthreads();
      // ok: LDS-001
      acc[t] += acc[t + dist];
    }
  }
  data[t] = acc[t];
}

// A column of a 32x32 tile written one row per iteration; the step also moves the global index.
// Unpadded, the 32 lanes of a row write 32 floats 32 dwords apart, all in one bank; one float of padding per
// row spreads them over the 32 banks.
__global__ void columnTiles(const float* in, float* out, int n) {
  __shared__ float plain[32][32];
  __shared__ float padded[32][33];
  int gidx = blockIdx.x * 32 + threadIdx.x;
  for (int row = 0; row < 32; ++row, gidx += n) {
    float v = in[gidx];
    // expect: LDS-001
    plain[threadIdx.x][row] = v;
    // ok: LDS-001
    padded[threadIdx.x][row] = v;
  }
  __syncthreads();
  out[gidx] = plain[0][threadIdx.x] + padded[0][threadIdx.x];
}

// An inner loop that starts at a per-thread offset of each outer step and strides by the block's rows.
__global__ void __launch_bounds__(256) bandTiles(const float* in, float* out, int n) {
  __shared__ float band[32][32];
  for (int step = 0; step < n / 32; ++step) {
    int first = n - step * 32 - 1;
    int last = n - (step + 1) * 32;
    for (int r = first - (int)threadIdx.y; r >= last; r -= blockDim.y) {
      // expect: LDS-001
      band[threadIdx.x][r - last] = in[r * n + threadIdx.x];
    }
    __syncthreads();
    out[step * 32 + threadIdx.x] = band[threadIdx.y][threadIdx.x];
    __syncthreads();
  }
}
