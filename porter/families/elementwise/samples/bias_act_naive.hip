#include "hip/hip_runtime.h"
// elementwise (naive): y[M,N] = scale * act(x[M,N] + bias[N]), row-major, fp32.
//   act: 0 = relu, 1 = gelu (tanh approximation), 2 = silu (x * sigmoid(x)).
//   One thread per element, grid-stride loop over the M*N elements; bias is broadcast along rows.
// Launcher: int launch_bias_act_naive(const float* x, const float* bias, float* y, int M, int N, int act, float scale)
//   x, bias, y: device pointers (hipMalloc'd); returns the hipGetLastError() code (0 = success).

#define BLOCK_SIZE 256

__device__ __forceinline__ float gelu_tanh(float v) {
  const float k0 = 0.7978845608028654f;  // sqrt(2 / pi)
  const float k1 = 0.044715f;
  return 0.5f * v * (1.0f + tanhf(k0 * (v + k1 * v * v * v)));
}

__device__ __forceinline__ float apply_act(float v, int act) {
  if (act == 0) return v > 0.0f ? v : 0.0f;
  if (act == 1) return gelu_tanh(v);
  return v / (1.0f + expf(-v));
}

__global__ void bias_act_naive(const float* __restrict__ x, const float* __restrict__ bias,
                               float* __restrict__ y, int M, int N, int act, float scale) {
  long long total = (long long)M * N;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)blockDim.x * gridDim.x) {
    int col = (int)(i % N);
    y[i] = scale * apply_act(x[i] + bias[col], act);
  }
}

extern "C" int launch_bias_act_naive(const float* x, const float* bias, float* y, int M, int N, int act,
                                     float scale) {
  long long total = (long long)M * N;
  int blocks = (int)((total + BLOCK_SIZE - 1) / BLOCK_SIZE);
  if (blocks > 65535) blocks = 65535;
  if (blocks < 1) blocks = 1;
  hipLaunchKernelGGL(bias_act_naive, dim3(blocks), dim3(BLOCK_SIZE), 0, 0, x, bias, y, M, N, act, scale);
  return (int)hipGetLastError();
}
