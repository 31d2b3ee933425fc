// Launch geometry read from the host code: the block shape decides which lanes share a wavefront row, so the
// LDS model takes it from the launch (a dim3 variable, a scalar variable, __launch_bounds__ with a constant)
// rather than assuming 256 threads.
#include "hip/hip_runtime.h"
#include <cassert>

#define ROWS 64
constexpr int QUAD = 4;
constexpr int BLOCK = 128;

// Block 4 x 64 from `dim3 threads`: each wavefront row is 4 lanes wide, so 8 rows of a 32-float tile start on
// bank 0 together. Under an assumed 32-wide block this read would look conflict-free.
__global__ void narrowRows(float* out) {
  __shared__ float sm[ROWS][32];
  // expect: LDS-001
  sm[threadIdx.y][threadIdx.x] = 1.0f;
  __syncthreads();
  // expect: LDS-001
  out[threadIdx.y * QUAD + threadIdx.x] = sm[threadIdx.y][QUAD - 1 - threadIdx.x];
}

// Launched with 16 threads: stride-2 floats reach banks 0, 2, ..., 30 once each (no conflict). With 256 assumed
// threads, lanes 0 and 16 would share a bank.
__global__ void sixteenLanes(float* out) {
  __shared__ float s[64];
  // ok: LDS-001
  s[threadIdx.x * 2] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

// Launched with a block that is a runtime value: the model assumes 256 threads and says so.
__global__ void runtimeBlock(float* out) {
  __shared__ float s[256 * 8];
  // expect: LDS-001
  s[threadIdx.x * 8] = out[threadIdx.x];
}

// Block dim3(4, 8, n): x and y are constants, only z is not. Rows of 4 lanes step through 32-float rows, so
// lanes 0, 4, 8, ... share bank 0; the depth is sized for the default thread count and said so.
__global__ void partlyConstant(float* out) {
  __shared__ float s[8][32];
  // expect: LDS-001
  s[threadIdx.y][threadIdx.x] = out[threadIdx.x];
}

// No launch in this file, but the kernel asserts its block shape: x = 4 and y = 8 are taken from the asserts.
__global__ void assertedShape(float* out) {
  assert(blockDim.x == 4);
  assert(blockDim.y == 8);
  __shared__ float s[8][32];
  // expect: LDS-001
  s[threadIdx.y][threadIdx.x] = out[threadIdx.x];
}

// A kernel argument that every launch in the file passes as the same constant is taken as that constant: rows
// of Bc = 32 floats, one row per lane, start every lane on bank 0.
__global__ void rowsPerLane(float* out, int Bc) {
  extern __shared__ float S[];
  for (int y = 0; y < Bc; ++y) {
    // expect: LDS-001
    S[Bc * threadIdx.x + y] = out[y];
  }
}

// The same body launched with rows of 33 floats: each lane's row starts one bank further, no conflict.
__global__ void paddedRowsPerLane(float* out, int Bc) {
  extern __shared__ float S[];
  for (int y = 0; y < Bc; ++y) {
    // ok: LDS-001
    S[Bc * threadIdx.x + y] = out[y];
  }
}

// The argument is computed on the host from values the file's own driver passes down (C = 768, NH = 12 in
// runModel): d = 64 floats per lane's row, every lane on bank 0.
__global__ void headRows(float* out, int d) {
  extern __shared__ float Q[];
  for (int x = 0; x < d; ++x) {
    // expect: LDS-001
    Q[threadIdx.x * d + x] = out[x];
  }
}

// The same kernel body launched with a 256-thread scalar variable: 32 lanes per phase, 2-way conflict.
__global__ void wideLanes(float* out) {
  __shared__ float s[512];
  // expect: LDS-001
  s[threadIdx.x * 2] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

// __launch_bounds__ naming a constexpr constant: 128 threads, 1-D.
__global__ void __launch_bounds__(BLOCK) bounded(float* out) {
  __shared__ float s[BLOCK * 32];
  // expect: LDS-001
  s[threadIdx.x * 32] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}

// A kernel argument passed from a host template's parameter: the instantiation the file makes (runTiles<32>)
// binds it, so rows are 32 floats apart and the 4 rows of a 4 x 4 block share each bank.
__global__ void tileRows(float* out, const int width) {
  extern __shared__ float tile[];
  // expect: LDS-001
  tile[threadIdx.y * width + threadIdx.x] = out[threadIdx.x];
}

// The same body launched with rows of 36 floats: each row starts 4 banks further, the 16 lanes hit 16 banks.
__global__ void paddedTileRows(float* out, const int width) {
  extern __shared__ float tile[];
  // ok: LDS-001
  tile[threadIdx.y * width + threadIdx.x] = out[threadIdx.x];
}

template <unsigned Width>
void runTiles(float* d) {
  tileRows<<<1, dim3(4, 4), Width * 4 * sizeof(float)>>>(d, Width);
  paddedTileRows<<<1, dim3(4, 4), (Width + 4) * 4 * sizeof(float)>>>(d, Width + 4);
}

// A launch template instantiated with the 4 x 4 block of its launch, whose stream is HIP's hipStreamDefault
// flag (0, the null stream): rows of 64 floats, 4-way.
template <unsigned Width>
__global__ void squareTile(float* out) {
  __shared__ float s[Width * Width];
  // expect: LDS-001
  s[threadIdx.y * Width + threadIdx.x] = out[threadIdx.x];
}

void launchAll(float* d, int n) {
  runTiles<32>(d);
  squareTile<64><<<dim3(16, 16), dim3(4, 4), 0, hipStreamDefault>>>(d);
  dim3 grid(8);
  dim3 threads(QUAD, ROWS);
  narrowRows<<<grid, threads>>>(d);
  dim3 small(16);
  hipLaunchKernelGGL(sixteenLanes, grid, small, 0, 0, d);
  int nthreads = 256;
  wideLanes<<<grid, nthreads>>>(d);
  dim3 chosen(n);
  runtimeBlock<<<grid, chosen>>>(d);
  dim3 blk = {4, 8, (unsigned)n / 32};
  partlyConstant<<<grid, blk>>>(d);
  const int Bc = 32;
  rowsPerLane<<<1, 32, 32 * Bc * sizeof(float)>>>(d, Bc);
  const int padded = 33;
  paddedRowsPerLane<<<1, 32, 32 * padded * sizeof(float)>>>(d, padded);
}

void launchHeads(float* d, int C, int NH) {
  const int dim = C / NH;
  headRows<<<1, 32, 32 * dim * sizeof(float)>>>(d, dim);
}

void runModel(float* d) {
  int C = 768;
  int NH = 12;
  launchHeads(d, C, NH);
}
