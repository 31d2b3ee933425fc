// The includer: a constant before the header, no compatibility mapping.
#include <hip/hip_runtime.h>
#define PACK_THREADS 64
#include "pack.cuh"

__global__ void pack_kernel(const unsigned* in, unsigned* out, const float* x, float* m) {
  out[threadIdx.x] = pack2(in[threadIdx.x]);
  m[threadIdx.x] = pair_max(x[threadIdx.x]);
}
