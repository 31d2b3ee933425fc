// Host-side launch math and compile-time uses of the warp width.
#include <hip/hip_runtime.h>

// Each row of the block is meant to be one warp: the vote spans two rows of a 64-lane wavefront.
__global__ void row_any_negative(const float* x, int* flags, int cols) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  int neg = x[row * cols + threadIdx.x] < 0.0f;
  // expect: W64-009
  if (__any(neg) && threadIdx.x == 0) flags[row] = 1;
}

__global__ void row_scale(float* x, int cols) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  x[row * cols + threadIdx.x] *= 2.0f;
}

__global__ void per_lane_scratch(float* out) {
  // expect: W64-010
  __shared__ float scratch[warpSize];
  // ok: W64-010
  int w = warpSize;
  scratch[threadIdx.x % w] = 1.0f;
  out[threadIdx.x] = scratch[threadIdx.x % w];
}

void launch_rows(const float* x, float* y, int* flags, int rows, int n) {
  dim3 block(32, 8);
  // expect: W64-009
  hipLaunchKernelGGL(row_any_negative, dim3(rows / 8), dim3(32, 8), 0, 0, x, flags, 32);
  // ok: W64-009
  row_scale<<<rows / 8, block>>>(y, 32);
  // expect: W64-009
  int warps = (n + 31) / 32;
  // ok: W64-009
  int tiles = (n + 31) / 32;
  // expect: W64-011
  int threads = 4 * __AMDGCN_WAVEFRONT_SIZE;
  row_scale<<<warps + tiles, threads>>>(y, 32);
}

// ok: W64-011
__device__ int wave_width() { return __AMDGCN_WAVEFRONT_SIZE; }

// Bug: __GFX9__ is defined only in the device compilation, so host code sees WARP_SIZE 32 on gfx942.
// expect: W64-011
#if defined(__GFX9__)
  #define WARP_SIZE 64
#else
  #define WARP_SIZE 32
#endif

// Correct: the architecture test picks a constant that only device code uses.
// ok: W64-011
#if defined(__AMDGCN_WAVEFRONT_SIZE)
  #define DEVICE_WAVE __AMDGCN_WAVEFRONT_SIZE
#else
  #define DEVICE_WAVE 64
#endif

__global__ void rows_per_wave(float* x) {
  x[threadIdx.x % DEVICE_WAVE] *= 2.0f;
}

void launch_rows_per_wave(float* x, int m) {
  int num_blocks = (m + 3) / 4;
  // expect: W64-011
  if (WARP_SIZE == 64) num_blocks = (m + 1) / 2;
  // expect: W64-011
  if (warpSize == 64) num_blocks = (m + 1) / 2;
  // ok: W64-011
  int w = 0;
  hipDeviceGetAttribute(&w, hipDeviceAttributeWarpSize, 0);
  rows_per_wave<<<num_blocks * (w / 64 + 1), 128>>>(x);
}

// Each block owns warpSize columns (64 on gfx942), the host launches one block per 32 columns.
__global__ void column_sums(float* dbias, const float* dout, int rows, int cols) {
  const int col = blockIdx.x * warpSize + threadIdx.x % warpSize;
  float s = 0.0f;
  for (int r = threadIdx.x / warpSize; r < rows; r += blockDim.x / warpSize) s += dout[r * cols + col];
  atomicAdd(&dbias[col], s);
}

void launch_column_sums(float* dbias, const float* dout, int rows, int cols, int w) {
  // expect: W64-009
  const int grid_size = cols / 32;
  column_sums<<<grid_size, 128>>>(dbias, dout, rows, cols);
  // ok: W64-009
  const int grid_wave = cols / w;
  column_sums<<<grid_wave, 128>>>(dbias, dout, rows, cols);
}

// A warp-named count of blocks: its divisor, 32 warps of 32 threads, is the block and counts threads; the
// round-up macro writes it twice (exllamav2's rms_norm launcher). A warp count from the same macro is reported.
#define DIVIDE(x, size) (((x) + (size) - 1) / (size))
#define ROW_WARPS 32
#define ROW_WARP_THREADS 32

void launch_rows_per_block(float* x, int dim) {
  // ok: W64-009
  int blocks_per_warp = DIVIDE(dim, ROW_WARPS * ROW_WARP_THREADS);
  // expect: W64-009
  int warps_per_row = DIVIDE(dim, 32);
  rows_per_wave<<<blocks_per_warp, warps_per_row>>>(x);
}

// The macro that stands for the width is the line to change (vllm's cuda_compat.h shape).
// expect: W64-010
#define WAVE_WIDTH warpSize

__global__ void per_wave_partials(float* out) {
  // expect: W64-010
  __shared__ float partial[1024 / WAVE_WIDTH];
  partial[threadIdx.x / WAVE_WIDTH] = 1.0f;
  out[threadIdx.x] = partial[0];
}
