// Architecture macros in host code, in preprocessor branches that one or both compilation passes skip.
#define USE_ROCM 1
#include <hip/hip_runtime.h>

__global__ void scale_rows(float* x) { x[blockIdx.x * blockDim.x + threadIdx.x] *= 2.0f; }

void launch_scale_rows(float* x, int rows) {
#ifndef USE_ROCM
  // ok: W64-011
  int threads = 4 * __AMDGCN_WAVEFRONT_SIZE;
#else
  int threads = 256;
#endif
  int width = 64;
#ifndef __HIP_DEVICE_COMPILE__
  // Bug: this branch is the host pass's own (the device parse skips it), and there the macro is not the GPU's.
  // expect: W64-011
  width = __AMDGCN_WAVEFRONT_SIZE;
#endif
  scale_rows<<<rows, threads / (width / 64)>>>(x);
}

// Correct: the architecture test sits in the CUDA-only branch, which neither ROCm pass compiles.
#ifndef USE_ROCM
// ok: W64-011
#if defined(__GFX9__)
#define ROW_WIDTH 64
#else
#define ROW_WIDTH 32
#endif
#else
#define ROW_WIDTH 64
#endif

void launch_rows_of_width(float* x, int n) { scale_rows<<<n / ROW_WIDTH, ROW_WIDTH>>>(x); }
