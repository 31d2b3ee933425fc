#include "hip/hip_runtime.h"
// gemm (naive, NN, fp32): C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C[M,N], all row-major.
//   One thread per output element, 16 x 16 thread blocks; threadIdx.x runs along N (coalesced B and C).
// Launcher: int launch_gemm_naive(const float* A, const float* B, float* C, int M, int N, int K,
//                                 float alpha, float beta)
//   A, B, C: device pointers; C is read (beta) and written; returns the hipGetLastError() code (0 = success).

#define BLOCK_SIZE 16

__global__ void gemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                           int N, int K, float alpha, float beta) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float sum = 0.0f;
    for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    C[row * N + col] = alpha * sum + beta * C[row * N + col];
  }
}

extern "C" int launch_gemm_naive(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                                 float beta) {
  dim3 block(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid((N + BLOCK_SIZE - 1) / BLOCK_SIZE, (M + BLOCK_SIZE - 1) / BLOCK_SIZE);
  hipLaunchKernelGGL(gemm_naive, grid, block, 0, 0, A, B, C, M, N, K, alpha, beta);
  return (int)hipGetLastError();
}
