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

// Correct on gfx942: a sub-group width the host picks per row length (8, 32 or the whole 64-lane wavefront);
// the ballot compaction works on the wavefront through warpSize whatever the sub-group. The 32-wide instance's
// ids are the 64-wide instance's lane and wavefront ids: the code is judged at the wavefront's width.
template <unsigned BLOCKSIZE, unsigned SUB>
__device__ void compact_rows_device(int nk, const int* table, int* out) {
  // ok: W64-002
  const int lid = threadIdx.x & (SUB - 1);
  // ok: W64-002
  const int wid = threadIdx.x / SUB;
  for (int j = wid; j < nk; j += BLOCKSIZE / SUB) out[j * SUB + lid] = table[j];
  const unsigned long long mask = __ballot(table[threadIdx.x] < nk);
  if (threadIdx.x % warpSize == 0) out[nk + threadIdx.x / warpSize] = __popcll(mask);
}

template <unsigned BLOCKSIZE, unsigned SUB>
__global__ void compact_rows(int nk, const int* table, int* out) {
  compact_rows_device<BLOCKSIZE, SUB>(nk, table, out);
}

// Bug: the same template, but its lane ids are 32-lane ids in every instance.
template <unsigned BLOCKSIZE, unsigned SUB>
__global__ void compact_rows_32(int nk, const int* table, int* out) {
  // expect: W64-002
  const int lid = threadIdx.x % 32;
  // expect: W64-002
  for (int j = threadIdx.x / SUB; j < nk; j += BLOCKSIZE / SUB) out[j * SUB + lid] = table[j];
  const unsigned long long mask = __ballot(table[threadIdx.x] < nk);
  if (lid == 0) out[nk] = __popcll(mask);
}

void compact(int nk, const int* table, int* out) {
  compact_rows<256, 8><<<1, 256>>>(nk, table, out);
  compact_rows<256, 32><<<1, 256>>>(nk, table, out);
  compact_rows<1024, 64><<<1, 1024>>>(nk, table, out);
  compact_rows_32<256, 32><<<1, 256>>>(nk, table, out);
  compact_rows_32<1024, 64><<<1, 1024>>>(nk, table, out);
}

// Correct on gfx942: the template's width parameter is the device's wavefront width, and the code has a branch
// for each (the 32-bit mask operations only where the parameter is 32).
template <unsigned WFSIZE>
__device__ int fill_position(bool has, int lid) {
  const unsigned long long mask = __ballot(has);
  if (WFSIZE == 32) {
    // ok: W64-005
    return __popc(mask & (0xffffffff >> (WFSIZE - 1 - lid)));
  } else {
    return __popcll(mask & (0xffffffffffffffff >> (WFSIZE - 1 - lid)));
  }
}

// Bug: a 32-wide branch with no 64-lane counterpart.
template <unsigned WFSIZE>
__device__ int fill_position_32(bool has, int lid) {
  const unsigned long long mask = __ballot(has);
  if (WFSIZE == 32) {
    // expect: W64-005
    return __popc(mask & (0xffffffff >> (WFSIZE - 1 - lid)));
  }
  return lid;
}
