// Matrix transposes through a shared tile, as hipify leaves the CUDA SDK's transpose sample.
#include "hip/hip_runtime.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Naive tile: the column read tile[threadIdx.x][...] puts all 32 lanes of a half-wave on one bank.
__global__ void transposeNaiveTile(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // ok: LDS-001
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // expect: LDS-001
    odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// The classic fix: one float of padding per row, the column walk steps 33 dwords = one bank.
__global__ void transposeNoBankConflicts(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int xIndex = blockIdx.x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // ok: LDS-001
    tile[threadIdx.y + j][threadIdx.x] = idata[(yIndex + j) * width + xIndex];
  }
  __syncthreads();
  xIndex = blockIdx.y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // ok: LDS-001, LDS-003
    odata[(yIndex + j) * height + xIndex] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// Padded declaration, but the read goes through a flattened pointer with the unpadded stride: the padding is
// bypassed (and the element read is not the one written).
__global__ void transposeFlatAlias(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  float* tile_flat = &tile[0][0];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // ok: LDS-003
    tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  }
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // expect: LDS-003
    odata[(y + j) * height + x] = tile_flat[threadIdx.x * TILE_DIM + threadIdx.y + j];
  }
}

// 1-D staging buffer sized for padded rows (33 per row) but indexed with a stride of 32.
__global__ void transposeFlatBuffer(float* odata, const float* idata, int width) {
  __shared__ float buf[TILE_DIM * (TILE_DIM + 1)];
  int tx = threadIdx.x, ty = threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // expect: LDS-003
    buf[(ty + j) * TILE_DIM + tx] = idata[(blockIdx.y * TILE_DIM + ty + j) * width + blockIdx.x * TILE_DIM + tx];
  }
  __syncthreads();
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
    // ok: LDS-001
    odata[(blockIdx.x * TILE_DIM + ty + j) * width + blockIdx.y * TILE_DIM + tx] = buf[tx * (TILE_DIM + 1) + ty + j];
  }
}

// 16 x 16 tiles moved by 256 threads, the row and column taken apart from threadIdx.x (r = tid / 16,
// c = tid % 16). The buffer has room for padded rows of 17 but both sides step rows by 16: the row-major write
// is conflict-free (only LDS is wasted), the column read sends lanes with equal c parity to one bank.
__global__ void transposeDivModUnpadded(float* out, const float* in, int n) {
  __shared__ float block[16 * (16 + 1)];
  int r = threadIdx.x / 16;
  int c = threadIdx.x % 16;
  // ok: LDS-001, LDS-003
  block[r * 16 + c] = in[(blockIdx.x * 16 + r) * n + c];
  __syncthreads();
  // expect: LDS-003
  out[(blockIdx.x * 16 + r) * n + c] = block[c * 16 + r];
}

// The twin with 32-wide rows (r = tid / 32, c = tid % 32) through the padded row of 33: a 32-lane phase is one
// row, so the write walks consecutive banks and the column read steps 33 dwords (bank c + r): conflict-free.
// (With 16-wide rows padded to 17 a phase spans two rows and a 2-way conflict remains.)
__global__ void transposeDivModPadded(float* out, const float* in, int n) {
  __shared__ float block[32 * (32 + 1)];
  int r = threadIdx.x / 32;
  int c = threadIdx.x % 32;
  // ok: LDS-001, LDS-003
  block[r * 33 + c] = in[(blockIdx.x * 8 + r) * n + c];
  __syncthreads();
  // ok: LDS-001, LDS-003
  out[(blockIdx.x * 8 + r) * n + c] = block[c * 33 + r];
}

void launchTransposes(float* d_out, const float* d_in, int w, int h) {
  dim3 grid(w / TILE_DIM, h / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
  hipLaunchKernelGGL(transposeNaiveTile, dim3(w / TILE_DIM, h / TILE_DIM), dim3(TILE_DIM, BLOCK_ROWS), 0, 0,
                     d_out, d_in, w, h);
  hipLaunchKernelGGL(transposeNoBankConflicts, dim3(w / TILE_DIM, h / TILE_DIM), dim3(TILE_DIM, BLOCK_ROWS), 0, 0,
                     d_out, d_in, w, h);
  hipLaunchKernelGGL(transposeFlatAlias, dim3(w / TILE_DIM, h / TILE_DIM), dim3(TILE_DIM, BLOCK_ROWS), 0, 0,
                     d_out, d_in, w, h);
  hipLaunchKernelGGL(transposeFlatBuffer, dim3(w / TILE_DIM, h / TILE_DIM), dim3(TILE_DIM, BLOCK_ROWS), 0, 0,
                     d_out, d_in, w);
  hipLaunchKernelGGL(transposeDivModUnpadded, dim3(h / 16), dim3(256), 0, 0, d_out, d_in, w);
  hipLaunchKernelGGL(transposeDivModPadded, dim3(h / 16), dim3(256), 0, 0, d_out, d_in, w);
}
