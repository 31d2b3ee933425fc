#include "hip/hip_runtime.h"
#include <hip/hip_fp16.h>
// attention (one query per thread, fp16 in and out, fp32 math, not causal):
//   O[b, h, i] = sum_j softmax_j(Q[b, h, i] . K[b, h, j] * scale) V[b, h, j]
//   Q, O: [B, H, Sq, HEAD_DIM]; K, V: [B, H, Sk, HEAD_DIM], contiguous; query and key lengths are separate
//   arguments, scale is a run-time argument (usually 1/sqrt(HEAD_DIM)). Online softmax over the keys.
// Launcher: int launch_attention_bhsd(const __half* Q, const __half* K, const __half* V, __half* O,
//                                     int B, int H, int Sq, int Sk, float scale)   grid (ceil(Sq / 64), H, B)

#define BLOCK 64

template <int HEAD_DIM>
__global__ void attention_bhsd(const __half* __restrict__ Q, const __half* __restrict__ K,
                               const __half* __restrict__ V, __half* __restrict__ O, int B, int H, int Sq, int Sk,
                               float scale) {
  const int b = blockIdx.z, h = blockIdx.y;
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (b >= B || i >= Sq) return;
  const size_t qo = ((size_t)(b * H + h) * Sq + i) * HEAD_DIM;
  const size_t kv = (size_t)(b * H + h) * Sk * HEAD_DIM;
  float q[HEAD_DIM], acc[HEAD_DIM];
  for (int d = 0; d < HEAD_DIM; ++d) {
    q[d] = __half2float(Q[qo + d]);
    acc[d] = 0.0f;
  }
  float m = -INFINITY, l = 0.0f;
  for (int j = 0; j < Sk; ++j) {
    float s = 0.0f;
    for (int d = 0; d < HEAD_DIM; ++d) s += q[d] * __half2float(K[kv + (size_t)j * HEAD_DIM + d]);
    s *= scale;
    const float m_new = fmaxf(m, s);
    const float c = expf(m - m_new), p = expf(s - m_new);
    l = l * c + p;
    for (int d = 0; d < HEAD_DIM; ++d) acc[d] = acc[d] * c + p * __half2float(V[kv + (size_t)j * HEAD_DIM + d]);
    m = m_new;
  }
  for (int d = 0; d < HEAD_DIM; ++d) O[qo + d] = __float2half(acc[d] / l);
}

extern "C" int launch_attention_bhsd(const __half* Q, const __half* K, const __half* V, __half* O, int B, int H,
                                     int Sq, int Sk, float scale) {
  dim3 grid((Sq + BLOCK - 1) / BLOCK, H, B);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(attention_bhsd<64>), grid, dim3(BLOCK), 0, 0, Q, K, V, O, B, H, Sq, Sk, scale);
  return (int)hipGetLastError();
}
