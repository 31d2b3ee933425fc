#include "hip/hip_runtime.h"
#include "hip/hip_fp16.h"
// gemm (shared-memory tiled, NN, fp16 in / fp32 accumulate):
//   C[M,N] = alpha * A[M,K] @ B[K,N] + beta * C[M,N]; A, B, C row-major __half; products accumulate in float and
//   the epilogue (alpha, beta) runs in float before one rounding to __half.
//   TILE_M x TILE_N outputs per block of TILE_N x (TILE_M / THREAD_M) threads: each thread computes THREAD_M
//   outputs of one column, reusing the Bs value it reads from shared memory THREAD_M times.
// Launcher: int launch_gemm_f16_tiled(const __half* A, const __half* B, __half* C, int M, int N, int K,
//                                     float alpha, float beta)
//   A, B, C: device pointers to fp16 data; returns the hipGetLastError() code (0 = success).

#define TILE_M 64
#define TILE_N 32
#define TILE_K 32
#define THREAD_M 4

__global__ void gemm_f16_tiled(const __half* __restrict__ A, const __half* __restrict__ B, __half* __restrict__ C,
                               int M, int N, int K, float alpha, float beta) {
  __shared__ __half As[TILE_M][TILE_K];
  __shared__ __half Bs[TILE_K][TILE_N];
  const int tx = threadIdx.x;                    // 0 .. TILE_N - 1
  const int ty = threadIdx.y;                    // 0 .. TILE_M / THREAD_M - 1
  const int tid = ty * TILE_N + tx;
  const int nthreads = TILE_N * (TILE_M / THREAD_M);
  const int row0 = blockIdx.y * TILE_M;
  const int col = blockIdx.x * TILE_N + tx;
  float acc[THREAD_M];
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i) acc[i] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += TILE_K) {
    for (int i = tid; i < TILE_M * TILE_K; i += nthreads) {
      int r = i / TILE_K, c = i % TILE_K;
      As[r][c] = (row0 + r < M && k0 + c < K) ? A[(size_t)(row0 + r) * K + k0 + c] : __float2half(0.0f);
    }
    for (int i = tid; i < TILE_K * TILE_N; i += nthreads) {
      int r = i / TILE_N, c = i % TILE_N;
      int gc = blockIdx.x * TILE_N + c;
      Bs[r][c] = (k0 + r < K && gc < N) ? B[(size_t)(k0 + r) * N + gc] : __float2half(0.0f);
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < TILE_K; ++k) {
      float b = __half2float(Bs[k][tx]);
#pragma unroll
      for (int i = 0; i < THREAD_M; ++i) acc[i] += __half2float(As[ty * THREAD_M + i][k]) * b;
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < THREAD_M; ++i) {
    int row = row0 + ty * THREAD_M + i;
    if (row < M && col < N) {
      size_t idx = (size_t)row * N + col;
      float c = beta != 0.0f ? __half2float(C[idx]) : 0.0f;
      C[idx] = __float2half(alpha * acc[i] + beta * c);
    }
  }
}

extern "C" int launch_gemm_f16_tiled(const __half* A, const __half* B, __half* C, int M, int N, int K, float alpha,
                                     float beta) {
  dim3 block(TILE_N, TILE_M / THREAD_M);
  dim3 grid((N + TILE_N - 1) / TILE_N, (M + TILE_M - 1) / TILE_M);
  hipLaunchKernelGGL(gemm_f16_tiled, grid, block, 0, 0, A, B, C, M, N, K, alpha, beta);
  return (int)hipGetLastError();
}
