// LDS accesses made by a header's helpers (vec_helpers.h) through a pointer into __shared__ memory: judged at
// the call, with the helper's width, like the same access written in place.
#include "hip/hip_runtime.h"
#include "vec_helpers.h"
#include "block_helpers.cuh"

// Bug: two float4 per lane, 8 dwords apart (lane * 8 floats into an alias of the dynamic buffer): the
// ds_read_b128 group {0-3, 20-23} puts lanes 0 and 20 on the same banks, and each ds_write_b128 group of 8 lanes
// covers the banks twice: 2-way conflicts.
__global__ void accumulate_strided(const float4* in, float4* out, int C) {
  extern __shared__ float smem[];
  float* acc = smem + C;
  const int i = threadIdx.x * 8;
  // expect: LDS-001
  float4 a = load16(acc + i);
  const float4 b = in[blockIdx.x * blockDim.x + threadIdx.x];
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
  // expect: LDS-001
  store16(acc + i, a);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

// The same with one float4 per lane, contiguous: every b128 group covers all 32 banks once.
__global__ void accumulate_contiguous(const float4* in, float4* out, int C) {
  extern __shared__ float smem[];
  float* acc = smem + C;
  // ok: LDS-001
  float4 a = load16(acc + threadIdx.x * 4);
  const float4 b = in[blockIdx.x * blockDim.x + threadIdx.x];
  a.x += b.x;
  // ok: LDS-001
  store16(acc + threadIdx.x * 4, a);
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = a;
}

// Bug: a column of a 32x32 tile read through the helper's subscript: 32 lanes, one bank.
__global__ void column_through_helper(const float* in, float* out) {
  __shared__ float tile[32 * 32];
  // ok: LDS-001
  tile[threadIdx.x] = in[blockIdx.x * 1024 + threadIdx.x];
  __syncthreads();
  // expect: LDS-001
  const float col = load_at(tile, (threadIdx.x % 32) * 32);
  // ok: LDS-001
  const float row = load_at(tile, threadIdx.x);
  out[blockIdx.x * 1024 + threadIdx.x] = col + row;
}

// A subscript loaded from memory: the lanes' addresses cannot be derived, so the call gets a note, not a guess.
__global__ void gather_through_helper(const int* idx, float4* out) {
  __shared__ float buf[1024];
  // ok: LDS-001
  buf[threadIdx.x] = 0.0f;
  __syncthreads();
  // expect: LDS-000
  out[threadIdx.x] = load16(buf + idx[threadIdx.x] * 4);
}

void launch_helpers(const float4* in4, float4* out4, const float* in, float* out, int C) {
  accumulate_strided<<<64, 256, 2 * C * sizeof(float)>>>(in4, out4, C);
  accumulate_contiguous<<<64, 256, 2 * C * sizeof(float)>>>(in4, out4, C);
  column_through_helper<<<64, 1024>>>(in, out);
  gather_through_helper<<<64, 256>>>(reinterpret_cast<const int*>(in), out4);
}

// The same accesses through a member function of a header struct: judged at the call like a free helper.
__global__ void fragments_through_methods(const float* in, float* out) {
  __shared__ float stage[256 * 8];
  Frag4 f;
  f.v = reinterpret_cast<const float4*>(in)[blockIdx.x * blockDim.x + threadIdx.x];
  // expect: LDS-001
  f.store(stage + threadIdx.x * 8);
  // ok: LDS-001
  f.store(stage + threadIdx.x * 4 + 512);
  __syncthreads();
  // expect: LDS-001
  f.load(stage + threadIdx.x * 8);
  reinterpret_cast<float4*>(out)[blockIdx.x * blockDim.x + threadIdx.x] = f.v;
}

void launch_fragments(const float* in, float* out) { fragments_through_methods<<<64, 256>>>(in, out); }

// A header's block reductions (block_helpers.cuh) on this kernel's partials: each call is judged as the accesses
// the helper makes through the array it is passed, with this kernel's element type and block.
__global__ void row_sum(const float* in, float* out) {
  __shared__ float part[1024];
  const float v = in[blockIdx.x * 1024 + threadIdx.x];
  // expect: LDS-001
  const float s = slice_sum(part, v);
  // ok: LDS-001
  const float t = strided_sum(part, v);
  if (threadIdx.x == 0) out[blockIdx.x] = s + t;
}

// Eight floats per lane through a helper's loop of two float4 stores: side by side (32 bytes per lane) each
// ds_write_b128 group of 8 lanes covers the banks twice (2-way); split into two halves of one float4 per lane,
// every store is contiguous.
__global__ void frag8_stage(const float4* in, float4* out) {
  __shared__ float stage[256 * 8];
  Frag8 f;
  f.v[0] = in[2 * threadIdx.x];
  f.v[1] = in[2 * threadIdx.x + 1];
  // expect: LDS-001
  f.store(stage + threadIdx.x * 8);
  __syncthreads();
  // ok: LDS-001
  f.store_split(stage + threadIdx.x * 4, 1024);
  __syncthreads();
  out[threadIdx.x] = reinterpret_cast<const float4*>(stage)[threadIdx.x];
}

void launch_blocks(const float* in, float* out, const float4* in4, float4* out4) {
  row_sum<<<64, 1024>>>(in, out);
  frag8_stage<<<64, 256>>>(in4, out4);
}
