// One-row blocks of 32 threads, one warp on NVIDIA: on gfx942 such a block fills half a wavefront, and lanes
// 32-63 are never launched.
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

#define WARP_THREADS 32
// The wavefront width a project picks for its ROCm build.
constexpr int kWave = 64;

// Bug: the butterfly's first step (offset 32) reads lanes 32-63, which a 32-thread block does not have.
__global__ void dot_kernel(const float* x, const float* y, float* out, int n) {
  float v = 0.0f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += x[i] * y[i];
  // expect: W64-009
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Right but wasteful: a scan that reads only lower lanes (guarded by i <= threadIdx.x) gives the right sums in
// a 32-thread block; lanes 32-63 of each wavefront idle (a note at the launch, nothing here).
__global__ void prefix_kernel(float* x) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = 1; i < warpSize; i <<= 1) {
    // ok: W64-009
    float u = __shfl_up(v, i);
    if (i <= threadIdx.x) v += u;
  }
  x[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Correct: a 32-thread block with no cross-lane work; the 32 is a data width.
__global__ void scale_kernel(float* x, float a) { x[blockIdx.x * blockDim.x + threadIdx.x] *= a; }

// Correct: shuffles of width 32 stay inside the block's 32 lanes.
__global__ void dot32_kernel(const float* x, float* out) {
  float v = x[blockIdx.x * 32 + threadIdx.x];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor(v, o, 32);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Bug: a tile of the wavefront's width cannot be cut from a 32-thread block (nor from one 32-thread row of a
// (32, 4) block): its vote counts lanes the block or row does not own.
__global__ void row_has_zero(const float* x, int* out, int n) {
  // expect: W64-009
  cg::thread_block_tile<kWave> tile = cg::tiled_partition<kWave>(cg::this_thread_block());
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  bool zero = false;
  for (int i = tile.thread_rank(); i < n; i += kWave) zero |= x[row * n + i] == 0.0f;
  if (tile.any(zero) && tile.thread_rank() == 0) out[row] = 1;
}

// Correct: a tile of 32 is one 32-thread row, whatever the wavefront.
__global__ void row_has_zero32(const float* x, int* out, int n) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  bool zero = false;
  for (int i = tile.thread_rank(); i < n; i += 32) zero |= x[row * n + i] == 0.0f;
  if (tile.any(zero) && tile.thread_rank() == 0) out[row] = 1;
}

void launch(const float* x, const float* y, float* out, float* z, int n, int blocks, hipStream_t stream) {
  // expect: W64-009
  dot_kernel<<<blocks, WARP_THREADS, 0, stream>>>(x, y, out, n);
  // expect: W64-009
  prefix_kernel<<<n / 32, dim3(WARP_THREADS, 1), 0, stream>>>(z);
  // ok: W64-009
  prefix_kernel<<<n / 16, 16, 0, stream>>>(z);   // 16 threads idle half an NVIDIA warp as well
  // ok: W64-009
  scale_kernel<<<n / 32, 32, 0, stream>>>(z, 2.0f);
  // ok: W64-009
  dot32_kernel<<<n / 32, dim3(32), 0, stream>>>(x, out);
  // expect: W64-009
  row_has_zero<<<n, 32, 0, stream>>>(x, (int*)z, n);
  // expect: W64-009
  row_has_zero<<<n / 4, dim3(32, 4), 0, stream>>>(x, (int*)z, n);
  // ok: W64-009
  row_has_zero32<<<n / 4, dim3(32, 4), 0, stream>>>(x, (int*)z, n);
  int width = 0;
  hipDeviceGetAttribute(&width, hipDeviceAttributeWarpSize, 0);
  // ok: W64-009
  dot_kernel<<<blocks, width, 0, stream>>>(x, y, out, n);
}

// Rows of 32 threads whose count is a template parameter's value: each row is a warp on NVIDIA, and on gfx942
// a wavefront holds two of them whenever the block has more than one.
__global__ void rows_minus_first(float* x, int n) {
  float v = x[(blockIdx.x * blockDim.y + threadIdx.y) * n + threadIdx.x];
  // expect: W64-009
  x[(blockIdx.x * blockDim.y + threadIdx.y) * n + threadIdx.x] = v - __shfl(v, 0);
}

template <int Width>
void launch_rows(float* x, float* z, int n, hipStream_t stream) {
  // expect: W64-009
  const dim3 threads = {32u, Width / 16, 1};
  rows_minus_first<<<n / (Width / 16), threads, 0, stream>>>(x, n);
  // ok: W64-009
  const dim3 tiles = {32u, Width / 16, 1};
  scale_kernel<<<n, tiles, 0, stream>>>(z, 2.0f);
}

// Correct: a scan over a (4, 4, 8) block whose lanes are numbered in 32-lane groups of the linear thread index;
// the shuffled value is added only where the group lane is at least the offset, so no lane reads across a group
// boundary, whichever rows a wavefront holds.
__global__ void cell_offsets(unsigned* counts) {
  unsigned t = threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z);
  unsigned lane = t % 32;
  unsigned v = counts[blockIdx.x * 128 + t];
  for (int d = 1; d < 32; d *= 2) {
    // ok: W64-009
    unsigned u = __shfl_up(v, d);
    if (lane >= d) v += u;
  }
  counts[blockIdx.x * 128 + t] = v;
}

// Bug: the same scan without the group guard reads lane 31's sum into lane 32 of each wavefront.
__global__ void cell_offsets_wave(unsigned* counts) {
  unsigned t = threadIdx.x + 4 * (threadIdx.y + 4 * threadIdx.z);
  unsigned v = counts[blockIdx.x * 128 + t];
  for (int d = 1; d < 32; d *= 2) {
    // expect: W64-009
    v += __shfl_up(v, d);
  }
  counts[blockIdx.x * 128 + t] = v;
}

void launch_tests(const float* x, const float* y, float* out, float* z, unsigned* counts, int n,
                  hipStream_t stream) {
  // ok: W64-009
  prefix_kernel<<<1, 32, 0, stream>>>(z);   // one block: its 32 threads of work fill one wavefront either way
  // expect: W64-009
  dot_kernel<<<1, 32, 0, stream>>>(x, y, out, n);   // one block still reads lanes it does not have
  // ok: W64-009
  cell_offsets<<<n, dim3(4, 4, 8), 0, stream>>>(counts);
  // expect: W64-009
  cell_offsets_wave<<<n, dim3(4, 4, 8), 0, stream>>>(counts);
}

// Correct: every launch of this kernel has one 32-thread row, so the ballot's bits 32-63 (lanes that are never
// launched) are always zero and the 32-bit copy loses nothing.
__global__ void vote_32(const int* x, unsigned* out) {
  // ok: W64-004
  unsigned m = __ballot(x[blockIdx.x * 32 + threadIdx.x] > 0);
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}

// Bug: the same kernel launched with 64-thread blocks drops the votes of lanes 32-63.
__global__ void vote_64(const int* x, unsigned* out) {
  // expect: W64-004
  unsigned m = __ballot(x[blockIdx.x * 64 + threadIdx.x] > 0);
  if (threadIdx.x == 0) out[blockIdx.x] = m;
}

void launch_votes(const int* x, unsigned* out, int n, hipStream_t stream) {
  // expect: W64-009
  vote_32<<<n, 32, 0, stream>>>(x, out);
  vote_64<<<n, 64, 0, stream>>>(x, out);
}
