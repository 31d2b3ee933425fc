// porter analyze --confirm test inputs: one hazard per kernel, so a confirmation is attributable to it.
#include <hip/hip_runtime.h>

// Bug (W64-004): the 64-bit ballot is stored in 32 bits; each wavefront's count loses lanes 32-63.
__global__ void count_votes(const float* x, int* counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  unsigned votes = __ballot(v > 0.0f);
  if (threadIdx.x % warpSize == 0) atomicAdd(&counts[blockIdx.x], __popcll(votes));
}

// Correct at any wavefront width: the whole mask is kept.
__global__ void count_votes_fixed(const float* x, int* counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  unsigned long long votes = __ballot(v > 0.0f);
  if (threadIdx.x % warpSize == 0) atomicAdd(&counts[blockIdx.x], __popcll(votes));
}

struct Scale {
  float factor;
  int n;
};

// Same bug, but a struct passed by value: porter cannot make up its fields.
__global__ void count_scaled(Scale s, const float* x, int* counts) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < s.n ? s.factor * x[i] : 0.0f;
  unsigned votes = __ballot(v > 0.0f);
  if (threadIdx.x % warpSize == 0) atomicAdd(&counts[blockIdx.x], __popcll(votes));
}

// Same bug in a kernel template that this file never instantiates: there are no arguments to run it with.
template <int BLOCK>
__global__ void count_generic(const float* x, int* counts) {
  unsigned votes = __ballot(x[blockIdx.x * BLOCK + threadIdx.x] > 0.0f);
  if (threadIdx.x % warpSize == 0) atomicAdd(&counts[blockIdx.x], __popcll(votes));
}

// Same bug in a template the host code launches as count_tiled<128> with 128 threads: that launch is run.
template <int BLOCK>
__global__ void count_tiled(const float* x, int* counts) {
  unsigned votes = __ballot(x[blockIdx.x * BLOCK + threadIdx.x] > 0.0f);
  if (threadIdx.x % warpSize == 0) atomicAdd(&counts[blockIdx.x], __popcll(votes));
}

void launch_tiled(const float* x, int* counts, int blocks) {
  count_tiled<128><<<blocks, 128>>>(x, counts);
}

int main() {
  // Host code is never run by --confirm: this would abort if it were.
  __builtin_trap();
}
