// Block reductions with one partial per warp.
#include <hip/hip_runtime.h>

#define BLOCK 256
#define WARP_SIZE 32

// Bug: partials are written once per 64-lane wavefront but sized and read for 32-lane warps,
// so the second stage adds four slots nobody wrote.
__global__ void block_reduce_mixed(const float* in, float* out) {
  __shared__ float partial[BLOCK / WARP_SIZE];
  int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * BLOCK + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  // expect: W64-008
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    // expect: W64-008
    for (int i = 0; i < BLOCK / WARP_SIZE; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

// Correct: a generous array, counted with the wavefront width.
__global__ void block_reduce_wave(const float* in, float* out) {
  __shared__ float partial[32];
  int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  // ok: W64-008
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    // ok: W64-008
    for (int i = 0; i < blockDim.x / warpSize; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

// Bug: the warp count is a constant derived from 32 lanes; partials are read back per 64-lane wavefront.
// expect: W64-008
constexpr int NUM_WARPS = 256 / 32;

__global__ void block_reduce_const(const float* in, float* out) {
  __shared__ float partial[NUM_WARPS];
  float v = in[blockIdx.x * 256 + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  // expect: W64-008
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < NUM_WARPS; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

// Correct: the count follows the wavefront width.
// ok: W64-008
constexpr int NUM_WAVES = 256 / 64;

__global__ void block_reduce_const_ok(const float* in, float* out) {
  __shared__ float partial[NUM_WAVES];
  float v = in[blockIdx.x * 256 + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
  // ok: W64-008
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int i = 0; i < NUM_WAVES; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

// Bug: one partial per 64-lane wavefront (256 / 64 = 4 slots) read back by all 64 lanes of each wavefront:
// lanes 4-63 read past the array and the reduction adds what lies there (exllamav2's rms_norm before 6feebfb).
__global__ void block_reduce_all_lanes(const float* in, float* out) {
  __shared__ float partial[256 / 64];
  int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * 256 + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  // expect: W64-008
  v = partial[lane];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Correct: the lanes past the partials take 0 (6feebfb).
__global__ void block_reduce_lanes_guarded(const float* in, float* out) {
  __shared__ float partial[256 / 64];
  int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * 256 + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  __syncthreads();
  // ok: W64-008
  v = lane < 256 / 64 ? partial[lane] : 0.0f;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Bug: the same read in a kernel template whose partials are counted from warpSize, an array bound that ROCm 7
// rejects (W64-010) and that leaves clang no type for the array: the read is still found.
// expect: W64-010
#define WAVES (1024 / warpSize)

template <int K>
__global__ void block_reduce_waves(const float* in, float* out) {
  // expect: W64-010
  __shared__ float sums[WAVES];
  const int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * 1024 + threadIdx.x] * K;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (lane == 0) sums[threadIdx.x / warpSize] = v;
  __syncthreads();
  // expect: W64-008
  v = sums[lane];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Bug: a bound that depends on the template's block size and on warpSize. clang checks it only in an
// instantiation, and this file has none; ROCm 7 rejects it in every one (apex's NHWC batch norm before 7f38d9d2).
template <int THREADS>
__global__ void partials_per_template_block(const float* in, float* out) {
  // expect: W64-010
  __shared__ float partial[THREADS / warpSize];
  // ok: W64-010
  __shared__ float staged[THREADS / 64];
  const int lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * THREADS + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (lane == 0) partial[threadIdx.x / warpSize] = v;
  staged[threadIdx.x / 64] = v;
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0] + staged[0];
}

// A block scan helper: one partial per wavefront at buf[warp], then wavefront 0 stores its scanned partials at
// buf[lane] for all of its lanes, so its buffer needs one slot per lane (warpSize), not one per warp.
template <typename T>
__device__ T block_scan_into(T v, T* buf) {
  const unsigned lane = threadIdx.x % warpSize;
  const unsigned warp = threadIdx.x / warpSize;
  for (int o = 1; o < warpSize; o <<= 1) {
    const T up = __shfl_up(v, o);
    if (lane >= o) v += up;
  }
  if (lane == warpSize - 1) buf[warp] = v;
  __syncthreads();
  if (warp == 0) {
    T s = lane < blockDim.x / warpSize ? buf[lane] : 0;
    buf[lane] = s;
  }
  __syncthreads();
  return warp == 0 ? v : v + buf[warp - 1];
}

// The same helper behind a wrapper that passes the buffer on.
template <typename T>
__device__ T scan_wrapped(T v, T* scratch) { return block_scan_into(v, scratch); }

// A block sum helper: buf[warp] per wavefront, read back only at lanes below the wavefront count.
template <typename T>
__device__ T block_sum_into(T v, T* buf) {
  const unsigned lane = threadIdx.x % warpSize;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (lane == 0) buf[threadIdx.x / warpSize] = v;
  __syncthreads();
  v = lane < blockDim.x / warpSize ? buf[lane] : 0;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  return v;
}

// Bug: [32] scratch for the scan (enough on NVIDIA, where a warp has 32 lanes): lanes 32-63 of wavefront 0 store
// past it, directly, through the wrapper, and when 64 words are cast to 8-byte elements.
__global__ void scans_into_32(const long long* in, long long* out) {
  // expect: W64-008
  __shared__ long long direct[32];
  // expect: W64-008
  __shared__ long long wrapped[32];
  // expect: W64-008
  __shared__ unsigned int words[64];
  const long long v = in[blockIdx.x * blockDim.x + threadIdx.x];
  long long r = block_scan_into(v, direct);
  r += scan_wrapped(v, wrapped);
  r += block_scan_into(v, reinterpret_cast<long long*>(words));
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}

// Stores at the lane only where the lane is 0.
__device__ float store_at_lane_zero(float v, float* buf) {
  const unsigned lane = threadIdx.x % warpSize;
  if (lane == 0) buf[lane] = v;
  __syncthreads();
  return buf[0];
}

// Correct: a scan buffer with a slot per lane, and [32] buffers that only hold per-wavefront partials (16 in a
// 1024-thread block) or are stored at one fixed lane.
__global__ void scans_and_sums(const float* in, float* out) {
  // ok: W64-008
  __shared__ float scan_buf[64];
  // ok: W64-008
  __shared__ float sum_buf[32];
  // ok: W64-008
  __shared__ float first[32];
  const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float r = block_scan_into(v, scan_buf) + block_sum_into(v, sum_buf);
  r += store_at_lane_zero(v, first);
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
