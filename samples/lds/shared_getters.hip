// Shared memory reached through a function that returns it: the `SharedMemory<T>` struct of PyTorch-extension
// kernels (apex, PyTorch), whose specializations each declare one `extern __shared__` array and return it. A
// kernel template never instantiated in the file calls `shared.getPointer()` on `SharedMemory<U>`: the call
// depends on U, so it may run either specialization, and the access is judged at each of their element types
// (float and double here), those it conflicts for named in the message. A struct that converts to the pointer
// (`operator float*()`) is followed the same way.
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

// The conversion form (CUDA samples' SharedMemory): the struct converts to the pointer, its `operator float*()`
// returning the extern array, so `float *buf = SharedArray<float>();` is followed like the getter.
template <typename T> struct SharedArray;
template <> struct SharedArray<float> {
  __device__ operator float *() {
    extern __shared__ float s_conv[];
    return s_conv;
  }
};

__global__ void convertedColumns(float *out) {
  float *buf = SharedArray<float>();
  // ok: LDS-001
  buf[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  // expect: LDS-001
  out[threadIdx.x] = buf[32 * threadIdx.x];
}

void launchConverted(float *out) { convertedColumns<<<1, 64, 64 * 32 * sizeof(float)>>>(out); }

// The class template itself converts (`return (T *)smem;` for any T): in a pattern never instantiated in the file
// the element is open and judged at 4 bytes (float), said as assumed. A 32-element lane stride and the stride-2
// read (two dwords per lane) both conflict at that size.
template <typename T> struct DynamicShared {
  __device__ operator T *() {
    extern __shared__ int dyn_smem[];
    return (T *)dyn_smem;
  }
};

template <typename T>
__global__ void convertedPattern(T *out) {
  T *sdata = DynamicShared<T>();
  // expect: LDS-001
  out[threadIdx.x] = sdata[2 * threadIdx.x];
  // expect: LDS-001
  out[blockDim.x + threadIdx.x] = sdata[32 * threadIdx.x];
}
