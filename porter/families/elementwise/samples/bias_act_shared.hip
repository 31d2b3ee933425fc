#include "hip/hip_runtime.h"
// elementwise (shared-memory): y[M,N] = scale * act(x[M,N] + bias[N]), row-major, fp32.
//   ACT (template): 0 = relu, 1 = gelu (tanh approximation), 2 = silu (x * sigmoid(x)).
//   A block covers TILE_N columns x ROWS_PER_BLOCK rows; its bias slice is staged once in shared memory and
//   reused for every row. blockDim = (TILE_N), grid = (ceil(N / TILE_N), ceil(M / ROWS_PER_BLOCK)).
// Launcher: int launch_bias_act_shared(const float* x, const float* bias, float* y, int M, int N, int act, float scale)
//   x, bias, y: device pointers; act as above; returns the hipGetLastError() code (0 = success).

#define TILE_N 256
#define ROWS_PER_BLOCK 8

template <int ACT>
__device__ __forceinline__ float activation(float v) {
  if (ACT == 0) {
    return fmaxf(v, 0.0f);
  } else if (ACT == 1) {
    const float c = 0.7978845608028654f;  // sqrt(2 / pi)
    return 0.5f * v * (1.0f + tanhf(c * (v + 0.044715f * v * v * v)));
  } else {
    return v / (1.0f + __expf(-v));
  }
}

template <int ACT>
__global__ void bias_act_shared(const float* __restrict__ x, const float* __restrict__ bias,
                                float* __restrict__ y, int M, int N, float scale) {
  __shared__ float sbias[TILE_N];
  int col = blockIdx.x * TILE_N + threadIdx.x;
  sbias[threadIdx.x] = col < N ? bias[col] : 0.0f;
  __syncthreads();
  if (col >= N) return;
  int row0 = blockIdx.y * ROWS_PER_BLOCK;
  float b = sbias[threadIdx.x];
#pragma unroll
  for (int r = 0; r < ROWS_PER_BLOCK; ++r) {
    int row = row0 + r;
    if (row < M) {
      size_t idx = (size_t)row * N + col;
      y[idx] = scale * activation<ACT>(x[idx] + b);
    }
  }
}

extern "C" int launch_bias_act_shared(const float* x, const float* bias, float* y, int M, int N, int act,
                                      float scale) {
  dim3 block(TILE_N);
  dim3 grid((N + TILE_N - 1) / TILE_N, (M + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
  switch (act) {
    case 0:
      hipLaunchKernelGGL(HIP_KERNEL_NAME(bias_act_shared<0>), grid, block, 0, 0, x, bias, y, M, N, scale);
      break;
    case 1:
      hipLaunchKernelGGL(HIP_KERNEL_NAME(bias_act_shared<1>), grid, block, 0, 0, x, bias, y, M, N, scale);
      break;
    default:
      hipLaunchKernelGGL(HIP_KERNEL_NAME(bias_act_shared<2>), grid, block, 0, 0, x, bias, y, M, N, scale);
      break;
  }
  return (int)hipGetLastError();
}
