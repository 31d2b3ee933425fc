// Shared arrays declared with a template parameter as their element type, in templates the file never
// instantiates (`extern __shared__ acc_t smem[]`, the usual shape of softmax and norm kernels behind a dispatch):
// with no instantiation binding the element type, each access is judged at 4 bytes (float, the element of most
// kernels), said in the message as assumed. No launch gives the block: the default (256 threads) is assumed too.
#include "hip/hip_runtime.h"

// Values cached in the dynamic buffer, the per-wavefront partials after them; the first wavefront's lane l then
// sums the 64 values wavefront l cached: a lane stride of 64 elements.
template <typename acc_t>
__global__ void cachedRowSum(const acc_t* in, acc_t* out, int n) {
  extern __shared__ acc_t cache[];
  acc_t* partials = &cache[n];
  // ok: LDS-001
  cache[threadIdx.x] = in[blockIdx.x * n + threadIdx.x];
  __syncthreads();
  const int lane = threadIdx.x % 64;
  if (threadIdx.x < 64 && lane < blockDim.x / 64) {
    acc_t acc = 0;
    for (int i = 0; i < 64; ++i) {
      // expect: LDS-001
      acc += cache[lane * 64 + i];
    }
    // ok: LDS-001
    partials[lane] = acc;
  }
  __syncthreads();
  if (threadIdx.x == 0) out[blockIdx.x] = partials[0];
}

// Interleaved pairs in a static array of the open type: 2 elements per lane are 2 dwords apart for 4-byte
// elements, 2-way (for 2-byte ones they would share a dword: a file instantiating it with half is not reported).
template <typename T>
__global__ void interleavedPairs(const T* in, T* out) {
  __shared__ T pairs[512];
  // expect: LDS-001
  pairs[2 * threadIdx.x] = in[threadIdx.x];
  // expect: LDS-001
  pairs[2 * threadIdx.x + 1] = in[threadIdx.x + blockDim.x];
  __syncthreads();
  out[threadIdx.x] = pairs[threadIdx.x] + pairs[threadIdx.x + blockDim.x];
}

// The buffer declared with one open type and read through a cast to another (input_t values, acc_t partials
// after them): rows of the block stay contiguous, conflict-free at any size, so not reported.
template <typename input_t, typename acc_t>
__global__ void castCache(const input_t* in, input_t* out, int n) {
  extern __shared__ acc_t raw[];
  input_t* values = (input_t*)raw;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    // ok: LDS-001
    values[i] = in[blockIdx.x * n + i];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    // ok: LDS-001
    out[blockIdx.x * n + i] = values[i] * values[n - 1 - i];
  }
}

// A kernel that is a static member of a class template, its buffer of the class's element type: the tree
// reduction with interleaved addressing puts the pair of lane t at 2 * i * t, a lane stride of 2i elements
// (8-way at i = 4); the sequential-addressing form keeps consecutive lanes on consecutive elements.
template <typename T>
struct TreeReduce {
  __global__ static void interleaved(const T* in, T* out) {
    extern __shared__ T part[];
    // ok: LDS-001
    part[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (unsigned i = 1; i < blockDim.x; i *= 2) {
      const unsigned at = 2 * i * threadIdx.x;
      // expect: LDS-001
      if (at < blockDim.x) part[at] += part[at + i];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
  }

  __global__ static void sequential(const T* in, T* out) {
    extern __shared__ T part[];
    // ok: LDS-001
    part[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      // ok: LDS-001
      if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = part[0];
  }
};
