// Shared memory reached through a function that returns it: the `SharedMemory<T>` struct of PyTorch-extension
// kernels (apex, PyTorch), whose specializations each declare one `extern __shared__` array and return it. A
// kernel template never instantiated in the file calls `shared.getPointer()` on `SharedMemory<U>`: the call
// depends on U, so it may run either specialization, and the access is judged at their element sizes only
// (float and double here), the least conflicted of them reported.
#include "hip/hip_runtime.h"

template <typename T> struct SharedMemory;
template <> struct SharedMemory<float> {
  __device__ float *getPointer() {
    extern __shared__ float s_float[];
    return s_float;
  }
};
template <> struct SharedMemory<double> {
  __device__ double *getPointer() {
    extern __shared__ double s_double[];
    return s_double;
  }
};

// A pointer that is not shared memory, returned the same way: nothing to check.
__device__ float g_table[4096];
__device__ float *table() { return g_table; }

// Rows of 32 threads merge two partial sums per thread, stored interleaved: the pair of a lane sits 2 elements
// after its neighbour's, 2-way for 4-byte elements (ds_write_b32) and for 8-byte ones (ds_write_b64) alike.
template <typename U>
__global__ void mergePairs(U *out, U a, U b) {
  SharedMemory<U> shared;
  U *buf = shared.getPointer();
  const int i = threadIdx.y * blockDim.x + threadIdx.x;
  // expect: LDS-001
  buf[2 * i] = a;
  // expect: LDS-001
  buf[2 * i + 1] = b;
  __syncthreads();
  if (threadIdx.y == 0) {
    // ok: LDS-001
    out[threadIdx.x] = buf[threadIdx.x] + buf[blockDim.x + threadIdx.x];
  }
}

template <typename U>
void launchMerge(U *out, U a, U b) {
  mergePairs<<<1, dim3(32, 4)>>>(out, a, b);
}

// The same getter in a concrete kernel: the call names the float specialization.
__global__ void stridedFloat(float *out) {
  SharedMemory<float> shared;
  float *buf = shared.getPointer();
  // ok: LDS-001
  buf[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  // expect: LDS-001
  out[threadIdx.x] = buf[4 * threadIdx.x] + table()[4 * threadIdx.x];
}

void launchStrided(float *out) { stridedFloat<<<1, 64, 256 * sizeof(float)>>>(out); }
