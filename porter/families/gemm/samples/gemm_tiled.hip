#include "hip/hip_runtime.h"
// gemm (shared-memory tiled, NN, fp32): C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C[M,N], all row-major.
//   Each TILE_SIZE x TILE_SIZE block stages an A tile (As) and a B tile (Bs) in shared memory per K step; one
//   output element per thread. Edges are zero-filled, so M, N, K need not be multiples of TILE_SIZE.
// Launcher: int launch_gemm_tiled(const float* A, const float* B, float* C, int M, int N, int K,
//                                 float alpha, float beta)
//   A, B, C: device pointers; returns the hipGetLastError() code (0 = success).

#define TILE_SIZE 32

__global__ void gemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M,
                           int N, int K, float alpha, float beta) {
  __shared__ float As[TILE_SIZE][TILE_SIZE];
  __shared__ float Bs[TILE_SIZE][TILE_SIZE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE_SIZE + ty;
  int col = blockIdx.x * TILE_SIZE + tx;
  float acc = 0.0f;

  for (int t = 0; t < (K + TILE_SIZE - 1) / TILE_SIZE; ++t) {
    int ak = t * TILE_SIZE + tx;
    int bk = t * TILE_SIZE + ty;
    As[ty][tx] = (row < M && ak < K) ? A[(size_t)row * K + ak] : 0.0f;
    Bs[ty][tx] = (bk < K && col < N) ? B[(size_t)bk * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE_SIZE; ++k) acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) {
    size_t idx = (size_t)row * N + col;
    C[idx] = alpha * acc + beta * C[idx];
  }
}

extern "C" int launch_gemm_tiled(const float* A, const float* B, float* C, int M, int N, int K, float alpha,
                                 float beta) {
  dim3 block(TILE_SIZE, TILE_SIZE);
  dim3 grid((N + TILE_SIZE - 1) / TILE_SIZE, (M + TILE_SIZE - 1) / TILE_SIZE);
  hipLaunchKernelGGL(gemm_tiled, grid, block, 0, 0, A, B, C, M, N, K, alpha, beta);
  return (int)hipGetLastError();
}
