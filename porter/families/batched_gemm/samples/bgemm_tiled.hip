#include "hip/hip_runtime.h"
// batched_gemm (shared-memory tiled, strided, NN, fp32): for b in [0, batch):
//   C[b][M,N] = alpha * A[b][M,K] @ B[b][K,N] + beta * C[b][M,N], every matrix row-major; matrix b starts at
//   A + b * strideA, B + b * strideB, C + b * strideC (strides in elements).
//   BLOCK_SIZE x BLOCK_SIZE tiles of A and B in shared memory per K step; grid.z runs over the batch.
// Launcher: int launch_bgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K,
//                                  long long strideA, long long strideB, long long strideC, int batch,
//                                  float alpha, float beta)
//   A, B, C: device pointers; returns the hipGetLastError() code (0 = success).

#define BLOCK_SIZE 16

template <int TILE>
__global__ void bgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                            int N, int K, long long strideA, long long strideB, long long strideC, float alpha,
                            float beta) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const float* a = A + blockIdx.z * strideA;
  const float* b = B + blockIdx.z * strideB;
  float* c = C + blockIdx.z * strideC;
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? a[(size_t)row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? b[(size_t)(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) {
    size_t idx = (size_t)row * N + col;
    c[idx] = alpha * acc + beta * c[idx];
  }
}

extern "C" int launch_bgemm_tiled(const float* A, const float* B, float* C, int M, int N, int K, long long strideA,
                                  long long strideB, long long strideC, int batch, float alpha, float beta) {
  dim3 block(BLOCK_SIZE, BLOCK_SIZE);
  dim3 grid((N + BLOCK_SIZE - 1) / BLOCK_SIZE, (M + BLOCK_SIZE - 1) / BLOCK_SIZE, batch);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(bgemm_tiled<BLOCK_SIZE>), grid, block, 0, 0, A, B, C, M, N, K, strideA,
                     strideB, strideC, alpha, beta);
  return (int)hipGetLastError();
}
