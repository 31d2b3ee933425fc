// Shared arrays whose element type is a template parameter. Where the file instantiates the template, each
// instantiation is judged with its own type; where nothing binds the type, 4 bytes (float) is assumed and said.
// A bitonic sort step pairs value[pos] with value[pos + stride], pos = 2 * tid - (tid & (stride - 1)): for
// strides below 32 a 32-lane phase touches every other dword of a 64-dword span, 2-way at 4-byte elements, while
// 2-byte elements pack two lanes' values per dword and run conflict-free.
#include "hip/hip_runtime.h"

// The file's own compare-and-swap, handed the two addresses: its reads and writes are the call's, reported there.
template <typename T>
__device__ void orderPair(T* lo, T* hi) {
  if (*lo > *hi) {
    T t = *lo;
    *lo = *hi;
    *hi = t;
  }
}

// Never instantiated here (a header's block sort): T is open, judged at 4 bytes.
template <typename T>
__device__ void blockSort(T* out, const T* in) {
  __shared__ T value[1024];
  // ok: LDS-001
  value[threadIdx.x] = in[0];
  // ok: LDS-001
  value[threadIdx.x + blockDim.x] = in[1];
  for (int stride = 16; stride > 0; stride >>= 1) {
    __syncthreads();
    int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    // expect: LDS-001
    orderPair<T>(&value[pos], &value[pos + stride]);
  }
  __syncthreads();
  // ok: LDS-001
  out[0] = value[threadIdx.x];
}

// The same step in a kernel the file instantiates for __half only: judged at 2 bytes, conflict-free.
template <typename T>
__global__ void halfSort(T* data) {
  __shared__ T keys[512];
  keys[threadIdx.x] = data[threadIdx.x];
  keys[threadIdx.x + 256] = data[threadIdx.x + 256];
  for (int stride = 16; stride > 0; stride >>= 1) {
    __syncthreads();
    int pos = 2 * threadIdx.x - (threadIdx.x & (stride - 1));
    // ok: LDS-001
    if (keys[pos] > keys[pos + stride]) {
      // ok: LDS-001
      T t = keys[pos];
      // ok: LDS-001
      keys[pos] = keys[pos + stride];
      // ok: LDS-001
      keys[pos + stride] = t;
    }
  }
  __syncthreads();
  data[threadIdx.x] = keys[threadIdx.x];
}
template __global__ void halfSort<__half>(__half*);

// A rotation through a padded row: lane i reads row i of a 33-element pitch, conflict-free for 1-, 2-, 4- and
// 8-byte elements alike, so the open type changes nothing and nothing is reported.
template <typename T>
__global__ void paddedColumns(const T* in, T* out) {
  __shared__ T tile[32 * 33];
  for (int c = 0; c < 32; ++c) {
    // ok: LDS-001
    tile[threadIdx.x * 33 + c] = in[c * 32 + threadIdx.x];
  }
  __syncthreads();
  // ok: LDS-001
  out[threadIdx.x] = tile[threadIdx.x * 33];
}
