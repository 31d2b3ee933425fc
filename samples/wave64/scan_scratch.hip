// Scratch arrays sized for 32-lane warps that a warp scan indexes at warpSize + lane: on gfx942 the lanes of a
// 64-lane wavefront write past them.
#include <hip/hip_runtime.h>

// A Kogge-Stone scan in shared memory: each warp zeroes warpSize slots below its values, then adds at
// distances 1 .. 16 without a bound test; it writes s[warpSize + lane].
__device__ int warp_scan(int v, volatile int* s) {
  int idx = 2 * threadIdx.x - (threadIdx.x & (warpSize - 1));
  s[idx] = 0;
  idx += warpSize;
  int t = s[idx] = v;
  s[idx] = t += s[idx - 1];
  s[idx] = t += s[idx - 2];
  s[idx] = t += s[idx - 4];
  s[idx] = t += s[idx - 8];
  s[idx] = t += s[idx - 16];
  return s[idx - 1];
}

// Bug: 2 x 32 slots hold one warp's scan when warpSize is 32; wavefront 0 of gfx942 writes slots 64-127.
__global__ void scan_sums(int* x) {
  // expect: W64-008
  __shared__ int partial[64];
  if (threadIdx.x < warpSize) partial[threadIdx.x] = warp_scan(x[threadIdx.x], partial);
  __syncthreads();
  x[threadIdx.x] = partial[threadIdx.x % 32];
}

// Correct: 2 x 64 slots, the scan of one 64-lane wavefront.
__global__ void scan_sums_wave(int* x) {
  // ok: W64-008
  __shared__ int partial[128];
  if (threadIdx.x < warpSize) partial[threadIdx.x] = warp_scan(x[threadIdx.x], partial);
  __syncthreads();
  x[threadIdx.x] = partial[threadIdx.x % 32];
}

// Correct: threads past the first 32 leave before the store, so no lane writes past slot 63.
__global__ void upper_half(float* out) {
  // ok: W64-008
  __shared__ float s[64];
  int lane = threadIdx.x % warpSize;
  if (lane >= 32) return;
  s[lane + 32] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x % 32];
}

void launch_scans(int* x, float* y, int n, hipStream_t stream) {
  scan_sums<<<n, 256, 0, stream>>>(x);
  scan_sums_wave<<<n, 256, 0, stream>>>(x);
  upper_half<<<n, 64, 0, stream>>>(y);
}

// Bug: each block owns 256 = 32 lanes x 8 columns, but the lane id runs over the 64-lane wavefront: lanes 32-63
// add the next block's columns (and the last block's run past the row).
// expect: W64-008
constexpr int kTileCols = 256;
constexpr int kPerLane = 8;
__global__ void add_tiles(const float* a, float* c) {
  int col = blockIdx.x * kTileCols + (threadIdx.x % warpSize) * kPerLane;
  for (int i = 0; i < kPerLane; ++i) c[col + i] += a[col + i];
}

// Correct: the tile is the wavefront's width times the per-lane count.
template <int Tile>
__global__ void add_tiles_wave(const float* a, float* c) {
  // ok: W64-008
  int col = blockIdx.x * Tile + (threadIdx.x % warpSize) * kPerLane;
  for (int i = 0; i < kPerLane; ++i) c[col + i] += a[col + i];
}

void launch_tiles(const float* a, float* c, int n, int width, hipStream_t stream) {
  add_tiles<<<n / kTileCols, 64, 0, stream>>>(a, c);
  if (width == 64) add_tiles_wave<64 * kPerLane><<<n / (64 * kPerLane), 64, 0, stream>>>(a, c);
  else add_tiles_wave<32 * kPerLane><<<n / (32 * kPerLane), 32, 0, stream>>>(a, c);
}
