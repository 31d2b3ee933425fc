// Shared tiles handled by the file's own device functions: a function that hands out its __shared__ arrays
// through pointer references, and one that copies a block into a tile with memcpy at a slot the caller passes
// by reference. Each call is judged with the caller's arrays and lane values, at the helper's own lines; a
// memcpy of N bytes is N / w accesses of w bytes (w no wider than the pointer's element, at most 16).
#include "hip/hip_runtime.h"

struct Packet {
  int words[8];
  float scale;
};

__device__ __forceinline__ void claim_tiles(int*& words, float*& scales, int4*& wide) {
  __shared__ int words_tile[64 * 16];
  __shared__ float scale_tile[64 * 4];
  __shared__ int4 wide_tile[64];
  words = words_tile;
  scales = scale_tile;
  wide = wide_tile;
}

// Bug: slot strides of 16 words and 4 scales. Each 4-byte piece of the 32-byte copy puts lanes l and l + 2 on
// one bank (16-way over a 32-lane phase); the scales put lanes l and l + 8 on one bank (4-way).
__device__ __forceinline__ void stage(const Packet* src, int* words_base, float* scale_base, int& slot) {
  int* words = words_base + slot * 16;
  // expect: LDS-001
  memcpy(words, src->words, 8 * sizeof(int));
  // expect: LDS-001
  scale_base[slot * 4] = src->scale;
}

// 16 contiguous bytes per lane through an int4 pointer: one ds_write_b128 per lane, each 8-lane phase covering
// the 32 banks once.
__device__ __forceinline__ void stage_wide(const Packet* src, int4* base, int& slot) {
  // ok: LDS-001
  memcpy(base + slot, src->words, sizeof(int4));
}

// Handed a global pointer by reference: nothing in LDS.
__device__ __forceinline__ void pick(float*& dst, float* global) { dst = global; }

__global__ void stage_packets(const Packet* in, float* out) {
  int* words;
  float* scales;
  int4* wide;
  claim_tiles(words, scales, wide);
  int slot = threadIdx.x;
  // ok: LDS-001 (one 4-byte fill per lane, contiguous)
  memset(scales + slot, 0, sizeof(float));
  // expect: LDS-001 (the same fill at a stride of 32 floats, wrapping at 256: 8 dwords of bank 0, 8-way)
  memset(scales + slot * 32 % 256, 0, sizeof(float));
  stage(in + blockIdx.x * 64 + slot, words, scales, slot);
  stage_wide(in + blockIdx.x * 64 + slot, wide, slot);
  __syncthreads();
  float* dst;
  pick(dst, out);
  // ok: LDS-001
  memcpy(dst + slot * 4, in + slot, 16);
  // ok: LDS-001
  dst[slot] = scales[slot] + words[slot];
}

// Segments of 8 blocks, the last one shorter: the inner bound changes with the outer loop but is the same in
// every lane, so the inner loop's first iterations are judged as for any runtime bound.
__global__ void segment_rows(const float* in, float* out, int segments, int tail) {
  __shared__ float rows[64 * 32];
  __shared__ float cols[8 * 64];
  for (int seg = 0; seg < segments; ++seg) {
    const int count = seg != segments - 1 ? 8 : tail;
    for (int q = 0; q < count; ++q) {
      const float v = in[(seg * 8 + q) * 64 + threadIdx.x];
      // expect: LDS-001
      rows[threadIdx.x * 32 + q] = v;
      // ok: LDS-001
      cols[q * 64 + threadIdx.x] = v;
    }
    __syncthreads();
    out[seg * 64 + threadIdx.x] = cols[threadIdx.x];
  }
}
