// Template patterns never instantiated in the file whose shared memory is the raw extern buffer reinterpreted as
// the template's element type: with nothing in the file binding the type, each access is judged at 4 bytes
// (float), said in the message as assumed. No launch gives the block: the default (256 threads) is assumed and
// said so.
#include "hip/hip_runtime.h"

// Block reduction, second stage: the first wavefront's lane l sums the 64 partials that wavefront l stored. The
// lane stride of 64 elements puts the blockDim.x / 64 active lanes in one bank (4 lanes of the assumed block).
template <typename AccT>
__device__ AccT sumPartials(AccT* buf, AccT v) {
  // ok: LDS-001
  buf[threadIdx.x] = v;
  __syncthreads();
  AccT acc = 0;
  int lane = threadIdx.x % 64;
  if (threadIdx.x < 64 && lane < blockDim.x / 64) {
    for (int i = 0; i < 64; ++i) {
      // expect: LDS-001
      acc += buf[lane * 64 + i];
    }
  }
  return acc;
}

// The same reduction with one element of padding after every 64: the active lanes step 65 elements apart and
// fall in distinct banks (for 4-byte elements and wider).
template <typename AccT>
__device__ AccT sumPartialsPadded(AccT* buf, AccT v) {
  // ok: LDS-001
  buf[threadIdx.x + threadIdx.x / 64] = v;
  __syncthreads();
  AccT acc = 0;
  int lane = threadIdx.x % 64;
  if (threadIdx.x < 64 && lane < blockDim.x / 64) {
    for (int i = 0; i < 64; ++i) {
      // ok: LDS-001
      acc += buf[lane * 65 + i];
    }
  }
  return acc;
}

// The helpers are reached through calls that depend on T (libclang leaves them unresolved): the pointer they are
// handed is the kernel's reinterpreted buffer.
template <typename T>
__global__ void rowSums(const T* in, T* out) {
  extern __shared__ unsigned char raw[];
  auto partials = reinterpret_cast<T*>(raw);
  T v = in[blockIdx.x * blockDim.x + threadIdx.x];
  T a = sumPartials<T>(partials, v);
  T b = sumPartialsPadded<T>(partials, v);
  if (threadIdx.x == 0) out[blockIdx.x] = a + b;
}

// A transpose of per-wavefront partials whose lane stride is blockDim.y, a runtime value: the degree holds for
// the blockDim.y assumed (8), and the message says so (low confidence).
template <typename T>
__global__ void transposePartials(const T* in, T* out) {
  extern __shared__ unsigned char raw[];
  auto buf = reinterpret_cast<T*>(raw);
  // expect: LDS-001
  buf[threadIdx.x * blockDim.y + threadIdx.y] = in[blockIdx.x * blockDim.x * blockDim.y + threadIdx.x];
  __syncthreads();
  // ok: LDS-001
  out[blockIdx.x * blockDim.x * blockDim.y + threadIdx.x] = buf[threadIdx.y * blockDim.x + threadIdx.x];
}
