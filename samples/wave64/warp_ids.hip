// Warp ids counted in 32-thread groups but scaled by the wavefront width (ggml's ssm_scan before 71568e4b).
#include <hip/hip_runtime.h>

__global__ void load_rows(const float* A, float* out, int stride) {
  __shared__ float rows[128 * 17];
  const int tid = threadIdx.x;
  // expect: W64-002
  const int wid = tid / 32;
  const int wtid = tid % 32;
  for (int i = 0; i < 32; i += 2) {
    // expect: W64-002
    rows[(wid * warpSize + i) * 17 + wtid] = A[(blockIdx.x * 128 + i) * stride + wtid];
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + tid] = rows[tid];
}

// Correct: the id and the multiplier agree (both 32, or both the wavefront).
__global__ void load_rows_ok(const float* A, float* out, int stride) {
  __shared__ float rows[128 * 17];
  const int tid = threadIdx.x;
  // ok: W64-002
  const int wid = tid / 32;
  const int wave = tid / warpSize;
  const int wtid = tid % 32;
  for (int i = 0; i < 32; i += 2) {
    // ok: W64-002
    rows[(wid * 32 + i) * 17 + wtid] = A[(blockIdx.x * 128 + i) * stride + wtid];
    // ok: W64-002
    rows[(wave * warpSize + i) * 17 + wtid % 16] += 1.0f;
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + tid] = rows[tid];
}
