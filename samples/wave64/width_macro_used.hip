// A width macro with a constant twin (32 on CUDA, warpSize on ROCm) that this file itself uses: its uses decide.
// Run-time uses are correct on ROCm 7; a use where a constant is required is reported there (exllamav2's
// rms_norm.cu after its wave64 fix).
#include <hip/hip_runtime.h>

#if defined(__HIP_PLATFORM_AMD__)
// ok: W64-010
#define ROW_WIDTH (warpSize)
#else
#define ROW_WIDTH 32
#endif

__global__ void row_ids(int* warp_of, int* lane_of) {
  warp_of[threadIdx.x] = threadIdx.x / ROW_WIDTH;
  lane_of[threadIdx.x] = threadIdx.x % ROW_WIDTH;
}
