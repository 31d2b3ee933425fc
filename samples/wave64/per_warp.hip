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
