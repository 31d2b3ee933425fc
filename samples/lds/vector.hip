// 128-bit shared-memory accesses. NVIDIA checks them in quarter-warps of 8 contiguous threads; gfx942's
// ds_read_b128 checks the lane groups {0-3,20-23} {4-7,16-19} {8-11,28-31} {12-15,24-27}: layouts tuned for the
// former can conflict on the latter.
#include "hip/hip_runtime.h"

#define ROWS 64
#define COLS 32
#define PAD 4

// Rows padded by one float4 "for the column writes" on NVIDIA: 144-byte rows. The row-wise float4 reads of an
// 8-wide block are conflict-free on sm_90 but 2-way on gfx942.
__global__ void stageRowsPadded(float* out, const float* in) {
  __shared__ float tile[ROWS][COLS + PAD];
  int tx = threadIdx.x, ty = threadIdx.y;
  const float4* src = reinterpret_cast<const float4*>(in + (blockIdx.x * ROWS + ty) * COLS);
  // ok: LDS-002 (ds_write_b128 checks 8 contiguous lanes: one 144-byte row each, no conflict)
  reinterpret_cast<float4*>(&tile[ty][0])[tx] = src[tx];
  __syncthreads();
  // expect: LDS-002
  float4 v = reinterpret_cast<const float4*>(&tile[ty][0])[tx];
  out[(blockIdx.x * ROWS + ty) * COLS + 4 * tx] = v.x + v.y + v.z + v.w;
}

// Unpadded 128-byte rows: every ds_read_b128 group covers all 32 banks once.
__global__ void stageRows(float* out, const float* in) {
  __shared__ float tile[ROWS][COLS];
  int tx = threadIdx.x, ty = threadIdx.y;
  const float4* src = reinterpret_cast<const float4*>(in + (blockIdx.x * ROWS + ty) * COLS);
  // ok: LDS-002
  reinterpret_cast<float4*>(&tile[ty][0])[tx] = src[tx];
  __syncthreads();
  // ok: LDS-002, LDS-001
  float4 v = reinterpret_cast<const float4*>(&tile[ty][0])[tx];
  out[(blockIdx.x * ROWS + ty) * COLS + 4 * tx] = v.x + v.y + v.z + v.w;
}

// float2 and half2 rows: 8- and 4-byte lanes walking contiguous memory.
__global__ void stagePairs(float2* out, const float2* in, __half2* hout, const __half2* hin) {
  __shared__ float2 pairs[256];
  __shared__ __half2 hpairs[256];
  int t = threadIdx.x;
  // ok: LDS-001, LDS-002
  pairs[t] = in[blockIdx.x * 256 + t];
  // ok: LDS-001
  hpairs[t] = hin[blockIdx.x * 256 + t];
  __syncthreads();
  // ok: LDS-001, LDS-002
  out[blockIdx.x * 256 + t] = pairs[255 - t];
  // ok: LDS-001
  hout[blockIdx.x * 256 + t] = hpairs[255 - t];
}

// Column access of float2 through a stride of 32 pairs: conflicted on both vendors.
__global__ void __launch_bounds__(256) pairColumns(float2* out) {
  __shared__ float2 grid2[8][32];
  int t = threadIdx.x;
  grid2[t / 32][t % 32] = make_float2(t, t);
  __syncthreads();
  // expect: LDS-001
  out[t] = grid2[t % 8][t / 8];
}

void stage(float* out, const float* in, float2* o2, const float2* i2, __half2* h2o, const __half2* h2i) {
  hipLaunchKernelGGL(stageRowsPadded, dim3(128), dim3(8, 32), 0, 0, out, in);
  hipLaunchKernelGGL(stageRows, dim3(128), dim3(8, 32), 0, 0, out, in);
  hipLaunchKernelGGL(stagePairs, dim3(128), dim3(256), 0, 0, o2, i2, h2o, h2i);
}
