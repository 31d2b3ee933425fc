#include "hip/hip_runtime.h"
// batched_gemm (naive, strided, NN, fp32): for b in [0, batch):
//   C[b][M,N] = alpha * A[b][M,K] @ B[b][K,N] + beta * C[b][M,N], every matrix row-major; matrix b starts at
//   A + b * strideA, B + b * strideB, C + b * strideC (strides in elements; strideB = 0 broadcasts B).
//   One thread per output element; grid.z runs over the batch.
// Launcher: int launch_bgemm_naive(const float* A, const float* B, float* C, int M, int N, int K,
//                                  long long strideA, long long strideB, long long strideC, int batch,
//                                  float alpha, float beta)
//   A, B, C: device pointers; returns the hipGetLastError() code (0 = success).

#define BLOCK_X 16
#define BLOCK_Y 16

__global__ void bgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K, long long strideA, long long strideB, long long strideC, float alpha,
                            float beta) {
  int b = blockIdx.z;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  const float* a = A + b * strideA;
  const float* bm = B + b * strideB;
  float* c = C + b * strideC;
  float sum = 0.0f;
  for (int k = 0; k < K; ++k) sum += a[(size_t)row * K + k] * bm[(size_t)k * N + col];
  c[(size_t)row * N + col] = alpha * sum + beta * c[(size_t)row * N + col];
}

extern "C" int launch_bgemm_naive(const float* A, const float* B, float* C, int M, int N, int K, long long strideA,
                                  long long strideB, long long strideC, int batch, float alpha, float beta) {
  dim3 block(BLOCK_X, BLOCK_Y);
  dim3 grid((N + BLOCK_X - 1) / BLOCK_X, (M + BLOCK_Y - 1) / BLOCK_Y, batch);
  hipLaunchKernelGGL(bgemm_naive, grid, block, 0, 0, A, B, C, M, N, K, strideA, strideB, strideC, alpha, beta);
  return (int)hipGetLastError();
}
