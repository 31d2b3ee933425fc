// A host launcher that reports an error code without launching: run_launcher must surface it.
#include <hip/hip_runtime.h>

__global__ void never(float* x) { x[threadIdx.x] = 1.0f; }

extern "C" int launch_fails(float* x) {
  (void)x;
  return 7;
}
