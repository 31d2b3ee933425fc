#include "hip/hip_runtime.h"
// gemm (shared-memory tiled, NT, fp32): C[M,N] = alpha * A[M,K] @ B[N,K]^T + beta * C[M,N], all row-major
//   (B is stored N x K, i.e. B^T is column-major K x N: the "x @ W^T" layout of a linear layer).
//   Both tiles are loaded row-wise along K (coalesced); the inner product reads Bs by column.
// Launcher: int launch_gemm_nt_tiled(const float* A, const float* B, float* C, int M, int N, int K,
//                                    float alpha, float beta)
//   A, B, C: device pointers; returns the hipGetLastError() code (0 = success).

#define TILE_DIM 16

__global__ void gemm_nt_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                              int M, int N, int K, float alpha, float beta) {
  __shared__ float As[TILE_DIM][TILE_DIM];
  __shared__ float Bs[TILE_DIM][TILE_DIM];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE_DIM + ty;        // row of A and C
  int col = blockIdx.x * TILE_DIM + tx;        // column of C
  int brow = blockIdx.x * TILE_DIM + ty;       // row of B loaded by this thread
  float acc = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TILE_DIM) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[(size_t)row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (brow < N && k0 + tx < K) ? B[(size_t)brow * K + k0 + tx] : 0.0f;
    __syncthreads();
    // expect: LDS-001
    for (int k = 0; k < TILE_DIM; ++k) acc += As[ty][k] * Bs[tx][k];
    __syncthreads();
  }
  if (row < M && col < N) C[(size_t)row * N + col] = alpha * acc + beta * C[(size_t)row * N + col];
}

extern "C" int launch_gemm_nt_tiled(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                                    float beta) {
  dim3 threads(TILE_DIM, TILE_DIM);
  dim3 blocks((N + TILE_DIM - 1) / TILE_DIM, (M + TILE_DIM - 1) / TILE_DIM);
  gemm_nt_tiled<<<blocks, threads>>>(A, B, C, M, N, K, alpha, beta);
  return (int)hipGetLastError();
}
