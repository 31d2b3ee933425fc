// Code written for ROCm spells __host__ __device__ as HIP's __HOST_DEVICE__ (hip/amd_detail/host_defines.h).
// Parsed without that macro, the struct below would end at its first such member and every later member and
// every kernel using them would be lost; with it, the scratch rows are judged like any other.
#include "hip/hip_runtime.h"

struct Pair {
  float2 v;
  __HOST_DEVICE__ Pair& operator=(const Pair& rhs) {
    v = rhs.v;
    return *this;
  }
  __device__ void store_to(float2* out, int i) const { out[i] = v; }
};

// Bug: rows padded to 33 pairs, but the column each lane writes turns with the lane as well: a stride of 34
// pairs (68 dwords) per lane, so in each 16-lane ds_write_b64 phase lanes l and l + 8 share their banks: 2-way.
__global__ void turned_rows(const float2* in, float2* out) {
  __shared__ Pair scratch[64 * 33];
  const int lane = threadIdx.x;
  Pair p;
  for (int j = 0; j < 32; ++j) {
    p.v = in[(blockIdx.x * 32 + j) * 64 + lane];
    // expect: LDS-001
    scratch[lane * 33 + (lane + j) % 32] = p;
  }
  __syncthreads();
  // ok: LDS-001
  scratch[lane].store_to(out, blockIdx.x * 64 + lane);
}

// The same rows without the turn: 66 dwords per lane, the 16 lanes of a phase on 16 distinct bank pairs.
__global__ void plain_rows(const float2* in, float2* out) {
  __shared__ Pair scratch[64 * 33];
  const int lane = threadIdx.x;
  Pair p;
  for (int j = 0; j < 32; ++j) {
    p.v = in[(blockIdx.x * 32 + j) * 64 + lane];
    // ok: LDS-001
    scratch[lane * 33 + j] = p;
  }
  __syncthreads();
  // ok: LDS-001
  scratch[lane].store_to(out, blockIdx.x * 64 + lane);
}
