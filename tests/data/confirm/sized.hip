// --confirm test input: a kernel whose buffers must be sized from its index expressions (row * N + j reaches
// threads * N elements), and a ballot whose predicate is false for every lane on the default inputs.
#include "hip/hip_runtime.h"

__global__ void row_sums(const float* x, float* total, int M, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  float v = 0.0f;
  if (row < M) {
    for (int j = 0; j < N; ++j) v += x[row * N + j];
  }
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(total, v);
}

__global__ void count_above(const float* x, int* count, float threshold, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  bool hit = i < n && x[i] > threshold;
  unsigned int mask = __ballot(hit);
  if (threadIdx.x % warpSize == 0) atomicAdd(count, __popc(mask));
}
