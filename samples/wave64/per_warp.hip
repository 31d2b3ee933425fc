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
