// Lane masks after hipify: CUDA's 32-bit masks meet gfx942's 64-bit ones.
#include <hip/hip_runtime.h>
#include <cstdint>

// The mask is reported where it is defined (the line to change) and where it is used.
// expect: W64-003
#define FULL_MASK 0xffffffff

__device__ float reduce_sync(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // expect: W64-003
    v += __shfl_down_sync(0xffffffff, v, o);
  }
  return v;
}

__device__ float reduce_sync_macro(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // expect: W64-003
    v += __shfl_xor_sync(FULL_MASK, v, o);
  }
  return v;
}

__device__ float reduce_sync_var(float v) {
  // expect: W64-003
  unsigned mask = 0xffffffffu;
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // expect: W64-003
    v += __shfl_down_sync(mask, v, o);
  }
  return v;
}

__device__ float reduce_sync_ok(float v) {
  const uint64_t all = __activemask();
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // ok: W64-003
    v += __shfl_down_sync(~0ull, v, o);
    // ok: W64-003
    v += __shfl_down_sync(all, v, o);
  }
  return v;
}

// Correctly ported: -1 converted to a 64-bit type is all 64 lanes.
__device__ float reduce_sync_minus_one(float v) {
  for (int o = warpSize / 2; o > 0; o /= 2) {
    // ok: W64-003
    v += __shfl_down_sync(uint64_t(-1), v, o);
    // ok: W64-003
    v += __shfl_xor_sync(static_cast<uint64_t>(-1), v, o);
    // expect: W64-003
    v += __shfl_xor_sync(static_cast<unsigned>(-1), v, o);
  }
  return v;
}

__global__ void vote_counts(const float* x, int* counts, int* first) {
  int lane = threadIdx.x % warpSize;
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  // expect: W64-004
  unsigned positive = __ballot(v > 0.0f);
  // expect: W64-004
  uint32_t active = __activemask();
  // ok: W64-004
  unsigned long long negative = __ballot(v < 0.0f);
  // ok: W64-004
  auto zero = __ballot(v == 0.0f);
  if (lane == 0) {
    // expect: W64-005
    counts[0] = __popc(negative);
    // expect: W64-005
    counts[1] = __popc(__ballot(v > 1.0f));
    // ok: W64-005
    counts[2] = __popcll(zero);
    // expect: W64-005
    first[blockIdx.x] = __ffs(positive) - 1;
    // ok: W64-005
    counts[3] = __popc(positive & 0xffu) + (int)active;
  }
  // ok: W64-005
  counts[4] = __popc((unsigned)threadIdx.x);
}

__global__ void lane_bits(unsigned long long* bits, unsigned* small) {
  // expect: W64-006
  unsigned long long mine = 1 << __lane_id();
  // expect: W64-006
  unsigned long long also = 1u << (threadIdx.x % warpSize);
  // ok: W64-006
  unsigned long long fixed = 1ull << __lane_id();
  // ok: W64-006
  unsigned in_group = 1u << (threadIdx.x & 31);
  bits[threadIdx.x] = mine | also | fixed;
  small[threadIdx.x] = in_group;
}

// Project typedefs: the width comes from the canonical type, not the spelling.
typedef unsigned int u32;
typedef unsigned long long u64;

__global__ void vote_typedefs(const float* x, u64* out) {
  float v = x[threadIdx.x];
  // expect: W64-004
  u32 low = __ballot(v > 0.0f);
  // ok: W64-004
  u64 all = __ballot(v > 0.0f);
  out[threadIdx.x] = all + low;
}

// A 64-bit mask that still names 32 lanes: `0xffffffffull` is the type ROCm asks for, but lanes 32-63 of the
// wavefront call the shuffle too and are not in it. Kernels of 32-lane logical warps (two per wavefront) keep
// the mistake after the type is fixed.
#define HALF_WAVE_MASK 0xffffffffull

__global__ void half_mask_lut(const float* lut, const unsigned char* idx, float* out) {
  const int lane = threadIdx.x & 31;
  float mine = lut[lane & 15];
  // expect: W64-003
  out[threadIdx.x] = __shfl_sync(HALF_WAVE_MASK, mine, idx[threadIdx.x] & 15, 32);
  if (threadIdx.x < 32) {
    // ok: W64-003
    out[threadIdx.x] += __shfl_sync(0xffffffffull, mine, lane ^ 1, 32);   // only lanes 0-31 get here
  }
}

// One instantiation takes the shuffle, the other an `if constexpr` branch without it: only the first is judged.
template <bool FROM_LDS>
__global__ void half_mask_branches(const float* lut, float* out) {
  __shared__ float table[16];
  if (threadIdx.x < 16) table[threadIdx.x] = lut[threadIdx.x];
  __syncthreads();
  float v = lut[threadIdx.x & 15];
  if constexpr (FROM_LDS) {
    out[threadIdx.x] = table[(threadIdx.x * 3) & 15];
  } else {
    // expect: W64-003
    out[threadIdx.x] = __shfl_sync(0xffffffffull, v, (threadIdx.x * 3) & 15, 32);
  }
}

template <bool FROM_LDS>
__global__ void lds_only(const float* lut, float* out) {
  __shared__ float table[16];
  if (threadIdx.x < 16) table[threadIdx.x] = lut[threadIdx.x];
  __syncthreads();
  if constexpr (FROM_LDS) {
    out[threadIdx.x] = table[(threadIdx.x * 3) & 15];
  } else {
    // ok: W64-003
    out[threadIdx.x] = __shfl_sync(0xffffffffull, lut[0], 0, 32);   // discarded: only lds_only<true> exists
  }
}

// A block of 32 threads: lanes 32-63 of its wavefront are inactive, and the mask names every lane that runs.
__global__ void one_warp_block(const float* x, float* out) {
  // ok: W64-003
  out[threadIdx.x] = __shfl_sync(0xffffffffull, x[threadIdx.x], 0);
}

void launch_half_masks(const float* lut, const unsigned char* idx, float* out) {
  half_mask_lut<<<1, 128>>>(lut, idx, out);
  half_mask_branches<true><<<1, 128>>>(lut, out);
  half_mask_branches<false><<<1, 128>>>(lut, out);
  lds_only<true><<<1, 128>>>(lut, out);
  // expect: W64-009
  one_warp_block<<<4, 32>>>(lut, out);   // right, but half of each wavefront idles (a note)
}

// Bug: a ballot wrapper that combines the vote with a caller's mask and returns it as unsigned: lanes 32-63 of the
// vote are lost on the way out.
__device__ unsigned vote_in(unsigned mask, int pred) {
  // expect: W64-004
  return __ballot(pred) & mask;
}

// Correct by design: the vote is cut to lanes 0-31 on purpose before it is returned.
__device__ unsigned vote_low_half(int pred) {
  // ok: W64-004
  return __ballot(pred) & 0xffffffffu;
}

__device__ unsigned wave_lane() {
  unsigned lane;
  lane = __lane_id();
  return lane;
}

__device__ unsigned group_lane() { return threadIdx.x & 31; }

// Bug: a 32-bit one shifted by a lane id that a helper returns: undefined for lanes 32-63.
__device__ bool in_mask(unsigned long long mask) {
  // expect: W64-006
  unsigned bit = 1u << wave_lane();
  // ok: W64-006
  unsigned group_bit = 1u << group_lane();
  return (mask & bit) != 0 && group_bit != 0;
}

// Members of a class template's partial specialization are read like any other function (MIOpen's static CK
// reductions and Kokkos' HIPReductionsFunctor<F, false> live in them).
template <typename T, int Width>
struct PartialReducer;

template <typename T>
struct PartialReducer<T, 32> {
  __device__ static T sum(T v) {
    for (int o = warpSize / 2; o > 0; o /= 2) {
      // expect: W64-003
      v += __shfl_down_sync(0xffffffff, v, o);
    }
    return v;
  }
};

template <typename T>
struct PartialReducer<T, 64> {
  __device__ static T sum(T v) {
    for (int o = warpSize / 2; o > 0; o /= 2) {
      // ok: W64-003
      v += __shfl_down_sync(~0ull, v, o);
    }
    return v;
  }
};
