// Blocks narrower than a wavefront, each row meant to be one warp: a 64-lane wavefront holds two rows of a
// (32, k) block and four of a (16, k) one, so a whole-wavefront operation mixes rows. The reduction helper's
// header is not on the include path (PyTorch's cuda_utils::WarpReduceSum, C10_WARP_SIZE wide): its name says
// what it is, and findings at its calls have low confidence.
#include <hip/hip_runtime.h>
#include "not_on_the_include_path/block_reduce.cuh"

constexpr int kTile = 32;

// Bug: the tile column read at threadIdx.x is reduced across the whole wavefront, rows y and y + 1 together.
template <typename T>
__global__ void tile_column_sums(const T* x, T* out, int n) {
  __shared__ T tile[kTile][kTile + 1];
  tile[threadIdx.y][threadIdx.x] = x[threadIdx.y * n + blockIdx.x * kTile + threadIdx.x];
  __syncthreads();
  T v = tile[threadIdx.x][threadIdx.y];
  // expect: W64-009
  v = cuda_utils::WarpReduceSum<T>(v);
  if (threadIdx.x == 0) out[blockIdx.x * kTile + threadIdx.y] = v;
}

// Correct: offsets 16..1 keep each 32-lane half apart, and only threadIdx.x == 0 (lanes 0 and 32) reads.
__device__ float row_sum32(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  return v;
}

__global__ void tile_column_sums32(const float* x, float* out, int n) {
  __shared__ float tile[kTile][kTile + 1];
  tile[threadIdx.y][threadIdx.x] = x[threadIdx.y * n + blockIdx.x * kTile + threadIdx.x];
  __syncthreads();
  // ok: W64-009
  float v = row_sum32(tile[threadIdx.x][threadIdx.y]);
  if (threadIdx.x == 0) out[blockIdx.x * kTile + threadIdx.y] = v;
}

// Correct: a helper given its width (ggml's warp_reduce_sum<WARP_SIZE>) reduces one row.
#define ROW_WIDTH 32
__global__ void row_sums_width(const float* x, float* out, int n) {
  float v = x[(blockIdx.x * blockDim.y + threadIdx.y) * n + threadIdx.x];
  // ok: W64-009
  v = warp_reduce_sum<ROW_WIDTH>(v);
  if (threadIdx.x == 0) out[blockIdx.x * blockDim.y + threadIdx.y] = v;
}

// Correct: a one-row block as wide as the wavefront reduces the whole block.
__global__ void block_sum(const float* x, float* out) {
  // ok: W64-009
  float v = cuda_utils::WarpReduceSum<float>(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Bug: rows of 16 threads, two to a 32-lane warp but four to a wavefront: lane 0 of the wavefront broadcasts
// to the rows of what was the next warp.
__global__ void row_leader16(const float* x, float* out, int n) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  float v = x[row * n + threadIdx.x];
  // expect: W64-009
  out[row * n + threadIdx.x] = v - __shfl(v, 0);
}

// Correct: a 4 x 4 tile transposed through shuffles; its 16-thread block is a single warp on NVIDIA as on
// gfx942, so the lane index y * 4 + x names the same thread on both.
__global__ void tile_transpose4(const float* x, float* out) {
  float v = x[threadIdx.y * 4 + threadIdx.x];
  // ok: W64-009
  out[threadIdx.x * 4 + threadIdx.y] = __shfl(v, threadIdx.y * 4 + threadIdx.x);
}

template <typename T>
void launch_tiles(const T* x, T* out, const float* xf, float* outf, int n, hipStream_t stream) {
  // expect: W64-009
  constexpr int kThreadX = kTile;
  constexpr int kThreadY = kTile / 2;
  tile_column_sums<T><<<n / kTile, dim3(kThreadX, kThreadY), 0, stream>>>(x, out, n);
  // ok: W64-009
  tile_column_sums32<<<n / kTile, dim3(kThreadX, kThreadY), 0, stream>>>(xf, outf, n);
  // ok: W64-009
  row_sums_width<<<n / 8, dim3(32, 8), 0, stream>>>(xf, outf, n);
  // ok: W64-009
  block_sum<<<n / 64, 64, 0, stream>>>(xf, outf);
  // expect: W64-009
  row_leader16<<<n / 8, dim3(16, 8), 0, stream>>>(xf, outf, n);
  // ok: W64-009
  tile_transpose4<<<1, dim3(4, 4), 0, stream>>>(xf, outf);
}

template void launch_tiles<float>(const float*, float*, const float*, float*, int, hipStream_t);
