// A file whose host code would run when loaded: --confirm must refuse to build and run it.
#include <hip/hip_runtime.h>
#include <cstdlib>

struct Boom {
  Boom() { abort(); }
};
static Boom boom;

__global__ void count_votes(const float* x, int* counts) {
  unsigned votes = __ballot(x[blockIdx.x * blockDim.x + threadIdx.x] > 0.0f);
  if (threadIdx.x % warpSize == 0) atomicAdd(&counts[blockIdx.x], __popcll(votes));
}
