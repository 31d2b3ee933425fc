// Tiled SGEMM / HGEMM as hipified from the CUDA programming guide's shared-memory matrix multiply.
#include "hip/hip_runtime.h"
#include "hip/hip_fp16.h"

template <int BLOCK_SIZE>
__global__ void matrixMulShared(float* C, const float* A, const float* B, int wA, int wB) {
  int bx = blockIdx.x, by = blockIdx.y;
  int tx = threadIdx.x, ty = threadIdx.y;
  int aBegin = wA * BLOCK_SIZE * by;
  int aEnd = aBegin + wA - 1;
  int bBegin = BLOCK_SIZE * bx;
  float Csub = 0;
  for (int a = aBegin, b = bBegin; a <= aEnd; a += BLOCK_SIZE, b += BLOCK_SIZE * wB) {
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
    // ok: LDS-001
    As[ty][tx] = A[a + wA * ty + tx];
    // ok: LDS-001
    Bs[ty][tx] = B[b + wB * ty + tx];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      // ok: LDS-001, LDS-002
      Csub += As[ty][k] * Bs[k][tx];
    }
    __syncthreads();
  }
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

#define HTILE 32
// Half-precision tiles: 2-byte lanes share dwords along a row (no conflict), the k-loop reads broadcast.
__global__ void hgemmShared(__half* C, const __half* A, const __half* B, int M, int N, int K) {
  __shared__ __half sA[HTILE][HTILE];
  __shared__ __half sB[HTILE][HTILE];
  int row = blockIdx.y * HTILE + threadIdx.y;
  int col = blockIdx.x * HTILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < K; t += HTILE) {
    // ok: LDS-001
    sA[threadIdx.y][threadIdx.x] = A[row * K + t + threadIdx.x];
    // ok: LDS-001
    sB[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * N + col];
    __syncthreads();
    for (int k = 0; k < HTILE; ++k) {
      // ok: LDS-001
      acc += __half2float(sA[threadIdx.y][k]) * __half2float(sB[k][threadIdx.x]);
    }
    __syncthreads();
  }
  C[row * N + col] = __float2half(acc);
}

// A tile of B kept transposed ("Bs[tx][k]"): the k-loop then walks a column, 16 rows of 16 floats apart.
template <int TILE>
__global__ void matmulTransposedB(float* C, const float* A, const float* B, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float BsT[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float sum = 0.0f;
  for (int t = 0; t < n / TILE; ++t) {
    As[ty][tx] = A[row * n + t * TILE + tx];
    // expect: LDS-001
    BsT[tx][ty] = B[(t * TILE + ty) * n + col];
    __syncthreads();
    for (int k = 0; k < TILE; ++k) {
      // expect: LDS-001
      sum += As[ty][k] * BsT[tx][k];
    }
    __syncthreads();
  }
  C[row * n + col] = sum;
}

void gemm(float* C, const float* A, const float* B, __half* hC, const __half* hA, const __half* hB, int n) {
  dim3 threads16(16, 16), threads32(32, 32);
  dim3 grid(n / 16, n / 16);
  hipLaunchKernelGGL(matrixMulShared<16>, grid, dim3(16, 16), 0, 0, C, A, B, n, n);
  hipLaunchKernelGGL(matrixMulShared<32>, dim3(n / 32, n / 32), dim3(32, 32), 0, 0, C, A, B, n, n);
  hipLaunchKernelGGL(hgemmShared, dim3(n / HTILE, n / HTILE), dim3(HTILE, HTILE), 0, 0, hC, hA, hB, n, n, n);
  hipLaunchKernelGGL(matmulTransposedB<16>, dim3(n / 16, n / 16), dim3(16, 16), 0, 0, C, A, B, n);
}
