// Kernels that the host launches only on devices whose warp is 32 lanes wide.
#include <hip/hip_runtime.h>

// Correct on gfx942: a 32-lane variant that the host below launches only when the device's warp size is 32.
__device__ int rank_in_group32(int key) {
  // ok: W64-004
  const unsigned mask = (unsigned)__ballot(key != 0);
  // ok: W64-002
  const int lane = threadIdx.x % 32;
  // ok: W64-005
  return __popc(mask & ((1u << lane) - 1));
}

__global__ void ranks32(const int* keys, int* ranks) {
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = rank_in_group32(keys[blockIdx.x * blockDim.x + threadIdx.x]);
}

// The 64-lane variant, launched on every other device.
__global__ void ranks64(const int* keys, int* ranks) {
  const unsigned long long mask = __ballot(keys[blockIdx.x * blockDim.x + threadIdx.x] != 0);
  const int lane = threadIdx.x % warpSize;
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = __popcll(mask & ((1ull << lane) - 1));
}

// Bug: the same 32-lane code, launched whatever the device: on gfx942 lanes 32-63 count from a truncated mask.
__device__ int rank_in_group(int key) {
  // expect: W64-004
  const unsigned mask = (unsigned)__ballot(key != 0);
  const int lane = threadIdx.x % 32;
  // expect: W64-005
  return __popc(mask & ((1u << lane) - 1));
}

__global__ void ranks_any(const int* keys, int* ranks) {
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = rank_in_group(keys[blockIdx.x * blockDim.x + threadIdx.x]);
}

void rank_keys(const int* keys, int* ranks, int blocks) {
  int width = 0;
  hipDeviceGetAttribute(&width, hipDeviceAttributeWarpSize, 0);
  if (width == 32)
    ranks32<<<blocks, 256>>>(keys, ranks);
  else
    ranks64<<<blocks, 256>>>(keys, ranks);
  ranks_any<<<blocks, 256>>>(keys, ranks);
}

// A kernel templated on its wavefront width, launched through a library's launch macro (the kernel in
// parentheses, for the commas of its template arguments) from a host template that picks the instance from a
// handle's copy of the device's wavefront width: gfx942 runs only the 64-lane instance.
#define LAUNCH_OR_RETURN(kernel, grid, block, shm, stream, ...)                                        \
  do {                                                                                               \
    hipLaunchKernelGGL(kernel, grid, block, shm, stream, __VA_ARGS__);                               \
    if (hipGetLastError() != hipSuccess) return 1;                                                   \
  } while (0)

struct library_handle {
  int wavefront_size;   // hipDeviceProp_t::warpSize of the handle's device
  hipStream_t stream;
};

template <unsigned BLOCKSIZE, unsigned WFSIZE>
__global__ void row_counts(int m, const int* flags, int* out) {
  // ok: W64-002
  const int lid = threadIdx.x & (WFSIZE - 1);
  // ok: W64-002
  const int row = blockIdx.x * (BLOCKSIZE / WFSIZE) + threadIdx.x / WFSIZE;
  if (row >= m) return;
  const unsigned long long mask = __ballot(flags[row * WFSIZE + lid] != 0);
  if (lid == 0) out[row] = __popcll(mask);
}

template <typename T>
int count_rows(library_handle* handle, int m, const int* flags, int* out) {
  if (handle->wavefront_size == 32) {
    LAUNCH_OR_RETURN((row_counts<256, 32>), dim3((m - 1) / (256 / 32) + 1), dim3(256), 0, handle->stream, m,
                     flags, out);
  } else {
    LAUNCH_OR_RETURN((row_counts<256, 64>), dim3((m - 1) / (256 / 64) + 1), dim3(256), 0, handle->stream, m,
                     flags, out);
  }
  return 0;
}

template int count_rows<float>(library_handle*, int, const int*, int*);

// Bug: the same kernel's 32-lane instance launched whatever the device.
template <unsigned BLOCKSIZE, unsigned WFSIZE>
__global__ void row_counts_any(int m, const int* flags, int* out) {
  // expect: W64-002
  const int lid = threadIdx.x & (WFSIZE - 1);
  // expect: W64-002
  const int row = blockIdx.x * (BLOCKSIZE / WFSIZE) + threadIdx.x / WFSIZE;
  if (row >= m) return;
  const unsigned long long mask = __ballot(flags[row * WFSIZE + lid] != 0);
  if (lid == 0) out[row] = __popcll(mask);
}

template <typename T>
int count_rows_any(library_handle* handle, int m, const int* flags, int* out) {
  LAUNCH_OR_RETURN((row_counts_any<256, 32>), dim3((m - 1) / (256 / 32) + 1), dim3(256), 0, handle->stream, m,
                   flags, out);
  return 0;
}

template int count_rows_any<float>(library_handle*, int, const int*, int*);
