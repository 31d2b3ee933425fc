#include "hip/hip_runtime.h"
#include "hip/hip_fp16.h"
// attention (causal forward, shared-memory K/V tiles, online softmax, fp16 in/out, fp32 math):
//   O[i] = sum_{j <= i} softmax_j(Q[i] . K[j] * scale) V[j] per (batch, head); query i sees keys 0..i.
//   Q, K, V, O: [B, H, S, HEAD_DIM] __half, contiguous row-major; self-attention (as many keys as queries).
//   Scores, softmax statistics and the output accumulator are fp32; O is rounded to __half once at the end.
//   A block of BLOCK_M threads owns BLOCK_M consecutive queries (one per thread, q and the output accumulator in
//   registers); K and V are streamed through shared memory BLOCK_N rows at a time, and a running max / sum
//   rescales the accumulator (flash-attention style). Tiles entirely above the diagonal are skipped.
// Launcher: int launch_attention_causal_tiled(const __half* Q, const __half* K, const __half* V, __half* O,
//                                             int B, int H, int S, int D, float scale)
//   D (head_dim) must be 64 or 128 (returns hipErrorInvalidValue otherwise); scale is usually 1/sqrt(D);
//   grid = (ceil(S / BLOCK_M), B * H); returns the hipGetLastError() code (0 = success).

#define BLOCK_M 64
#define BLOCK_N 32

template <int HEAD_DIM>
__global__ void attention_causal_tiled(const __half* __restrict__ Q, const __half* __restrict__ K,
                                       const __half* __restrict__ V, __half* __restrict__ O, int S, float scale) {
  __shared__ __half Ks[BLOCK_N][HEAD_DIM];
  __shared__ __half Vs[BLOCK_N][HEAD_DIM];
  const size_t base = (size_t)blockIdx.y * S * HEAD_DIM;
  const int q_start = blockIdx.x * BLOCK_M;
  const int i = q_start + threadIdx.x;  // this thread's query
  const bool active = i < S;

  float q[HEAD_DIM];
  float acc[HEAD_DIM];
#pragma unroll
  for (int d = 0; d < HEAD_DIM; ++d) {
    q[d] = active ? __half2float(Q[base + (size_t)i * HEAD_DIM + d]) * scale : 0.0f;
    acc[d] = 0.0f;
  }
  float m = -INFINITY;
  float l = 0.0f;

  const int kv_end = min(S, q_start + BLOCK_M);  // causal: no key beyond the block's last query
  for (int k0 = 0; k0 < kv_end; k0 += BLOCK_N) {
    for (int e = threadIdx.x; e < BLOCK_N * HEAD_DIM; e += BLOCK_M) {
      int r = e / HEAD_DIM, c = e % HEAD_DIM;
      bool ok = k0 + r < S;
      Ks[r][c] = ok ? K[base + (size_t)(k0 + r) * HEAD_DIM + c] : __float2half(0.0f);
      Vs[r][c] = ok ? V[base + (size_t)(k0 + r) * HEAD_DIM + c] : __float2half(0.0f);
    }
    __syncthreads();
    if (active) {
      for (int j = 0; j < BLOCK_N; ++j) {
        int key = k0 + j;
        if (key > i || key >= S) break;
        float s = 0.0f;
#pragma unroll
        for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * __half2float(Ks[j][d]);
        float m_new = fmaxf(m, s);
        float correction = __expf(m - m_new);
        float p = __expf(s - m_new);
        l = l * correction + p;
#pragma unroll
        for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * correction + p * __half2float(Vs[j][d]);
        m = m_new;
      }
    }
    __syncthreads();
  }
  if (active) {
    float inv_l = 1.0f / l;
#pragma unroll
    for (int d = 0; d < HEAD_DIM; ++d) O[base + (size_t)i * HEAD_DIM + d] = __float2half(acc[d] * inv_l);
  }
}

extern "C" int launch_attention_causal_tiled(const __half* Q, const __half* K, const __half* V, __half* O, int B,
                                             int H, int S, int D, float scale) {
  dim3 grid((S + BLOCK_M - 1) / BLOCK_M, B * H);
  dim3 block(BLOCK_M);
  if (D == 64) {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(attention_causal_tiled<64>), grid, block, 0, 0, Q, K, V, O, S, scale);
  } else if (D == 128) {
    hipLaunchKernelGGL(HIP_KERNEL_NAME(attention_causal_tiled<128>), grid, block, 0, 0, Q, K, V, O, S, scale);
  } else {
    return (int)hipErrorInvalidValue;
  }
  return (int)hipGetLastError();
}
