// The includer: compat.cuh first, then the header that uses the CUDA spellings.
#include <hip/hip_runtime.h>
#include "compat.cuh"
#define PACK_THREADS 64
#include "pack.cuh"

__global__ void pack_kernel(const unsigned* in, unsigned* out, const float* x, float* m) {
  int t = threadIdx.x;
  out[t] = pack4(in[t], t);
  m[t] = quad_max(x[t]);
}
