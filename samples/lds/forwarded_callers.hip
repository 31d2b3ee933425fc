// Callers of block routines that reach them through a wrapper passing its own pointer on: a kernel that passes
// its __shared__ array has the routine judged with that array, its element type and the kernel's launch; a kernel
// that passes global memory has it never judged as shared, however its threads exchange values.
#include "hip/hip_runtime.h"

// Compare-exchange of pairs `stride` apart at pos = 2 * t - (t & (stride - 1)), strides 32 down to 1.
__device__ void merge_pairs(double* keys) {
  for (int stride = 32; stride > 0; stride /= 2) {
    const int t = threadIdx.x;
    const int pos = 2 * t - (t & (stride - 1));
    // expect: LDS-001
    const double a = keys[pos];
    // expect: LDS-001
    const double b = keys[pos + stride];
    // expect: LDS-001
    keys[pos] = fmin(a, b);
    // expect: LDS-001
    keys[pos + stride] = fmax(a, b);
    __syncthreads();
  }
}

__device__ void merge_run(double* keys) { merge_pairs(keys); }

// Bug: the 8-byte keys of a 64-thread block's 128-key list: ds_read_b64 phases of 16 lanes conflict 2-way for
// strides of 8 and below (16 lanes cover 32 keys, 64 dwords).
__global__ __launch_bounds__(64) void merge_tile(double* out) {
  __shared__ double keys[128];
  // ok: LDS-001
  keys[threadIdx.x] = out[blockIdx.x * 128 + threadIdx.x];
  // ok: LDS-001
  keys[threadIdx.x + 64] = out[blockIdx.x * 128 + threadIdx.x + 64];
  __syncthreads();
  merge_run(keys);
  // ok: LDS-001
  out[blockIdx.x * 128 + threadIdx.x] = keys[threadIdx.x];
}

// The same exchange pattern through a wrapper that a kernel hands global memory: not shared memory, not judged.
__device__ void merge_pairs_global(float* keys) {
  for (int stride = 16; stride > 0; stride /= 2) {
    const int t = threadIdx.x;
    const int pos = 2 * t - (t & (stride - 1));
    // ok: LDS-001
    const float a = keys[pos];
    // ok: LDS-001
    const float b = keys[pos + stride];
    // ok: LDS-001
    keys[pos] = fminf(a, b);
    // ok: LDS-001
    keys[pos + stride] = fmaxf(a, b);
    __syncthreads();
  }
}

__device__ void merge_run_global(float* keys) { merge_pairs_global(keys); }

__global__ void merge_in_place(float* lists) { merge_run_global(lists + blockIdx.x * 64); }
